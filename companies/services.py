"""Writes to companies. Every change to a company is written on its own log (records.models.LogEntry, which
serves contacts and companies), whoever made it: that is where a change that isn't listed on Home shows.
"""

from __future__ import annotations

import datetime
import re
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from companies import selectors
from contacts.services import log_write, owner_values
from core import limits
from core.actors import Actor
from core.change_words import field_to, joined, short
from core.errors import ToolError, bad_input
from core.locking import lock
from core.models import Change
from core.owner_zone import owner_time
from core.services import change_record
from core.timefmt import iso
from core.undo import restore, snapshot, undo_data
from records.models import Company, CompanyPerson, Contact, LogEntry, OpenItem, TimelineEntry
from team.models import Agent


class _Unset:
    def __repr__(self):
        return "UNSET"


# An input that wasn't given, where None means "clear it".
UNSET = _Unset()


class CompanyExists(Exception):
    """The workspace holds this company already: `what` says what matched ("the name Juniper Dental")."""

    def __init__(self, company: Company, what: str):
        super().__init__(what)
        self.company = company
        self.what = what


def _unique(values, key=lambda v: v) -> list:
    seen, kept = set(), []
    for value in values:
        value = value.strip()
        if value and key(value) not in seen:
            seen.add(key(value))
            kept.append(value)
    return kept


def _clean_domains(domains) -> list[str]:
    return _unique(d.lower() for d in domains)


def _clean_labels(labels) -> list[str]:
    return _unique(labels, key=str.lower)


def _owner(org) -> dict:
    return {"kind": "user", "id": str(org.owner_id)}


# --- create and update ------------------------------------------------------------------------------------


def company_create(
    *, org, actor: Actor, name: str, website: str | None = None, domains=(), labels=(), handler: str | None = None,
    people=(),
) -> Company:
    """Add a company with its people (`[(contact_id, role)]`); `handler` is an agent's id or name.

    Raises CompanyExists, making nothing, when a company of the same name (any letter case) or one of the
    domains is there already.
    """
    name = name.strip()
    if not name:
        raise bad_input("name", "must not be blank")
    domains = _clean_domains(domains)
    existing = selectors.company_duplicate(org=org, name=name, domains=domains)
    if existing is not None:
        raise CompanyExists(*existing)
    agent = selectors.agent_by_ref(org=org, ref=handler, field="handler") if handler else None
    roles: dict = {}
    for contact_id, role in people:
        roles[selectors.as_uuid(contact_id)] = role
    contacts = {c.id: c for c in Contact.objects.filter(organization=org, id__in=list(roles))}
    for i, (contact_id, _) in enumerate(people):
        if selectors.as_uuid(contact_id) not in contacts:
            raise ToolError("not_found", f"people[{i}].contactId: no contact with id {contact_id} in this workspace.")
    with transaction.atomic():
        company = Company.objects.create(
            organization=org, name=name, website=website, domains=domains, labels=_clean_labels(labels),
            handler=agent,
        )
        CompanyPerson.objects.bulk_create(
            [
                CompanyPerson(organization=org, company=company, contact=contacts[contact_id], role=role)
                for contact_id, role in roles.items()
            ]
        )
        log_write(org=org, actor=actor, kind=LogEntry.Kind.CREATED, company=company, text=f"Added {name}")
    return company


