"""Contacts as the spec's result types (ContactRecord, the log entry, the open item), built from loaded rows.

Each function takes rows that were loaded with what it reads (see `contacts.selectors`), so building a page
of contacts costs no query per contact.
"""

from __future__ import annotations

from roadstar.timefmt import iso


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


def log_entry_shape(entry) -> dict:
    shape = {"id": str(entry.id), "at": iso(entry.at), "by": by_shape(entry.by_kind, entry.by_id), "kind": entry.kind}
    if entry.text:
        shape["text"] = entry.text
    if entry.before is not None or entry.after is not None:
        shape["before"] = entry.before
        shape["after"] = entry.after
    if entry.why:
        shape["why"] = entry.why
    shape.update(entry.extra or {})
    return shape


def company_ref_shape(link) -> dict:
    """CompanyRef of a contact's link to a company (link: a CompanyPerson with its company loaded)."""
    company = link.company
    return {
        "id": str(company.id),
        "name": company.name,
        "ticker": None,
        "handle": company.handler.name if company.handler_id and company.handler else "",
        "role": link.role,
        "since": link.since.isoformat() if link.since else None,
        "ended": link.ended.isoformat() if link.ended else None,
        "labels": list(company.labels),
    }


def contact_record(contact) -> dict:
    """ContactRecord. Needs `emails`, `open_items`, `company_links__company__handler`, `project_links__project`."""
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
        "companies": [company_ref_shape(link) for link in contact.company_links.all()],
        "projects": [{"id": str(link.project.id), "name": link.project.name} for link in contact.project_links.all()],
        "createdAt": iso(contact.created_at),
        "updatedAt": iso(contact.updated_at),
    }
