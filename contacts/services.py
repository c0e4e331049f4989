"""Writes to contacts. Every change to a contact is written on its log, whoever made it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from contacts.selectors import emails_taken
from contacts.shapes import local_time_words
from core import limits, rows
from core.actors import Actor
from core.change_words import field_to, joined, short
from core.errors import ToolError
from core.inputs import Uuid
from core.locking import lock, set_if_unchanged
from core.models import Change
from core.owner_zone import owner_time
from core.services import change_record
from core.timefmt import iso
from core.undo import restore, snapshot, undo_data
from records.models import Company, CompanyPerson, Contact, ContactEmail, LogEntry, OpenItem, ProjectLink

EMAIL_RACE = "One of those addresses was just added to another contact; find it first."


def log_write(*, org, actor: Actor, kind: str, contact=None, company=None, text: str = "", before=None, after=None,
              why: str = "", extra: dict | None = None, change_id: Uuid | None = None) -> LogEntry:
    # (a kept statement: every change to a contact writes one; in a tool's transaction it goes out with the call's
    # result, core.rows.holding_writes)
    return rows.insert(LogEntry(
        organization=org, contact=contact, company=company, by_kind=actor.kind, by_id=actor.id, kind=kind,
        text=text, before=before, after=after, why=why, extra=extra or {}, change_id=change_id,
    ), held=True)


def _clean_emails(emails) -> list[str]:
    seen, cleaned = set(), []
    for email in emails:
        email = email.strip()
        if email and email.lower() not in seen:
            seen.add(email.lower())
            cleaned.append(email)
    return cleaned


def check_fields(fields: dict, where: str = "fields") -> None:
    """Named values a contact keeps (and every prompt that reads the contact carries): a bounded number, short
    names, values of a bounded size."""
    if len(fields) > limits.CONTACT_FIELDS:
        raise ToolError("bad_input", f"{where}: {len(fields)} names; a contact keeps at most {limits.CONTACT_FIELDS}. "
                                     "Nothing was saved.")
    for name, value in fields.items():
        if not name.strip() or len(name) > limits.FIELD_NAME:
            raise ToolError("bad_input", f"{where}: a name must have 1 to {limits.FIELD_NAME} characters")
        size = len(json.dumps(value, ensure_ascii=False))
        if size > limits.FIELD_VALUE:
            raise ToolError("bad_input", f"{where}.{name}: {size:,} characters as JSON; a value holds at most "
                                         f"{limits.FIELD_VALUE:,}. Nothing was saved.")


def _clean_labels(labels) -> list[str]:
    return list(dict.fromkeys(labels))


def _add_emails(*, org, contact: Contact, emails: list[str]) -> None:
    try:
        # A savepoint, so the unique constraint's failure can be told apart from the rest of the work.
        with transaction.atomic():
            ContactEmail.objects.bulk_create(
                [ContactEmail(organization=org, contact=contact, email=e, position=i) for i, e in enumerate(emails)]
            )
    except IntegrityError as exc:
        # Another caller took the address between our look and our write.
        raise ToolError("changed", EMAIL_RACE) from exc


# --- create -----------------------------------------------------------------------------------------------


def contact_create(
    *, org, actor: Actor, name: str, emails: Sequence[str] = (), phone: str | None = None, job_title: str | None = None,
    labels: Sequence[str] = (), company_ids: Sequence[str] = (), fields: dict | None = None,
) -> Contact:
    """Add a contact, linked to the given companies. An address already on a contact raises `ContactExists`."""
    emails = _clean_emails(emails)
    check_fields(dict(fields or {}))
    taken = emails_taken(org=org, emails=emails)
    if taken:
        address, existing = next(iter(taken.items()))
        raise ContactExists(existing, address)
    wanted = list(dict.fromkeys(str(c) for c in company_ids))
    companies = {str(c.id): c for c in Company.objects.filter(organization=org, id__in=wanted)}
    missing = [c for c in wanted if c not in companies]
    if missing:
        raise ToolError("not_found", f"companyIds: no company with id {missing[0]} in this workspace.")
    with transaction.atomic():
        contact = Contact.objects.create(
            organization=org, name=name, phone=phone or None, job_title=job_title or None,
            labels=_clean_labels(labels), fields=dict(fields or {}),
        )
        _add_emails(org=org, contact=contact, emails=emails)
        CompanyPerson.objects.bulk_create(
            [CompanyPerson(organization=org, company=companies[c], contact=contact) for c in wanted]
        )
        log_write(org=org, actor=actor, kind=LogEntry.Kind.CREATED, contact=contact, text=f"Added {name}")
    return contact


class ContactExists(Exception):
    def __init__(self, contact: Contact, email: str):
        super().__init__(email)
        self.contact = contact
        self.email = email


# --- add_many ---------------------------------------------------------------------------------------------


@dataclass
class PersonIn:
    """One valid row of contacts.add_many; `row` is its place in the list the caller gave."""

    row: int
    name: str
    emails: list[str] = field(default_factory=list)
    phone: str | None = None
    job_title: str | None = None
    labels: list[str] = field(default_factory=list)
    company: str | None = None  # a name: the workspace's own company with that name, made if new
    role: str | None = None


@dataclass
class AddManyOutcome:
    added: list[Contact]
    # (row, the contact that holds the address, the address as given)
    existing: list[tuple[int, Contact, str]]
    companies_made: list


def contact_add_many(*, org, actor: Actor, people: list[PersonIn]) -> AddManyOutcome:
    """Add many people at once. An address already on a contact, or on an earlier row, reports that row as
    existing instead of adding it. A company name links the person to the workspace's company of that name,
    whatever its letter case, made when there is none. A fixed number of queries, whatever the count."""
    taken = emails_taken(org=org, emails=[e for person in people for e in person.emails])
    to_add: list[tuple[PersonIn, Contact, list[str]]] = []
    existing: list[tuple[int, Contact, str]] = []
    for person in people:
        emails = _clean_emails(person.emails)
        held = next((e for e in emails if e.lower() in taken), None)
        if held is not None:
            existing.append((person.row, taken[held.lower()], held))
            continue
        contact = Contact(
            organization=org, name=person.name, phone=person.phone or None, job_title=person.job_title or None,
            labels=_clean_labels(person.labels),
        )
        taken.update({e.lower(): contact for e in emails})
        to_add.append((person, contact, emails))
    if not to_add:
        return AddManyOutcome(added=[], existing=existing, companies_made=[])

    with transaction.atomic():
        companies, made = _companies_named(org=org, actor=actor, names=[p.company for p, _, _ in to_add if p.company])
        contacts = Contact.objects.bulk_create([contact for _, contact, _ in to_add])
        try:
            with transaction.atomic():
                ContactEmail.objects.bulk_create([
                    ContactEmail(organization=org, contact=contact, email=e, position=i)
                    for _, contact, emails in to_add
                    for i, e in enumerate(emails)
                ])
        except IntegrityError as exc:
            raise ToolError("changed", EMAIL_RACE) from exc
        CompanyPerson.objects.bulk_create([
            CompanyPerson(
                organization=org, company=companies[_name_key(p.company)], contact=contact, role=p.role or None
            )
            for p, contact, _ in to_add
            if p.company
        ])
        LogEntry.objects.bulk_create([
            LogEntry(
                organization=org, contact=contact, by_kind=actor.kind, by_id=actor.id, kind=LogEntry.Kind.CREATED,
                text=f"Added {contact.name}",
            )
            for contact in contacts
        ])
    return AddManyOutcome(added=contacts, existing=existing, companies_made=made)


def _name_key(name: str) -> str:
    return name.strip().lower()


def _companies_named(*, org, actor: Actor, names: list[str]) -> tuple[dict, list]:
    """The workspace's companies by these names (lower-cased), making the ones it doesn't have."""
    wanted: dict[str, str] = {}  # the name's key -> the name as given
    for name in names:
        wanted.setdefault(_name_key(name), name.strip())
    found: dict = {}
    rows = (
        Company.objects.filter(organization=org)
        .annotate(lowered=Lower("name"))
        .filter(lowered__in=list(wanted))
        .order_by("created_at", "id")
    )
    for company in rows:
        found.setdefault(company.lowered, company)
    made = Company.objects.bulk_create(
        [Company(organization=org, name=name) for key, name in wanted.items() if key not in found]
    )
    LogEntry.objects.bulk_create([
        LogEntry(
            organization=org, company=company, by_kind=actor.kind, by_id=actor.id, kind=LogEntry.Kind.CREATED,
            text=f"Added {company.name}",
        )
        for company in made
    ])
    found.update({_name_key(company.name): company for company in made})
    return found, made


# --- update -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldChange:
    """One value contacts.update would change: `key` as the input names it, `words` as the owner reads it."""

    attr: str  # the Contact attribute: name, emails, phone, job_title, labels, fields
    key: str  # name, emails, phone, jobTitle, labels, fields.<name>
    words: str  # name, emails, phone, job title, labels, <name>
    before: Any
    after: Any


_SCALARS = (("name", "name", "name"), ("phone", "phone", "phone"), ("job_title", "jobTitle", "job title"))
_SCALAR_ATTRS = frozenset(attr for attr, _, _ in _SCALARS)


def contact_changes(contact: Contact, changes: dict) -> list[FieldChange]:
    """What `changes` (the given inputs only, by attribute name) would change. `fields` merges by name; a name
    given null is taken off. Needs the contact's `emails` loaded."""
    found = []
    for attr, key, words in _SCALARS:
        if attr in changes:
            before, after = getattr(contact, attr), changes[attr]
            if attr != "name":
                before, after = before or None, after or None
            if after != before:
                found.append(FieldChange(attr, key, words, before, after))
    if "emails" in changes:
        before, after = [e.email for e in contact.emails.all()], _clean_emails(changes["emails"])
        if after != before:
            found.append(FieldChange("emails", "emails", "emails", before, after))
    if "labels" in changes:
        before, after = list(contact.labels), _clean_labels(changes["labels"])
        if after != before:
            found.append(FieldChange("labels", "labels", "labels", before, after))
    for name, after in (changes.get("fields") or {}).items():
        before = contact.fields.get(name)
        if after != before:
            found.append(FieldChange("fields", f"fields.{name}", name, before, after))
    return found