def _update_diff(
    *, org, company: Company, name, domains, labels, handler, details,
) -> tuple[dict[str, Any], dict[str, Any], Agent | None | _Unset]:
    """(before, after) of each field an update would change, details by the keys that change; and the handler
    agent it names (None to clear, UNSET when not given)."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    agent: Agent | None | _Unset = UNSET

    def change(field: str, old, new):
        if old != new:
            before[field], after[field] = old, new

    if name is not UNSET:
        if not name.strip():
            raise bad_input("name", "must not be blank")
        change("name", company.name, name.strip())
    if domains is not UNSET:
        change("domains", company.domains, _clean_domains(domains))
    if labels is not UNSET:
        change("labels", company.labels, _clean_labels(labels))
    if handler is not UNSET:
        agent = selectors.agent_by_ref(org=org, ref=handler, field="handler") if handler is not None else None
        change("handler", company.handler.name if company.handler else None, agent.name if agent else None)
    merged = {**company.details, **(details or {})}
    merged = {key: value for key, value in merged.items() if value is not None}
    if len(merged) > limits.CONTACT_FIELDS:
        raise bad_input("details", f"{len(merged)} named facts; a company keeps at most {limits.CONTACT_FIELDS}")
    for key, value in (details or {}).items():
        if not key.strip() or len(key) > limits.FIELD_NAME:
            raise bad_input("details", f"a name must have 1 to {limits.FIELD_NAME} characters")
        if value is not None and len(value) > limits.DETAIL_VALUE:
            raise bad_input(
                f"details.{key}", f"{len(value):,} characters; a detail holds at most {limits.DETAIL_VALUE:,}"
            )
    changed = {
        key: value for key, value in (details or {}).items()
        if company.details.get(key) != value and (value is not None or key in company.details)
    }
    if changed:
        before["details"] = {key: company.details.get(key) for key in changed}
        after["details"] = changed
    return before, after, agent


def company_update(
    *, org, actor: Actor, company: Company, why: str, name=UNSET, domains=UNSET, labels=UNSET, handler=UNSET,
    details: dict | None = None,
) -> LogEntry | None:
    """Change the fields given; `details` merges, a None value clearing its key; `handler` None clears it.
    The company is read again under its lock first, so concurrent updates each merge into what the last one wrote.

    Returns the log entry (before and after of what changed), or None when nothing changed.
    """
    with transaction.atomic():
        lock(company)
        before, after, agent = _update_diff(
            org=org, company=company, name=name, domains=domains, labels=labels, handler=handler, details=details
        )
        if not after:
            return None
        for field in ("name", "domains", "labels"):
            if field in after:
                setattr(company, field, after[field])
        if "handler" in after and not isinstance(agent, _Unset):  # a handler change names its agent, or None
            company.handler = agent
        if "details" in after:
            details_now = dict(company.details) | after["details"]
            company.details = {key: value for key, value in details_now.items() if value is not None}
        company.save()
        return log_write(
            org=org, actor=actor, kind=LogEntry.Kind.UPDATED, company=company, text=f"Changed {joined(list(after))}",
            before=before, after=after, why=why,
        )


def company_update_replaces(
    *, org, company: Company, name=UNSET, domains=UNSET, labels=UNSET, handler=UNSET, details: dict | None = None,
) -> dict | None:
    """What an update would overwrite or remove, for the check, under the company's name: the name itself,
    list items it would drop, the handler, details' values. None when it only adds (a first handler, a new
    detail, more labels)."""
    before, after, _ = _update_diff(
        org=org, company=company, name=name, domains=domains, labels=labels, handler=handler, details=details
    )
    replaced: dict[str, Any] = {}
    for field in ("domains", "labels"):
        if field in before:
            kept = {value.lower() for value in after[field]}
            dropped = [value for value in before[field] if value.lower() not in kept]
            if dropped:
                replaced[field] = dropped
    if before.get("handler"):
        replaced["handler"] = before["handler"]
    overwritten = {key: value for key, value in before.get("details", {}).items() if value is not None}
    if overwritten:
        replaced["details"] = overwritten
    if not replaced and "name" not in before:
        return None
    # `name` is what the company is called now, which a rename overwrites too.
    return {"name": company.name} | replaced


# --- about and context ------------------------------------------------------------------------------------


_CITATION = re.compile(r"\[(\d+)\]")


def company_set_about(*, org, actor: Actor, company: Company, text: str, facts: list[dict], lately: list[dict],
                      sources: list[dict]) -> LogEntry:
    """Replace the About. Each `[n]` in the text and each `lately[i].source` must be one of the sources."""
    for cited in _CITATION.findall(text):
        if not 1 <= int(cited) <= len(sources):
            raise bad_input("text", f"cites [{cited}], but there are {len(sources)} sources")
    for i, item in enumerate(lately):
        source = item.get("source")
        if source is not None and not 1 <= source <= len(sources):
            raise bad_input(f"lately[{i}].source", f"must be a source's number, 1 to {len(sources)}")
    before = company.about
    company.about = {
        "text": text,
        "facts": facts,
        "lately": lately,
        "sources": sources,
        "by": actor.by(),
        "at": iso(timezone.now()),
    }
    company.save(update_fields=["about", "updated_at"])
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.ABOUT, company=company, text="Replaced the About",
        before=before, after=company.about,
    )


def company_set_context(*, org, actor: Actor, company: Company, text: str, why: str) -> LogEntry:
    """Set what everyone should know about working with them (empty text clears it), and log why."""
    before = company.context
    company.context = text or None
    company.context_by = actor.by()
    company.context_at = timezone.now()
    company.save(update_fields=["context", "context_by", "context_at", "updated_at"])
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.CONTEXT, company=company, before=before, after=company.context,
        why=why,
    )


# --- the timeline -----------------------------------------------------------------------------------------


def _merged(old: list[dict], new: list[dict]) -> list[dict]:
    return old + [item for item in new if item not in old]


def timeline_entry_record(
    *, org, actor: Actor, company: Company, kind: str, title: str, at: datetime.datetime, entry_id: str | None = None,
    summary=UNSET, people=UNSET, ours=UNSET, count=UNSET, minutes=UNSET, link=UNSET, thread=UNSET, files=UNSET,
    state=UNSET,
) -> tuple[TimelineEntry, bool, LogEntry | None]:
    """Add a conversation, or update its entry: the one with `entry_id`, else the one of the same thread, else
    of the same link. Returns (entry, updated, log entry or None when nothing changed).

    `people` are contact ids or addresses; `ours` agent ids or names, none meaning the owner. On an update the
    inputs given replace the entry's, and those left out stay. Matched by thread or link, the conversation
    went on, so its people and ours gather: who is given joins who was there (ours left out: the owner wrote).
    Matched by entryId, it is a fix: people and ours given replace the entry's.
    """
    resolved_people = selectors.people_by_ref(org=org, refs=people) if people is not UNSET else UNSET
    if ours is not UNSET and ours:
        resolved_ours = [{"kind": "agent", "id": str(a.id)} for a in selectors.agents_by_ref(org=org, refs=ours,
                                                                                            field="ours")]
    else:
        resolved_ours = [_owner(org)]
    values = {
        "kind": kind, "title": title, "at": owner_time(org, at).replace(microsecond=0), "summary": summary,
        "count": count, "minutes": minutes, "link": link, "thread": thread, "files": files, "state": state,
    }
    values = {k: v for k, v in values.items() if v is not UNSET}
    for text_field in ("summary", "link", "thread"):
        if values.get(text_field, "") is None:
            values[text_field] = ""

    # The company's lock makes recording the same thread twice at once one entry, its people gathered from both.
    with transaction.atomic():
        lock(company)
        entry: TimelineEntry | None
        if entry_id:
            entry = selectors.timeline_entry_get(org=org, company=company, entry_id=entry_id)
            if resolved_people is not UNSET:
                values["people"] = resolved_people
            if ours is not UNSET:
                values["ours"] = resolved_ours
        else:
            entry = selectors.timeline_entry_matching(
                company=company, thread=values.get("thread"), link=values.get("link")
            )
            if entry is not None:
                if resolved_people is not UNSET:
                    values["people"] = _merged(entry.people, resolved_people)
                values["ours"] = _merged(entry.ours, resolved_ours)

        if entry is None:
            entry = TimelineEntry.objects.create(
                organization=org, company=company, by=actor.by(),
                people=[] if resolved_people is UNSET else resolved_people, ours=resolved_ours, **values,
            )
            log = log_write(
                org=org, actor=actor, kind=LogEntry.Kind.RECORDED, company=company,
                text=f"Recorded {kind}: {title}", extra={"entryId": str(entry.id)},
            )
            return entry, False, log

        before, after = {}, {}
        for field, value in values.items():
            if getattr(entry, field) != value:
                before[field], after[field] = getattr(entry, field), value
                setattr(entry, field, value)
        if not after:
            return entry, True, None
        entry.save()
        return entry, True, log_write(
            org=org, actor=actor, kind=LogEntry.Kind.RECORDED, company=company,
            text=f"Updated {entry.kind}: {entry.title}", before=_jsonable(before), after=_jsonable(after),
            extra={"entryId": str(entry.id)},
        )


def _jsonable(values: dict) -> dict:
    """Field values as a log entry keeps them: times as the tools give them, dates as YYYY-MM-DD."""
    return {
        key: iso(value) if isinstance(value, datetime.datetime)
        else value.isoformat() if isinstance(value, datetime.date) else value
        for key, value in values.items()
    }


# What an entry's Undo compares: taking it off sets only `removed_at`, so an edit since moves `updated_at`.
_UNRECORD_FIELDS = ["removed_at", "updated_at"]


def timeline_entry_unrecord(
    *, org, actor: Actor, company: Company, entry_id: str
) -> tuple[TimelineEntry, LogEntry, dict]:
    """Take an entry off the timeline. The row stays (`removed_at`), so Undo can put it back as it was.

    Returns (entry, log entry, what Undo needs).
    """
    entry = selectors.timeline_entry_get(org=org, company=company, entry_id=entry_id)
    before = snapshot(entry, ["removed_at"])
    entry.removed_at = timezone.now()
    entry.save(update_fields=["removed_at"])  # not `updated_at`: the entry itself is as it was
    log = log_write(
        org=org, actor=actor, kind=LogEntry.Kind.UNRECORDED, company=company,
        text=f"Took {entry.kind} off the timeline: {entry.title}", extra={"entryId": str(entry.id)},
    )
    return entry, log, {"entryId": str(entry.id), "before": before, "after": snapshot(entry, _UNRECORD_FIELDS)}


def timeline_entry_restore(*, org, actor: Actor, undo: dict) -> TimelineEntry:
    """Undo of unrecord: put the entry back, unless it changed since or its conversation was recorded again."""
    entry = TimelineEntry.objects.filter(organization=org, id=undo["entryId"]).select_related("company").first()
    if entry is None:
        raise ToolError("not_found", "That timeline entry is gone, with its company; nothing was restored.")
    again = selectors.timeline_entry_matching(company=entry.company, thread=entry.thread, link=entry.link)
    if again is not None:
        raise ToolError(
            "changed",
            f"{entry.title} was recorded again since, so putting the old entry back would show it twice; "
            "nothing was restored.",
        )
    restore(entry, before=undo["before"], after=undo["after"], what=f"The timeline entry {entry.title}")
    log_write(
        org=org, actor=actor, kind=LogEntry.Kind.RESTORED, company=entry.company,
        text=f"Put {entry.kind} back on the timeline: {entry.title}", extra={"entryId": str(entry.id)},
    )
    return entry


# --- open items and people --------------------------------------------------------------------------------


@dataclass
class OpenOutcome:
    closed: OpenItem | None
    opened: OpenItem | None
    log: list[LogEntry]  # the closing entry first


def company_open(
    *, org, actor: Actor, company: Company, add: dict | None = None, done: str | None = None, thread: str = "",
) -> OpenOutcome:
    """Close the open item `done` and/or open `add` ({kind, text, at}); a follow-up needs the time it wakes
    whoever set it. A time without an offset is in the owner's time zone."""
    if add is None and done is None:
        raise bad_input("add", "give add, done, or both")
    if add is not None and add["kind"] == OpenItem.Kind.FOLLOW_UP and add.get("at") is None:
        raise bad_input("add.at", "a follow_up needs the time it wakes you")
    outcome = OpenOutcome(closed=None, opened=None, log=[])
    if done is not None:
        item = selectors.open_item_get(org=org, company=company, item_id=done)
        item.closed_at = timezone.now()
        item.save(update_fields=["closed_at"])
        outcome.closed = item
        outcome.log.append(log_write(
            org=org, actor=actor, kind=LogEntry.Kind.CLOSED, company=company, text=f"Closed: {item.text}",
            extra={"itemId": str(item.id)},
        ))
    if add is not None:
        at = add.get("at")
        item = OpenItem.objects.create(
            organization=org, company=company, kind=add["kind"], text=add["text"],
            at=owner_time(org, at) if at is not None else timezone.now(), thread=thread[:64],
            by_kind=actor.kind, by_id=actor.id,
        )
        outcome.opened = item
        if item.kind == OpenItem.Kind.FOLLOW_UP:
            kind, text = LogEntry.Kind.FOLLOW_UP, f"Follow-up at {iso(item.at)}: {item.text}"
        else:
            kind, text = LogEntry.Kind.OPENED, f"{'We owe them' if item.kind == 'you' else 'They owe us'}: {item.text}"
        outcome.log.append(log_write(
            org=org, actor=actor, kind=kind, company=company, text=text, extra={"itemId": str(item.id)},
        ))
    return outcome


