"""Companies: the businesses the owner deals with, their people, and a timeline of conversations."""

import uuid

from django.db import models


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
        ordering = ["name"]
        verbose_name_plural = "companies"
        indexes = [models.Index(fields=["organization", "name"], name="company_org_name_idx")]

    def __str__(self):
        return self.name


class CompanyPerson(models.Model):
    """A contact's link to a company, with a role and when it started and ended."""

    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="people")
    contact = models.ForeignKey("contacts.Contact", on_delete=models.CASCADE, related_name="company_links")
    role = models.CharField(max_length=200, null=True, blank=True)
    since = models.DateField(null=True, blank=True)
    ended = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
        ordering = ["-at", "-created_at"]
        verbose_name_plural = "timeline entries"
        indexes = [models.Index(fields=["company", "removed_at", "-at"], name="timeline_company_at_idx")]
