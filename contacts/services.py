"""Writes to contacts. Every change to a contact is written on its log, whoever made it."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from contacts.models import Contact, ContactEmail, LogEntry
from contacts.selectors import emails_taken
from roadstar.actors import Actor
from tools.errors import ToolError


def log_write(*, org, actor: Actor, kind: str, contact=None, company=None, text: str = "", before=None, after=None,
              why: str = "", extra: dict | None = None) -> LogEntry:
    return LogEntry.objects.create(
        organization=org, contact=contact, company=company, by_kind=actor.kind, by_id=actor.id, kind=kind,
        text=text, before=before, after=after, why=why, extra=extra or {},
    )


def _clean_emails(emails: list[str]) -> list[str]:
    seen, cleaned = set(), []
    for email in emails:
        email = email.strip()
        if email and email.lower() not in seen:
            seen.add(email.lower())
            cleaned.append(email)
    return cleaned


def contact_create(
    *, org, actor: Actor, name: str, emails: list[str] = (), phone: str | None = None, job_title: str | None = None,
    labels: list[str] = (), company_ids: list[str] = (), fields: dict | None = None,
) -> Contact:
    """Add a contact. An address already on a contact raises `ContactExists` naming that contact."""
    from companies.models import Company, CompanyPerson

    emails = _clean_emails(list(emails))
    taken = emails_taken(org=org, emails=emails)
    if taken:
        address, existing = next(iter(taken.items()))
        raise ContactExists(existing, address)
    companies = list(Company.objects.filter(organization=org, id__in=list(company_ids)))
    missing = {str(c) for c in company_ids} - {str(c.id) for c in companies}
    if missing:
        raise ToolError("not_found", f"companyIds: no company with id {sorted(missing)[0]} in this workspace.")
    with transaction.atomic():
        contact = Contact.objects.create(
            organization=org, name=name, phone=phone, job_title=job_title, labels=list(dict.fromkeys(labels)),
            fields=dict(fields or {}),
        )
        try:
            ContactEmail.objects.bulk_create(
                [ContactEmail(organization=org, contact=contact, email=e, position=i) for i, e in enumerate(emails)]
            )
        except IntegrityError:
            # Another caller took the address between our look and our write.
            raise ToolError("changed", "One of those addresses was just added to another contact; find it first.")
        CompanyPerson.objects.bulk_create(
            [CompanyPerson(organization=org, company=c, contact=contact) for c in companies]
        )
        log_write(org=org, actor=actor, kind=LogEntry.Kind.CREATED, contact=contact, text=f"Added {name}")
    return contact


class ContactExists(Exception):
    def __init__(self, contact: Contact, email: str):
        super().__init__(email)
        self.contact = contact
        self.email = email


def contact_set_context(*, org, actor: Actor, contact: Contact, text: str, why: str) -> LogEntry:
    """Set what everyone should know before writing to them, and log why it changed."""
    before = contact.context
    contact.context = text or None
    contact.save(update_fields=["context", "updated_at"])
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.CONTEXT, contact=contact, before=before, after=contact.context,
        why=why,
    )