def company_person_link(
    *, org, actor: Actor, company: Company, contact: Contact, role=UNSET, since=UNSET, ended=UNSET,
) -> LogEntry | None:
    """Link a contact to the company, or change the link's role, since and ended; those left out stay.

    Returns the company's log entry, or None when the link was there already as given.
    """
    existing = selectors.company_person_get(company=company, contact=contact)
    made = existing is None
    link = existing if existing is not None else CompanyPerson(organization=org, company=company, contact=contact)
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for field, value in (("role", role), ("since", since), ("ended", ended)):
        if value is not UNSET and getattr(link, field) != value:
            before[field], after[field] = getattr(link, field), value
            setattr(link, field, value)
    if link.since and link.ended and link.ended < link.since:
        raise bad_input("ended", f"{link.ended.isoformat()} is before since, {link.since.isoformat()}")
    if not made and not after:
        return None
    link.save()
    as_role = f" as {link.role}" if link.role else ""
    text = f"Linked {contact.name}{as_role}" if made else f"Changed {contact.name}'s link: {joined(list(after))}"
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.LINKED, company=company, text=text,
        before=None if made else _jsonable(before), after=_jsonable(after), extra={"contactId": str(contact.id)},
    )


# --- the owner's own edits, from Companies and a company's page -------------------------------------------------

