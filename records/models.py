"""The owner's records: contacts, companies, projects and docs, and what links them, in one app.

The tables point at each other both ways (a contact's open items and log name a company; a company's people and
a project's links name a contact), so their models are one app's, below the code that reads and writes them:
`contacts` and `docs`, then `companies` (ARCHITECTURE.md, Layers). Each table kept the name it had in the app its
model came from (`db_table`), so moving them touched no row. This is their one import path: the apps above import
them from here.

Open items and log entries belong to a contact or to a company (companies use the same two tables), so the
two record groups keep one meaning of "who owes the next move" and one log.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

# --- contacts ---------------------------------------------------------------------------------------------


class Contact(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUGGESTED = "suggested"
        IGNORED = "ignored"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="contacts")
    name = models.CharField(max_length=200)
    phone = models.CharField(max_length=80, null=True, blank=True)
    job_title = models.CharField(max_length=200, null=True, blank=True)
    labels = models.JSONField(default=list, blank=True)
    context = models.TextField(null=True, blank=True)
    # Named values such as `birthday`; `ask: true` marks someone the owner wants asked about before any send.
    fields = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    last = models.JSONField(default=dict, blank=True, help_text="ContactLast: the latest contact with them.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "contacts_contact"
        ordering = ["name"]
        indexes = [models.Index(fields=["organization", "name"], name="contact_org_name_idx")]

    def __str__(self):
        return self.name

    @property
    def always_ask(self) -> bool:
        return bool(self.fields.get("ask"))


class ContactEmail(models.Model):
    """One address of a contact. An address belongs to one contact per workspace, whatever its letter case."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="emails")
    email = models.CharField(max_length=254)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        db_table = "contacts_contactemail"
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint("organization", Lower("email"), name="contact_email_unique_per_org"),
        ]

    def __str__(self):
        return self.email

# --- companies --------------------------------------------------------------------------------------------


class Company(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="companies")
    name = models.CharField(max_length=200)
    website = models.CharField(max_length=300, null=True, blank=True)
    domains = models.JSONField(default=list, blank=True)
    labels = models.JSONField(default=list, blank=True)
    handler = models.ForeignKey(
        "team.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="handled_companies"
    )
    details = models.JSONField(default=dict, blank=True, help_text="Named facts such as Terms: net 30.")
    context = models.TextField(null=True, blank=True)
    context_by = models.JSONField(null=True, blank=True)
    context_at = models.DateTimeField(null=True, blank=True)
    about = models.JSONField(null=True, blank=True, help_text="CompanyAbout: text, facts, lately, sources, by, at.")
    first_on_mail = models.BooleanField(default=False)
    always_ask = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "companies_company"
        ordering = ["name"]
        verbose_name_plural = "companies"
        indexes = [models.Index(fields=["organization", "name"], name="company_org_name_idx")]

    def __str__(self):
        return self.name


