"""Projects, and the docs agents write and keep in them, with every version and the owner's notes."""

import uuid

from django.conf import settings
from django.db import models


class Project(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="projects")
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True, default="")
    # An agent's own project: where the docs it writes go when it names no project and its work has none yet.
    agent = models.OneToOneField(
        "team.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="own_project",
        help_text="The agent whose own project this is: its docs go here when no project is named.",
    )
    created_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["organization", "-updated_at"], name="project_org_updated_idx")]

    def __str__(self):
        return self.name


class ProjectLink(models.Model):
    """A contact linked to a project (`contacts.link_project`)."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="links")
    contact = models.ForeignKey("contacts.Contact", on_delete=models.CASCADE, related_name="project_links")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "contact"], name="project_link_unique")]


class Doc(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        PUBLISHED = "published"
        ARCHIVED = "archived"

    class Updates(models.TextChoices):
        ONCE = "once"
        WEEKLY = "weekly"
        MONTHLY = "monthly"
        QUARTERLY = "quarterly"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="docs")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="docs")
    title = models.CharField(max_length=300)
    type = models.CharField(max_length=10, default="doc")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    brief = models.TextField(null=True, blank=True, help_text="What the owner asked for, when it was asked for.")
    read_first = models.JSONField(default=list, blank=True)
    updates = models.CharField(max_length=10, choices=Updates.choices, default=Updates.ONCE)
    # The current text and version, kept on the doc so reading it needs no join; every version is in DocVersion.
    text = models.TextField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    created_by = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["organization", "-updated_at"], name="doc_org_updated_idx")]

    def __str__(self):
        return self.title


class DocVersion(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    doc = models.ForeignKey(Doc, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    text = models.TextField()
    lines = models.JSONField(default=list, blank=True, help_text="What changed, a plain sentence each.")
    by = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["doc", "number"]
        constraints = [models.UniqueConstraint(fields=["doc", "number"], name="doc_version_unique")]


class DocNote(models.Model):
    """A note the owner left on a doc, or an agent's answer to one (`parent` set)."""

    class State(models.TextChoices):
        OPEN = "open"
        CHANGED = "changed"
        KEPT = "kept"
        DONE = "done"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    doc = models.ForeignKey(Doc, on_delete=models.CASCADE, related_name="notes")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="answers")
    on = models.TextField(blank=True, help_text="The words of the doc the note is on.")
    note = models.TextField(null=True, blank=True)
    by = models.JSONField(default=dict)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["doc", "state"], name="doc_note_state_idx")]