def contact_update_replaces(contact: Contact, changes: dict) -> dict | None:
    """What the update would overwrite or remove, for the check: values that were there and would change,
    and addresses and labels it would take off. None when it only fills in or adds."""
    replaced: dict = {}
    for change in contact_changes(contact, changes):
        if change.attr in ("emails", "labels"):
            same = str.lower if change.attr == "emails" else str
            kept = {same(v) for v in change.after}
            removed = [v for v in change.before if same(v) not in kept]
            if removed:
                replaced[change.key] = removed
        elif change.before not in (None, ""):
            if change.attr == "fields":
                replaced.setdefault("fields", {})[change.words] = change.before
            else:
                replaced[change.key] = change.before
    if not replaced:
        return None
    return {"name": contact.name} | replaced


def _log_value(value):
    """A value as the log's before/after holds it: text, a list of text, or null."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, ensure_ascii=False)


def contact_update(
    *, org, actor: Actor, contact: Contact, changes: dict, change_id: Uuid | None = None,
) -> list[tuple[FieldChange, LogEntry]]:
    """Change fields and labels, each change on the contact's log with its before and after. Nothing changes
    (and nothing is logged) for values already as given. The contact is read again under its lock first, so
    concurrent updates each merge into what the last one wrote (`fields` merges by name); an update of name, phone
    or job title only is written at once if the row still holds, for each value given, what `contact` read.

    `change_id`: the id of the Change the caller records this update with, in the same transaction after it; the
    first log entry is written pointing to it (the entry that offers Undo on the record)."""
    # Inside a caller's transaction (a tool's, with its recorded result and the change) no savepoint: a failure
    # here fails the caller's whole write, and a savepoint would be two round trips more on PostgreSQL.
    with transaction.atomic(savepoint=False):
        # Name, phone or job title only: one compare-and-set statement, when the row still holds what was read.
        found = _written_if_unchanged(contact, changes)
        if found is None:
            lock(contact)
            found = contact_changes(contact, changes)
            if not found:
                return []
            _write_changes(org=org, contact=contact, changes=changes, found=found)
        else:
            check_fields(dict(contact.fields))  # as the locked path checks what it keeps of them
        logged: list[tuple[FieldChange, LogEntry]] = []
        for change in found:
            entry = log_write(
                org=org, actor=actor, contact=contact,
                kind=LogEntry.Kind.LABELS if change.attr == "labels" else LogEntry.Kind.UPDATED,
                text=f"Changed {change.words}" if change.after is not None else f"Took off {change.words}",
                before=_log_value(change.before), after=_log_value(change.after),
                change_id=change_id if not logged else None,
            )
            logged.append((change, entry))
    return logged


def _write_changes(*, org, contact: Contact, changes: dict, found: list[FieldChange]) -> None:
    """Write `found` into the locked, read-again `contact`."""
    for change in found:
        if change.attr == "emails":
            _refuse_emails_of_others(org=org, contact=contact, emails=change.after)
    update_fields = {"updated_at"}
    fields = dict(contact.fields)
    merged = dict(fields)
    for name, value in (changes.get("fields") or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    check_fields(merged)
    for change in found:
        if change.attr == "emails":
            ContactEmail.objects.filter(contact=contact).delete()
            _add_emails(org=org, contact=contact, emails=change.after)
        elif change.attr == "fields":
            if change.after is None:
                fields.pop(change.words, None)
            else:
                fields[change.words] = change.after
            contact.fields = fields
            update_fields.add("fields")
        else:
            setattr(contact, change.attr, change.after)
            update_fields.add(change.attr)
    contact.save(update_fields=sorted(update_fields))


def _written_if_unchanged(contact: Contact, changes: dict) -> list[FieldChange] | None:
    """An update of name, phone or job title only, written in one statement when the values given are still, in
    the row, what `contact` read (`core.locking.set_if_unchanged`): what it changes, with `contact` read back. None
    when it wasn't written (other values, nothing to change as read, or the row moved on): lock and read again.

    Every value given is compared, not only those that change: one the row holds differently now would be a
    change the locked read finds, so the statement must not match then."""
    if not changes or not set(changes) <= _SCALAR_ATTRS:
        return None
    found = contact_changes(contact, changes)
    if not found:
        return None
    values: dict[str, Any] = {change.attr: change.after for change in found}
    # What save() does for the auto_now field.
    values["updated_at"] = timezone.now()
    if not set_if_unchanged(contact, values=values, unchanged=list(changes)):
        return None
    return found


def _refuse_emails_of_others(*, org, contact: Contact, emails: list[str]) -> None:
    for address, holder in emails_taken(org=org, emails=emails).items():
        if holder.id != contact.id:
            raise ToolError(
                "bad_input",
                f"emails: {address} is already on {holder.name} (contact {holder.id}); an address belongs to one "
                f"contact. Leave it out, or change {holder.name} first.",
            )


# --- context, notes, follow-ups, projects -----------------------------------------------------------------


def contact_set_context(*, org, actor: Actor, contact: Contact, text: str, why: str) -> LogEntry:
    """Set what everyone should know before writing to them, and log why it changed."""
    before = contact.context
    contact.context = text or None
    contact.save(update_fields=["context", "updated_at"])
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.CONTEXT, contact=contact, before=before, after=contact.context,
        why=why,
    )


def contact_note(*, org, actor: Actor, contact: Contact, text: str) -> LogEntry:
    """A dated note on the contact's log."""
    return log_write(org=org, actor=actor, kind=LogEntry.Kind.NOTE, contact=contact, text=text)


