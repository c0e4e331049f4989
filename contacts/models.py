"""Contacts: the people the business deals with, shared by all the owner's agents.

Open items and log entries belong to a contact or to a company (companies use the same two tables), so the
two record groups keep one meaning of "who owes the next move" and one log.
"""

import uuid

from django.db import models
from django.db.models.functions import Lower


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
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint("organization", Lower("email"), name="contact_email_unique_per_org"),
        ]

    def __str__(self):
        return self.email


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
        "companies.Company", null=True, blank=True, on_delete=models.CASCADE, related_name="open_items"
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
        "companies.Company", null=True, blank=True, on_delete=models.CASCADE, related_name="log"
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
        ordering = ["-at"]
        verbose_name_plural = "log entries"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(contact__isnull=False, company__isnull=True)
                | models.Q(contact__isnull=True, company__isnull=False),
                name="log_entry_on_one_record",
            )
        ]