class CompanyPerson(models.Model):
    """A contact's link to a company, with a role and when it started and ended."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="people")
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="company_links")
    role = models.CharField(max_length=200, null=True, blank=True)
    since = models.DateField(null=True, blank=True)
    ended = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "companies_companyperson"
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["company", "contact"], name="company_person_unique")]
        verbose_name_plural = "company people"


class TimelineEntry(models.Model):
    """One conversation with a company: a mail thread, meeting, call, invoice or note."""

    class Kind(models.TextChoices):
        NOTE = "note"
        MAIL = "mail"
        INVOICE = "invoice"
        MEETING = "meeting"
        CALL = "call"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="timeline")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    title = models.CharField(max_length=200)
    at = models.DateTimeField()
    summary = models.TextField(blank=True)
    people = models.JSONField(default=list, blank=True)
    ours = models.JSONField(default=list, blank=True)
    by = models.JSONField(default=dict)
    count = models.PositiveIntegerField(null=True, blank=True)
    minutes = models.PositiveIntegerField(null=True, blank=True)
    link = models.CharField(max_length=2000, blank=True)  # as long as a Link input may be
    thread = models.CharField(max_length=300, blank=True)
    files = models.JSONField(default=list, blank=True)
    state = models.CharField(max_length=15, null=True, blank=True)
    # Taking an entry off keeps the row, so the owner's Undo can put it back exactly as it was.
    removed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "companies_timelineentry"
        ordering = ["-at", "-created_at"]
        verbose_name_plural = "timeline entries"
        indexes = [models.Index(fields=["company", "removed_at", "-at"], name="timeline_company_at_idx")]

# --- open items and the log: a contact's or a company's ---------------------------------------------------


class OpenItem(models.Model):
    """Who owes the next move: `you` (the business), `them`, or a `follow_up` at a time that wakes its setter."""

    class Kind(models.TextChoices):
        YOU = "you"
        THEM = "them"
        FOLLOW_UP = "follow_up"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    contact = models.ForeignKey(Contact, null=True, blank=True, on_delete=models.CASCADE, related_name="open_items")
    company = models.ForeignKey(
        Company, null=True, blank=True, on_delete=models.CASCADE, related_name="open_items"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    text = models.TextField()
    # When it was opened; for a follow_up, when it is due.
    at = models.DateTimeField()
    thread = models.CharField(max_length=64, blank=True, help_text="The conversation it was set from.")
    link = models.CharField(max_length=500, blank=True)
    by_kind = models.CharField(max_length=10)
    by_id = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # When a follow-up woke the agent that set it; each wakes it once.
    woken_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "contacts_openitem"
        ordering = ["at", "created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(contact__isnull=False, company__isnull=True)
                | models.Q(contact__isnull=True, company__isnull=False),
                name="open_item_on_one_record",
            )
        ]
        indexes = [models.Index(fields=["organization", "kind", "closed_at"], name="open_item_kind_idx")]


class LogEntry(models.Model):
    """A dated entry on a contact's or company's log: notes, and every change made to the record."""

    class Kind(models.TextChoices):
        # The contact log's kinds, as the spec gives them …
        REMOVED = "removed"
        NOTE = "note"
        ASK = "ask"
        CONTEXT = "context"
        LABELS = "labels"
        CREATED = "created"
        SENT = "sent"
        DRAFTED = "drafted"
        TRIAGE = "triage"
        LOOKED = "looked"
        MERGED = "merged"
        RESTORED = "restored"
        # … and the changes the spec says "show on the record itself" that none of those names.
        UPDATED = "updated"
        FOLLOW_UP = "follow_up"
        LINKED = "linked"
        ABOUT = "about"
        OPENED = "opened"
        CLOSED = "closed"
        RECORDED = "recorded"
        UNRECORDED = "unrecorded"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    contact = models.ForeignKey(Contact, null=True, blank=True, on_delete=models.CASCADE, related_name="log")
    company = models.ForeignKey(
        Company, null=True, blank=True, on_delete=models.CASCADE, related_name="log"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    by_kind = models.CharField(max_length=10)
    by_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.TextField(blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    why = models.TextField(blank=True)
    # The rest of the spec's entry (subject, to, thread, link, hold, sentAt, approval), as given.
    extra = models.JSONField(default=dict, blank=True)
    change = models.ForeignKey(
        "roadstar.Change", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The change this entry records, for Undo from the record.",
    )

    class Meta:
        db_table = "contacts_logentry"
        ordering = ["-at"]
        verbose_name_plural = "log entries"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(contact__isnull=False, company__isnull=True)
                | models.Q(contact__isnull=True, company__isnull=False),
                name="log_entry_on_one_record",
            )
        ]

# --- projects and docs ------------------------------------------------------------------------------------


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
        db_table = "docs_project"
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["organization", "-updated_at"], name="project_org_updated_idx")]

    def __str__(self):
        return self.name


class ProjectLink(models.Model):
    """A contact linked to a project (`contacts.link_project`)."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="links")
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="project_links")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "docs_projectlink"
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
        db_table = "docs_doc"
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
        db_table = "docs_docversion"
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
        db_table = "docs_docnote"
        ordering = ["created_at"]
        indexes = [models.Index(fields=["doc", "state"], name="doc_note_state_idx")]