def contact_follow_up(
    *, org, actor: Actor, contact: Contact, text: str, at: datetime, thread: str = "",
) -> tuple[OpenItem, LogEntry]:
    """Open a follow-up at `at` that wakes whoever set it; a time without an offset is the owner's local time."""
    at = owner_time(org, at)
    if at <= timezone.now():
        raise ToolError("bad_input", f"at: {iso(at)} is past; a follow-up needs a time still to come.")
    with transaction.atomic():
        item = OpenItem.objects.create(
            organization=org, contact=contact, kind=OpenItem.Kind.FOLLOW_UP, text=text, at=at, thread=thread or "",
            by_kind=actor.kind, by_id=actor.id,
        )
        entry = log_write(
            org=org, actor=actor, kind=LogEntry.Kind.FOLLOW_UP, contact=contact,
            text=f"Follow-up for {local_time_words(at, org.time_zone)}: {text}",
            extra={"thread": thread} if thread else None,
        )
    return item, entry


def contact_link_project(*, org, actor: Actor, contact: Contact, project) -> LogEntry | None:
    """Link the contact to the project; None when they were linked already, and nothing changed."""
    if ProjectLink.objects.filter(project=project, contact=contact).exists():
        return None
    try:
        with transaction.atomic():
            ProjectLink.objects.create(organization=org, project=project, contact=contact)
    except IntegrityError:
        return None  # another caller linked them in between: the same outcome
    return log_write(
        org=org, actor=actor, kind=LogEntry.Kind.LINKED, contact=contact, text=f"Linked to the project {project.name}"
    )


