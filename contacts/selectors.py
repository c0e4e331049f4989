"""Reads of contacts, always scoped by the workspace; another workspace's contact is `not_found`."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.db.models.functions import Lower

from contacts.models import Contact, ContactEmail, OpenItem
from tools.errors import ToolError


def contact_queryset_for_record(*, org) -> QuerySet:
    """Contacts with everything ContactRecord reads, in a fixed number of queries whatever their count."""
    return Contact.objects.filter(organization=org).prefetch_related(
        "emails",
        Prefetch("open_items", queryset=OpenItem.objects.filter(closed_at__isnull=True)),
        "company_links__company__handler",
        "project_links__project",
    )


def contact_get(*, org, contact_id) -> Contact:
    contact = contact_queryset_for_record(org=org).filter(id=contact_id).first()
    if contact is None:
        raise ToolError("not_found", f"No contact with id {contact_id} in this workspace.")
    return contact


def contact_by_email(*, org, email: str) -> Contact | None:
    row = ContactEmail.objects.filter(organization=org, email__iexact=email.strip()).only("contact_id").first()
    if row is None:
        return None
    return contact_queryset_for_record(org=org).get(id=row.contact_id)


def emails_taken(*, org, emails: list[str]) -> dict[str, Contact]:
    """Which of these addresses are on a contact already, by lower-cased address."""
    lowered = {e.strip().lower() for e in emails if e.strip()}
    if not lowered:
        return {}
    taken = {}
    rows = ContactEmail.objects.filter(organization=org).select_related("contact")
    for row in rows.annotate(lowered=Lower("email")).filter(lowered__in=lowered):
        taken[row.email.lower()] = row.contact
    return taken
