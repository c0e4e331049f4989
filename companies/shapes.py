"""Companies as the spec's result types (CompanyRecord, CompanyRow, the timeline entry), built from loaded rows.

Each function reads only what `companies.selectors` loaded for it, so shaping a page costs no query per row.
"""

from __future__ import annotations

from companies.selectors import CompanyRow
from contacts.shapes import listing_of, open_item_shape
from core.timefmt import iso

ROW_PEOPLE = 5  # people a CompanyRow names; peopleCount says how many there are


def _date(value) -> str | None:
    return value.isoformat() if value else None


def handler_shape(company) -> str | None:
    # The handler's name: agents hand work to each other by name, and names are unique in a workspace.
    return company.handler.name if company.handler_id and company.handler else None


def timeline_entry_shape(entry) -> dict:
    shape = {
        "id": str(entry.id),
        "kind": entry.kind,
        "title": entry.title,
        "at": iso(entry.at),
        "people": list(entry.people),
        "ours": list(entry.ours),
        "by": dict(entry.by),
        "updatedAt": iso(entry.updated_at),
    }
    if entry.summary:
        shape["summary"] = entry.summary
    if entry.count is not None:
        shape["count"] = entry.count
    if entry.minutes is not None:
        shape["minutes"] = entry.minutes
    if entry.link:
        shape["link"] = entry.link
    if entry.thread:
        shape["thread"] = entry.thread
    if entry.files:
        shape["files"] = list(entry.files)
    if entry.state:
        shape["state"] = entry.state
    return shape


def company_person_shape(link) -> dict:
    """CompanyPerson: a link with its contact loaded, with the contact's `emails` and open `open_items`."""
    contact = link.contact
    return {
        "id": str(contact.id),
        "name": contact.name,
        "emails": [e.email for e in contact.emails.all()],
        "phone": contact.phone,
        "labels": list(contact.labels),
        "open": [open_item_shape(item) for item in contact.open_items.all()],
        "last": dict(contact.last),
        "role": link.role,
        "since": _date(link.since),
        "ended": _date(link.ended),
    }


def listed_shape(company) -> dict | None:
    """The spec's `listed`: the public company whose filings are this company's (filings.link), else null."""
    listing = listing_of(company)
    if listing is None:
        return None
    edgar = listing.edgar
    return {"id": str(edgar.cik), "name": edgar.name, "ticker": edgar.ticker or None}


def company_files(company) -> list[dict]:
    """The spec's CompanyFile list: the files the company's conversations carried (companies.record's files, loaded
    as `file_entries`, newest first), each once; its id is the entry's and the file's place in it."""
    seen: set[str] = set()
    files = []
    for entry in getattr(company, "file_entries", None) or []:
        for n, item in enumerate(entry.files or []):
            if not isinstance(item, dict) or not item.get("name"):
                continue
            same = (item.get("link") or item["name"]).lower()
            if same in seen:
                continue
            seen.add(same)
            files.append({"id": f"{entry.id}:{n}", "name": item["name"], "link": item.get("link") or "",
                          "by": dict(entry.by), "at": iso(entry.at)})
    return files


def company_record(company) -> dict:
    """CompanyRecord, from a company loaded by `company_queryset_for_record`."""
    known = min(t for t in (company.first_at, company.created_at) if t is not None)
    files = company_files(company)
    return {
        "id": str(company.id),
        "name": company.name,
        "website": company.website,
        "domains": list(company.domains),
        "labels": list(company.labels),
        "context": company.context,
        "contextBy": company.context_by,
        "contextAt": iso(company.context_at),
        "details": dict(company.details),
        "about": company.about,
        "handler": handler_shape(company),
        "firstOnMail": company.first_on_mail,
        "alwaysAsk": company.always_ask,
        "listed": listed_shape(company),
        "files": files,
        "open": [open_item_shape(item) for item in company.open_items.all()],
        "people": [company_person_shape(link) for link in company.people.all()],
        # When the business first dealt with them: their earliest conversation, or when they were added if
        # that was earlier (a company added before its first recorded conversation).
        "known": iso(known),
        "last": iso(company.last_at),
        "counts": {
            "timeline": company.timeline_count,
            # Projects and docs reach a company through its people's project links (contacts.link_project).
            "projects": company.project_count,
            "docs": company.doc_count,
            "files": len(files),
        },
        "createdAt": iso(company.created_at),
        "updatedAt": iso(company.updated_at),
    }


def company_read_shape(company, timeline) -> dict:
    """companies.read: the CompanyRecord with its newest timeline entries."""
    return {"timeline": [timeline_entry_shape(e) for e in timeline]} | company_record(company)


def company_row(row: CompanyRow) -> dict:
    """CompanyRow, from a row of `companies.selectors.company_list`."""
    company = row.company
    first = row.open_rows[0] if row.open_rows else None
    open_ = None
    if first is not None:
        item, person = first
        open_ = open_item_shape(item) | {"person": person}
    return {
        "id": str(company.id),
        "name": company.name,
        "website": company.website,
        "domains": list(company.domains),
        "labels": list(company.labels),
        "handler": handler_shape(company),
        "people": [{"id": str(link.contact.id), "name": link.contact.name} for link in row.people[:ROW_PEOPLE]],
        "peopleCount": len(row.people),
        "open": open_,
        "openCount": len(row.open_rows),
        "openKinds": list(dict.fromkeys(item.kind for item, _ in row.open_rows)),
        "last": iso(row.last),
    }


def company_context_shape(company, *, actor) -> dict:
    """companies.context's result; `owned` says whether the calling agent handles the company."""
    return {
        "id": str(company.id),
        "name": company.name,
        "website": company.website,
        "domains": list(company.domains),
        "context": company.context,
        "contextBy": company.context_by,
        "contextAt": iso(company.context_at),
        "owned": actor.kind == "agent" and company.handler_id is not None and str(company.handler_id) == actor.id,
    }