# --- the owner's own edits, from the contact's page -------------------------------------------------------------

OWNER_EDIT = "contacts.owner_edit"  # the Change's tool: its Undo is registered in contacts/hooks.py
OWNER_FIELDS = {"name": ("name", 1, 200), "phone": ("phone", 0, 80), "job_title": ("job title", 0, 200),
                "context": ("Context", 0, 1500)}


def contact_add_by_owner(*, org, actor: Actor, name: str, email: str = "", phone: str = "",
                         job_title: str = "") -> Contact:
    """The owner adds a contact on Contacts: contact_create, and a line on Home's Your work that links to it (the
    same line an agent's contacts.create leaves). An address already on a contact raises ContactExists."""
    values = owner_values({"name": name, "phone": phone, "job_title": job_title})
    with transaction.atomic():
        contact = contact_create(org=org, actor=actor, name=values["name"], emails=[email] if email.strip() else [],
                                 phone=values["phone"] or None, job_title=values["job_title"] or None)
        change_record(org=org, actor=actor, tool="contacts.create", kind="makes",
                      sentence=f"added {contact.name} to Contacts", listing=Change.Listing.HOME,
                      target_type="contact", target_id=str(contact.id), created=True)
    return contact


def contact_edit_by_owner(*, org, actor: Actor, contact_id, values: dict[str, str]) -> Change | None:
    """The owner changes a contact's name, phone, job title or Context on its page: each change on the contact's
    log, and one line on Home's Your work saying the new values, with Undo (which restores what was there, or
    says the contact changed since). None: nothing was different."""
    values = owner_values(values)
    with transaction.atomic():
        contact = Contact.objects.select_for_update().filter(organization=org, id=contact_id).first()
        if contact is None:
            raise ToolError("not_found", f"No contact with id {contact_id} in this workspace.")
        changed = [f for f in OWNER_FIELDS if f in values and (getattr(contact, f) or "") != values[f]]
        if not changed:
            return None
        before = snapshot(contact, changed)
        was_name = contact.name
        for f in changed:
            setattr(contact, f, values[f] or (None if f != "name" else values[f]))
        contact.save(update_fields=[*changed, "updated_at"])
        after = snapshot(contact, changed)
        change_id = uuid.uuid4()
        for f in changed:
            log_write(org=org, actor=actor, kind=LogEntry.Kind.CONTEXT if f == "context" else LogEntry.Kind.UPDATED,
                      contact=contact, before=before[f], after=after[f], text=f"Changed {OWNER_FIELDS[f][0]}",
                      change_id=change_id)
        return change_record(
            org=org, actor=actor, tool=OWNER_EDIT, kind="changes", listing=Change.Listing.HOME_UNDO,
            sentence=_edit_sentence(was_name, changed, after)[:500], target_type="contact",
            target_id=str(contact.id), undo={"before": before, "after": after}, change_id=change_id,
        )