OWNER_EDIT = "companies.owner_edit"  # the Change's tool: its Undo is registered below
# field: (the owner's word for it, fewest characters, most)
OWNER_FIELDS = {"name": ("name", 1, 200), "website": ("website", 0, 300), "domains": ("email domains", 0, 500),
                "context": ("Context", 0, 1500)}


def company_add_by_owner(*, org, actor: Actor, name: str, website: str = "", domains: str = "") -> Company:
    """The owner adds a company on Companies: company_create, and a line on Home's Your work that links to it (the
    line an agent's companies.create leaves). A name or domain the workspace holds already raises CompanyExists."""
    values = owner_values({"name": name, "website": website, "domains": domains}, OWNER_FIELDS)
    with transaction.atomic():
        company = company_create(org=org, actor=actor, name=values["name"], website=values["website"] or None,
                                 domains=_domain_list(values["domains"]))
        change_record(org=org, actor=actor, tool="companies.create", kind="makes",
                      sentence=f"added {company.name} to Companies", listing=Change.Listing.HOME,
                      target_type="company", target_id=str(company.id), created=True)
    return company


def company_edit_by_owner(*, org, actor: Actor, company_id, values: dict[str, str]) -> Change | None:
    """The owner changes a company's name, website, email domains or Context on its page: on the company's log,
    and one line on Home's Your work saying the new values, with Undo. None: nothing was different."""
    clean: dict[str, Any] = owner_values(values, OWNER_FIELDS)
    if "domains" in clean:
        clean["domains"] = _domain_list(clean["domains"])
    with transaction.atomic():
        wanted = selectors.as_uuid(company_id)
        company = Company.objects.select_for_update().filter(organization=org, id=wanted).first() if wanted else None
        if company is None:
            raise ToolError("not_found", f"No company with id {company_id} in this workspace.")
        taken = selectors.company_duplicate(org=org, name=clean.get("name", company.name),
                                            domains=clean.get("domains", []), other_than=company)
        if taken is not None:
            other, what = taken
            if what.startswith("the name"):
                raise ToolError("bad_input", f"Name: {other.name} is already in Companies.")
            domain = what.removeprefix("the domain ")
            raise ToolError("bad_input", f"Email domains: {domain} is {other.name}'s already.")
        changed = [f for f in OWNER_FIELDS if f in clean and _as_stored(company, f) != clean[f]]
        if not changed:
            return None
        kept = [*changed, "context_by", "context_at"] if "context" in changed else changed  # who wrote Context
        before = snapshot(company, kept)
        was_name = company.name
        for f in changed:
            setattr(company, f, clean[f] if clean[f] or f in ("name", "domains") else None)
        if "context" in changed:
            company.context_by, company.context_at = (_owner(org), timezone.now()) if company.context else (None, None)
        company.save(update_fields=[*kept, "updated_at"])
        after = snapshot(company, kept)
        change_id = uuid.uuid4()
        log_write(org=org, actor=actor, kind=LogEntry.Kind.UPDATED, company=company, before=before, after=after,
                  text=f"Changed {joined([OWNER_FIELDS[f][0] for f in changed])}", change_id=change_id)
        return change_record(
            org=org, actor=actor, tool=OWNER_EDIT, kind="changes", listing=Change.Listing.HOME_UNDO,
            sentence=_edit_sentence(was_name, changed, after), target_type="company", target_id=str(company.id),
            undo={"before": before, "after": after}, change_id=change_id,
        )


