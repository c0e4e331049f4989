"""Routines (when an agent works on its own), skills (its how-tos), and the events routines listen for."""

import uuid

from django.db import models


class Skill(models.Model):
    """A step-by-step how-to for one kind of work, such as "Chase an invoice". It never widens what an agent may do."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("team.Agent", on_delete=models.CASCADE, related_name="skills")
    slug = models.SlugField(max_length=80, help_text="The skill's id, such as chase-an-invoice.")
    name = models.CharField(max_length=120)
    about = models.CharField(max_length=300, blank=True, help_text="When it applies, in one line.")
    steps = models.TextField()
    # Every change with its why and what the steps were before, for the owner to read back.
    history = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["agent", "slug"], name="skill_slug_unique_per_agent")]

    def __str__(self):
        return self.name


class Routine(models.Model):
    """When an agent works on its own: one or more `when`s (at, ask, keys, due, check), a note and a skill."""

    class Status(models.TextChoices):
        ON = "on"
        OFF = "off"
        CLOSED = "closed"  # a `due` or `once` routine that fired

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("team.Agent", on_delete=models.CASCADE, related_name="routines")
    name = models.CharField(max_length=200)
    note = models.TextField(blank=True, help_text="The owner's standing instruction; the check reads it as theirs.")
    skill = models.ForeignKey(Skill, null=True, blank=True, on_delete=models.SET_NULL, related_name="routines")
    at = models.CharField(max_length=120, blank=True, help_text="A cron line in the owner's time zone.")
    ask = models.TextField(blank=True, help_text="Words checked against each new email and document.")
    keys = models.JSONField(default=list, blank=True)
    due = models.DateTimeField(null=True, blank=True)
    check_tool = models.CharField(max_length=80, blank=True)
    check_input = models.JSONField(default=dict, blank=True)
    check_every_minutes = models.PositiveIntegerField(null=True, blank=True)
    check_last = models.CharField(max_length=64, blank=True, help_text="A hash of the check's last result.")
    # The next time each timed `when` comes round; next_fire_at is the soonest of them.
    next_at_time = models.DateTimeField(null=True, blank=True)
    next_check_at = models.DateTimeField(null=True, blank=True)
    due_done = models.BooleanField(default=False)
    filter = models.JSONField(default=dict, blank=True)
    once = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ON)
    fired = models.PositiveIntegerField(default=0)
    last_fired_at = models.DateTimeField(null=True, blank=True)
    # The next time an `at`, `due` or `check` is due; the scheduler's tick looks only at this column.
    next_fire_at = models.DateTimeField(null=True, blank=True, db_index=True)
    thread = models.ForeignKey(
        "agents.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The routine's own thread, named after it: every run goes there.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "next_fire_at"], name="routine_due_idx")]

    def __str__(self):
        return self.name


class RoutineKey(models.Model):
    """The index events are matched through: one row per key a routine listens for."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    routine = models.ForeignKey(Routine, on_delete=models.CASCADE, related_name="index")
    key = models.CharField(max_length=300)

    class Meta:
        indexes = [models.Index(fields=["organization", "key"], name="routine_key_idx")]
        constraints = [models.UniqueConstraint(fields=["routine", "key"], name="routine_key_unique")]


class Event(models.Model):
    """Something that happened in the owner's business, with keys routines can listen for."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=60)
    keys = models.JSONField(default=list)
    payload = models.JSONField(default=dict, blank=True)
    # What `ask` routines read: an email's sender, subject and text, a document's title and text.
    text = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-at"]


class RoutineRun(models.Model):
    """One firing of a routine. Runs of one routine never overlap: a run waits while the one before is going."""

    class State(models.TextChoices):
        WAITING = "waiting"
        RUNNING = "running"
        DONE = "done"

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    routine = models.ForeignKey(Routine, on_delete=models.CASCADE, related_name="runs")
    event = models.ForeignKey(Event, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    started_by = models.TextField(help_text="What started it, as the run's message says.")
    fired_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.WAITING)
    work = models.ForeignKey("agents.Work", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["fired_at", "id"]
        indexes = [models.Index(fields=["routine", "state"], name="routine_run_state_idx")]


class Summary(models.Model):
    """Roadstar's morning summary of what happened since the last one, shown on Home."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    text = models.TextField()
    since = models.DateTimeField(null=True, blank=True)
    at = models.DateTimeField(auto_now_add=True)
    work = models.ForeignKey("agents.Work", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-at"]
        verbose_name_plural = "summaries"