def owner_values(values: dict[str, str], fields: dict[str, tuple[str, int, int]] | None = None) -> dict[str, str]:
    """The owner's typed values, spaces tidied (a Context keeps its lines), each checked against its field's
    (words, fewest, most) characters; a value that doesn't fit is a ToolError naming the field in the owner's words.
    Companies' owner edits check theirs here too."""
    fields = OWNER_FIELDS if fields is None else fields
    clean = {}
    for f, value in values.items():
        words, least, most = fields[f]
        text = (value or "").strip() if f == "context" else " ".join((value or "").split())
        if len(text) < least:
            raise ToolError("bad_input", f"{words[0].upper() + words[1:]}: give at least {least} character.")
        if len(text) > most:
            raise ToolError("bad_input", f"{words[0].upper() + words[1:]}: at most {most} characters "
                                         f"(it has {len(text)}).")
        clean[f] = text
    return clean


def _edit_sentence(name: str, changed: list[str], after: dict) -> str:
    """"changed Dana Whitfield's phone to 555-0101 and job title to Office manager": the new values, not only
    that something changed."""
    parts = []
    for f in changed:
        new = after[f]
        if f == "context":
            parts.append("Context" + (f" to “{short(new)}”" if new else " (cleared)"))
        else:
            parts.append(field_to(OWNER_FIELDS[f][0], new))
    return f"changed {name}'s {joined(parts)}"


def undo_owner_edit(*, org, actor, change) -> None:
    contact = Contact.objects.filter(organization=org, id=change.target_id).first()
    if contact is None:
        raise ToolError("not_found", "That contact is no longer in Contacts; nothing was restored.")
    data = undo_data(change)
    restore(contact, before=data["before"], after=data["after"], what=f"{contact.name}'s record")
    log_write(org=org, actor=actor, kind=LogEntry.Kind.RESTORED, contact=contact, text="Undid your change",
              before=data["after"], after=data["before"])

