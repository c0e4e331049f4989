"""Contacts as the spec's result types (ContactRecord, the log entry, the open item), built from loaded rows.

Each function takes rows that were loaded with what it reads (see `contacts.selectors`), so building a page
of contacts costs no query per contact.
"""

from __future__ import annotations

import datetime

from django.core.exceptions import ObjectDoesNotExist

from core.owner_zone import zone_named
from core.timefmt import iso


def by_shape(kind: str, id_: str) -> dict:
    return {"kind": kind, "id": id_}


def open_item_shape(item) -> dict:
    shape = {"id": str(item.id), "kind": item.kind, "text": item.text, "at": iso(item.at)}
    if item.thread:
        shape["thread"] = item.thread
    if item.link:
        shape["link"] = item.link
    shape["by"] = by_shape(item.by_kind, item.by_id)
    return shape


# The log's kinds the spec doesn't list, as the spec's list names them (a model reading the spec expects only those):
# a field changed, a link or the about text is the record's context; an open item made, closed or set to follow up
# is triage; a thread recorded on the record is a note, and taken off, removed. The entry's before/after and text
# keep what exactly changed; the database keeps the finer kind (the record's page words each its own way).
SPEC_LOG_KIND = {
    "updated": "context", "linked": "context", "about": "context",
    "follow_up": "triage", "opened": "triage", "closed": "triage",
    "recorded": "note", "unrecorded": "removed",
}


def log_entry_shape(entry) -> dict:
    kind = SPEC_LOG_KIND.get(entry.kind, entry.kind)
    shape = {"id": str(entry.id), "at": iso(entry.at), "by": by_shape(entry.by_kind, entry.by_id), "kind": kind}
    if entry.text:
        shape["text"] = entry.text
    if entry.before is not None or entry.after is not None:
        shape["before"] = entry.before
        shape["after"] = entry.after
    if entry.why:
        shape["why"] = entry.why
    shape.update(entry.extra or {})
    return shape


def listing_of(company):
    """The public company a company is linked to (research's CompanyListing, made by filings.link, loaded as
    `listing__edgar`), or None. Read through the company's reverse relation, so this layer needn't import research."""
    try:
        return company.listing
    except ObjectDoesNotExist:
        return None


def ticker_of(company) -> str | None:
    """The ticker its filings are under where the company is listed, else the spec's null."""
    listing = listing_of(company)
    return (listing.edgar.ticker or None) if listing is not None else None


def company_ref_shape(link, *, with_context: bool = False) -> dict:
    """CompanyRef of a contact's link to a company (link: a CompanyPerson with its company, its handler and its
    listing loaded).

    `with_context` adds the company's Context, as contacts.find gives it: read it before writing to them.
    """
    company = link.company
    shape = {"context": company.context} if with_context else {}
    return shape | {
        "id": str(company.id),
        "name": company.name,
        "ticker": ticker_of(company),
        "handle": company.handler.name if company.handler_id and company.handler else "",
        "role": link.role,
        "since": link.since.isoformat() if link.since else None,
        "ended": link.ended.isoformat() if link.ended else None,
        "labels": list(company.labels),
    }


def contact_record(contact, *, company_context: bool = False) -> dict:
    """ContactRecord. Needs `emails`, `open_items`, `company_links` (with company, its handler and
    `listing__edgar`), `project_links__project`.

    `company_context`: each company with its Context, as contacts.find returns them.
    """
    return {
        "id": str(contact.id),
        "organizationId": str(contact.organization_id),
        "name": contact.name,
        "emails": [e.email for e in contact.emails.all()],
        "phone": contact.phone,
        "jobTitle": contact.job_title,
        "labels": list(contact.labels),
        "context": contact.context,
        "open": [open_item_shape(i) for i in contact.open_items.all() if i.closed_at is None],
        "last": dict(contact.last),
        "fields": dict(contact.fields),
        "status": contact.status,
        "companies": [
            company_ref_shape(link, with_context=company_context) for link in contact.company_links.all()
        ],
        "projects": [{"id": str(link.project.id), "name": link.project.name} for link in contact.project_links.all()],
        "createdAt": iso(contact.created_at),
        "updatedAt": iso(contact.updated_at),
    }


def contact_read_shape(contact, log) -> dict:
    """contacts.read: the ContactRecord with its newest log entries (`log`, newest first)."""
    return {"log": [log_entry_shape(entry) for entry in log]} | contact_record(contact)


def contact_compact(contact) -> dict:
    """One item of contacts.list. Needs `current_links` (company loaded) and `open_loaded`, as
    `contacts.selectors.contact_list` loads them."""
    first_link = contact.current_links[0] if contact.current_links else None
    first_open = contact.open_loaded[0] if contact.open_loaded else None
    return {
        "id": str(contact.id),
        "name": contact.name,
        "company": first_link.company.name if first_link else None,
        "labels": list(contact.labels),
        "last": dict(contact.last),
        "open": open_item_shape(first_open) if first_open else None,
    }


def local_time_words(value: datetime.datetime, time_zone: str) -> str:
    """A time as the owner reads it, in their time zone: "Fri Nov 13, 2026, 9:00 AM EST"."""
    local = value.astimezone(zone_named(time_zone))
    hour = local.hour % 12 or 12
    return (
        f"{local:%a %b} {local.day}, {local.year}, {hour}:{local:%M} {'AM' if local.hour < 12 else 'PM'} "
        f"{local.tzname()}"
    )