def _as_stored(company: Company, field: str):
    value = getattr(company, field)
    return value if field == "domains" else (value or "")


def _domain_list(text: str) -> list[str]:
    return _clean_domains(part.strip().lstrip("@") for part in re.split(r"[,\s]+", text) if part.strip())


def _edit_sentence(name: str, changed: list[str], after: dict) -> str:
    """"changed Juniper Dental's website to juniperdental.com": the new values, not only that something changed."""
    parts = []
    for f in changed:
        new = ", ".join(after[f]) if f == "domains" else after[f]
        if f == "context":
            parts.append("Context" + (f" to “{short(new)}”" if new else " (cleared)"))
        else:
            parts.append(field_to(OWNER_FIELDS[f][0], new))
    return f"changed {name}'s {joined(parts)}"[:500]


def undo_owner_edit(*, org, actor, change) -> None:
    company = Company.objects.filter(organization=org, id=change.target_id).first()
    if company is None:
        raise ToolError("not_found", "That company is no longer in Companies; nothing was restored.")
    data = undo_data(change)
    restore(company, before=data["before"], after=data["after"], what=f"{company.name}'s record")
    log_write(org=org, actor=actor, kind=LogEntry.Kind.RESTORED, company=company, text="Undid your change",
              before=data["after"], after=data["before"])

