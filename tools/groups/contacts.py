"""The contacts group: the people the business deals with. Thin declarations over contacts' services."""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from pydantic import BeforeValidator, Field, PrivateAttr, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema

from contacts import selectors, services
from contacts.shapes import contact_compact, contact_read_shape, contact_record, local_time_words, log_entry_shape
from core.actors import Actor
from core.change_words import fields_to
from core.errors import ToolError
from core.inputs import (
    MAX_DAYS,
    Chars,
    CompanyId,
    ContactId,
    IsoDateTime,
    Offset,
    ProjectId,
    Uuid,
    Whole,
    describe_validation_error,
)
from core.models import Change, Organization
from core.undo import restore, snapshot, undo_data
from docs.selectors import project_get
from records.models import Contact, LogEntry
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="contacts",
        summary="the people the business deals with",
        how_to=(
            "The people the business deals with, shared by all the owner's agents. Add and update the ones your "
            "work touches on your own judgement: no yes is needed, and every change can be undone. Use add_many for "
            "several at once; to fill Contacts from mail, search mail the owner sent (dir sent, bulk false): its "
            "counts.people says who they write to most; read their latest messages for names, roles and phones, "
            "then save them. Read someone's Context with find before you write to them. The businesses they work "
            "at are in companies."
        ),
    )
)


def _record(ctx: ToolContext, contact_id: Uuid | str) -> dict[str, Any]:
    return contact_record(selectors.contact_get(org=ctx.org, contact_id=contact_id))


def _and_join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


# --- list -------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    label: Annotated[str, Chars(1, 40)] | None = None
    company: Annotated[str, Chars(1, 200)] | None = None
    query: Annotated[str, Chars(0, 200)] | None = None
    open: Literal["you", "them", "follow_up"] | None = None
    quiet_days: Annotated[int, Whole(0, MAX_DAYS)] | None = None
    offset: Offset = 0


def list_(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    contacts, total = selectors.contact_list(
        org=ctx.org, label=inp.label, company=inp.company, query=inp.query, open_kind=inp.open,
        quiet_days=inp.quiet_days, offset=inp.offset,
    )
    end = inp.offset + len(contacts)
    return {
        "items": [contact_compact(c) for c in contacts],
        "nextOffset": end if end < total else None,
        "total": total,
    }


register(
    Tool(
        name="contacts.list",
        description="Compact contacts; company is a name or id",
        input=ListInput,
        run=list_,
        kind="reads",
    )
)


# --- find -------------------------------------------------------------------------------------------------


class FindInput(ToolInput):
    email: str


def find(ctx: ToolContext, inp: FindInput) -> dict[str, Any] | None:
    contact = selectors.contact_by_email(org=ctx.org, email=inp.email)
    return contact_record(contact, company_context=True) if contact is not None else None


register(
    Tool(
        name="contacts.find",
        description="The contact with that address, their Context, company Context and open items, or null",
        input=FindInput,
        run=find,
        kind="reads",
        nullable=True,
    )
)


# --- read -------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    contact_id: ContactId


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    contact = selectors.contact_get(org=ctx.org, contact_id=inp.contact_id)
    return contact_read_shape(contact, selectors.contact_log(contact=contact))


register(
    Tool(
        name="contacts.read",
        description="Fields, Context, open items, newest 20 log entries, companies and projects",
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# --- timeline ---------------------------------------------------------------------------------------------


class TimelineInput(ToolInput):
    contact_id: ContactId
    limit: Annotated[int, Whole(1, 100)] = 20


def timeline(ctx: ToolContext, inp: TimelineInput) -> dict[str, Any]:
    contact = selectors.contact_get(org=ctx.org, contact_id=inp.contact_id)
    return selectors.contact_timeline(org=ctx.org, actor=ctx.actor, contact=contact, limit=inp.limit)


register(
    Tool(
        name="contacts.timeline",
        description="Live mail threads and meetings this agent may read",
        input=TimelineInput,
        run=timeline,
        kind="reads",
        calls_apps=True,  # it reads the mail and calendar apps live
    )
)


# --- create -----------------------------------------------------------------------------------------------


class CreateInput(ToolInput):
    name: Annotated[str, Chars(1, 200)]
    emails: list[Annotated[str, Chars(0, 254)]] = []
    phone: Annotated[str, Chars(0, 80)] | None = None
    job_title: Annotated[str, Chars(0, 200)] | None = None
    labels: list[Annotated[str, Chars(1, 40)]] = []
    company_ids: list[CompanyId] = []
    fields: dict[str, Any] = {}


def create(ctx: ToolContext, inp: CreateInput) -> dict[str, Any] | Done:
    try:
        contact = services.contact_create(
            org=ctx.org, actor=ctx.actor, name=inp.name, emails=inp.emails, phone=inp.phone,
            job_title=inp.job_title, labels=inp.labels, company_ids=inp.company_ids, fields=inp.fields,
        )
    except services.ContactExists as exists:
        return {
            "id": str(exists.contact.id),
            "message": f"{exists.email} is already on {exists.contact.name}; nothing was added. Read or update them.",
        }
    return Done(
        result=_record(ctx, contact.id),
        sentence=f"added {contact.name} to Contacts",
        target_type="contact",
        target_id=str(contact.id),
        created=True,
    )


register(
    Tool(
        name="contacts.create",
        description="Add a contact",
        input=CreateInput,
        run=create,
        kind="makes",
        your_work="home",
    )
)


# --- add_many ---------------------------------------------------------------------------------------------


class PersonRow(ToolInput):
    """One person of add_many's `people`: each row is checked on its own, and a bad row doesn't stop the rest."""

    name: Annotated[str, Chars(1, 200)]
    email: Annotated[str, Chars(0, 254)] | None = None
    emails: list[Annotated[str, Chars(0, 254)]] = []
    phone: Annotated[str, Chars(0, 80)] | None = None
    job_title: Annotated[str, Chars(0, 200)] | None = None
    labels: list[Annotated[str, Chars(1, 40)]] = []
    company: Annotated[str, Chars(1, 200)] | None = None
    role: Annotated[str, Chars(0, 200)] | None = None


class AddManyInput(ToolInput):
    people: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=200)]


def _person(row: int, raw: dict[str, Any]) -> services.PersonIn | str:
    """The row as the service takes it, or what is wrong with it, naming the field."""
    try:
        person = PersonRow.model_validate(raw)
    except ValidationError as error:
        return describe_validation_error(error, SimpleNamespace(name=f"people[{row}]", input=PersonRow))
    if person.role and not person.company:
        return "role: a role is a role at a company; give company too, or put it in jobTitle"
    return services.PersonIn(
        row=row, name=person.name, emails=([person.email] if person.email else []) + person.emails,
        phone=person.phone, job_title=person.job_title, labels=person.labels, company=person.company, role=person.role,
    )


def add_many(ctx: ToolContext, inp: AddManyInput) -> dict[str, Any] | Done:
    people, invalid = [], []
    for row, raw in enumerate(inp.people):
        person = _person(row, raw)
        if isinstance(person, str):
            name = raw.get("name")
            invalid.append({"row": row, "name": name if isinstance(name, str) else None, "error": person})
        else:
            people.append(person)
    outcome = services.contact_add_many(org=ctx.org, actor=ctx.actor, people=people)
    result = {
        "added": [{"id": str(c.id), "name": c.name} for c in outcome.added],
        "existing": [{"id": str(c.id), "name": c.name, "email": email} for _, c, email in outcome.existing],
        "invalid": invalid,
    }
    if not outcome.added:
        return result
    one = outcome.added[0] if len(outcome.added) == 1 else None
    sentence = f"added {one.name if one else f'{len(outcome.added)} people'} to Contacts"
    if outcome.companies_made:
        made = [c.name for c in outcome.companies_made]
        sentence += f", and {_and_join(made) if len(made) <= 3 else f'{len(made)} companies'} to Companies"
    return Done(
        result=result,
        sentence=sentence,
        target_type="contact" if one else "",
        target_id=str(one.id) if one else "",
        created=one is not None,
    )


register(
    Tool(
        name="contacts.add_many",
        description=(
            "Add up to 200 people at once; company is a name (the workspace's own, made if new). Addresses already "
            "on a contact are reported, not added twice"
        ),
        input=AddManyInput,
        run=add_many,
        kind="makes",
        your_work="home",
    )
)


# --- update -----------------------------------------------------------------------------------------------


class UpdateInput(ToolInput):
    contact_id: ContactId
    name: Annotated[str, Chars(1, 200)] | SkipJsonSchema[None] = None
    # Left out, a value stays as it is; null is no value to change to (phone's clears it), so the schema
    # doesn't offer it and `_not_null` refuses it.
    emails: list[Annotated[str, Chars(0, 254)]] | SkipJsonSchema[None] = None
    phone: Annotated[str, Chars(0, 80)] | None = None
    job_title: Annotated[str, Chars(0, 200)] | None = None
    labels: list[Annotated[str, Chars(1, 40)]] | SkipJsonSchema[None] = None
    fields: dict[str, Any] | SkipJsonSchema[None] = None
    # The contact as read for the check (update_replaces), with all its record reads (one query), handed to the
    # run: one read of it a call, not three (the check's, the update's, the result's). The update writes only if
    # the row still holds what this read saw of the values given, else reads it again under its lock, so what it
    # merges into is never a stale read.
    _read: Contact | None = PrivateAttr(default=None)

    @field_validator("name", "emails", "labels", "fields")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("give a value, or leave it out to keep what is there")
        return value

    def changes(self) -> dict[str, Any]:
        """The inputs given, by attribute name: a value left out stays as it is; phone given null clears it."""
        given = self.model_fields_set - {"contact_id"}
        return {name: getattr(self, name) for name in given}


def _contact_for_update(ctx: ToolContext, inp: UpdateInput) -> Contact | None:
    if inp._read is None or str(inp._read.organization_id) != str(ctx.org.id):
        inp._read = selectors.contact_for_record(org=ctx.org, contact_id=inp.contact_id)
    return inp._read


def update(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | Done:
    contact = _contact_for_update(ctx, inp)
    if contact is None:
        raise ToolError("not_found", f"No contact with id {inp.contact_id} in this workspace.")
    name = contact.name
    changes = inp.changes()
    # The record's other parts (open items, companies, projects) as read; the update locks and reads the row
    # again, which lets go of them. Its addresses are read again when it changed them.
    loaded = dict(getattr(contact, "_prefetched_objects_cache", {}))
    # The change's id, made here so its log entry is written linked to it (the pipeline records the change).
    change_id = uuid.uuid4()
    logged = services.contact_update(
        org=ctx.org, actor=ctx.actor, contact=contact, changes=changes, change_id=change_id
    )
    if logged and "emails" in changes:
        loaded.pop("emails", None)
    contact.__dict__["_prefetched_objects_cache"] = loaded | getattr(contact, "_prefetched_objects_cache", {})
    record = contact_record(contact)
    if not logged:
        return record
    return Done(
        result=record,
        sentence=f"changed {name}'s {fields_to([(change.words, change.after) for change, _ in logged])}",
        target_type="contact",
        target_id=str(contact.id),
        log_entry=logged[0][1],
        change_id=change_id,
    )


def update_reads_first(ctx: ToolContext, inp: UpdateInput) -> frozenset[tuple[str, str]]:
    # The contact as read for the check is read in this workspace: found, it need not be looked for again.
    contact = _contact_for_update(ctx, inp)
    return frozenset({("contact", str(contact.id))}) if contact is not None else frozenset()


def update_replaces(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | None:
    # Another workspace's contact replaces nothing here; running the tool answers not_found.
    contact = _contact_for_update(ctx, inp)
    return services.contact_update_replaces(contact, inp.changes()) if contact is not None else None


register(
    Tool(
        name="contacts.update",
        description="Change fields and labels",
        input=UpdateInput,
        run=update,
        kind="changes",
        your_work="record",
        replaces=update_replaces,
        reads_first=update_reads_first,
    )
)


# --- context ----------------------------------------------------------------------------------------------


class ContextInput(ToolInput):
    contact_id: ContactId
    text: Annotated[str, Chars(0, 1500)]
    why: Annotated[str, Chars(1, 2000)]


class ContextUndo(TypedDict):
    """What contacts.context's Undo reads: the Context before and after, as `snapshot` keeps them."""

    before: dict[str, Any]
    after: dict[str, Any]


def context(ctx: ToolContext, inp: ContextInput) -> Done:
    contact = selectors.contact_get(org=ctx.org, contact_id=inp.contact_id)
    before = snapshot(contact, ["context"])
    entry = services.contact_set_context(org=ctx.org, actor=ctx.actor, contact=contact, text=inp.text, why=inp.why)
    return Done(
        result={"contact": _record(ctx, contact.id), "entryId": str(entry.id)},
        sentence=f"set {contact.name}'s Context: {inp.why}",
        target_type="contact",
        target_id=str(contact.id),
        undo=ContextUndo(before=before, after=snapshot(contact, ["context"])),
        log_entry=entry,
    )


def context_replaces(ctx: ToolContext, inp: ContextInput) -> dict[str, Any] | None:
    contact = Contact.objects.filter(organization=ctx.org, id=inp.contact_id).only("name", "context").first()
    if contact is None or not contact.context:
        return None
    return {"name": contact.name, "context": contact.context}


def undo_context(*, org: Organization, actor: Actor, change: Change) -> None:
    contact = Contact.objects.filter(organization=org, id=change.target_id).first()
    if contact is None:
        raise ToolError("not_found", "That contact is no longer in Contacts; nothing was restored.")
    undo: ContextUndo = undo_data(change)
    after = undo["after"]
    restore(contact, before=undo["before"], after=after, what=f"{contact.name}'s Context")
    services.log_write(
        org=org, actor=actor, kind=LogEntry.Kind.RESTORED, contact=contact, before=after["context"],
        after=contact.context, text="Undid a change to Context",
    )


register(
    Tool(
        name="contacts.context",
        description="Set Context and record why it changed; can be undone",
        input=ContextInput,
        run=context,
        kind="changes",
        your_work="home_undo",
        undo=undo_context,
        replaces=context_replaces,
    )
)


# --- note -------------------------------------------------------------------------------------------------


class NoteInput(ToolInput):
    contact_id: ContactId
    text: Annotated[str, Chars(1, 2000)]


def note(ctx: ToolContext, inp: NoteInput) -> Done:
    contact = selectors.contact_get_plain(org=ctx.org, contact_id=inp.contact_id)
    entry = services.contact_note(org=ctx.org, actor=ctx.actor, contact=contact, text=inp.text)
    return Done(
        result=log_entry_shape(entry),
        sentence=f"added a note to {contact.name}",
        target_type="contact",
        target_id=str(contact.id),
        log_entry=entry,
    )


register(
    Tool(
        name="contacts.note",
        description="Add a dated note",
        input=NoteInput,
        run=note,
        kind="makes",
        your_work="record",
    )
)


# --- follow_up --------------------------------------------------------------------------------------------


def _date_and_time(value: str) -> str:
    # A date alone would mean midnight, which is never what a follow-up wants: ask for the time too.
    if not isinstance(value, str) or len(value.strip()) <= len("2026-11-13"):
        raise ValueError("must be an ISO 8601 date and time, such as 2026-11-13T09:00:00-05:00")
    return value.strip()


class FollowUpInput(ToolInput):
    contact_id: ContactId
    text: Annotated[str, Chars(1, 2000)]
    at: Annotated[IsoDateTime, BeforeValidator(_date_and_time)]


def follow_up(ctx: ToolContext, inp: FollowUpInput) -> Done:
    contact = selectors.contact_get_plain(org=ctx.org, contact_id=inp.contact_id)
    item, entry = services.contact_follow_up(
        org=ctx.org, actor=ctx.actor, contact=contact, text=inp.text, at=inp.at, thread=ctx.conversation_id or "",
    )
    return Done(
        result=_record(ctx, contact.id),
        sentence=f"set a follow-up on {contact.name} for {local_time_words(item.at, ctx.org.time_zone)}",
        target_type="contact",
        target_id=str(contact.id),
        log_entry=entry,
    )


register(
    Tool(
        name="contacts.follow_up",
        description="Add a follow-up for this agent; at is an ISO date and time",
        input=FollowUpInput,
        run=follow_up,
        kind="makes",
        your_work="record",
    )
)


# --- link_project -----------------------------------------------------------------------------------------


class LinkProjectInput(ToolInput):
    contact_id: ContactId
    project_id: ProjectId


def link_project(ctx: ToolContext, inp: LinkProjectInput) -> dict[str, Any] | Done:
    contact = selectors.contact_get_plain(org=ctx.org, contact_id=inp.contact_id)
    project = project_get(org=ctx.org, project_id=inp.project_id)
    entry = services.contact_link_project(org=ctx.org, actor=ctx.actor, contact=contact, project=project)
    result = {"projectId": str(project.id), "contactId": str(contact.id)}
    if entry is None:
        return result
    return Done(
        result=result,
        sentence=f"linked {contact.name} to the project {project.name}",
        target_type="contact",
        target_id=str(contact.id),
        log_entry=entry,
    )


register(
    Tool(
        name="contacts.link_project",
        description="Link a contact to a project",
        input=LinkProjectInput,
        run=link_project,
        kind="makes",
        your_work="record",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "contacts.list": {
        "label": "Only contacts with this label",
        "company": "Only contacts at this company: a name or id",
        "query": "Part of a name or email address",
        "open": "Only those with an open item of this kind: you (the owner owes them), them (they owe), follow_up",
        "quietDays": "Only those with no contact in this many days",
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "contacts.find": {
        "email": "The email address",
    },
    "contacts.read": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
    },
    "contacts.timeline": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "limit": "How many entries at most",
    },
    "contacts.create": {
        "name": "Their full name",
        "emails": "Their email addresses",
        "phone": "Their phone number",
        "jobTitle": "Their job title",
        "labels": "Labels, such as client",
        "companyIds": "The companies they work at, by id",
        "fields": "More fields, by name",
    },
    "contacts.add_many": {
        "people": "The people, each as contacts.create takes one",
    },
    "contacts.update": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "name": "Their full name",
        "emails": "Their email addresses, in full",
        "phone": "Their phone number",
        "jobTitle": "Their job title",
        "labels": "Their labels, in full",
        "fields": "Fields to set, by name; null clears one",
    },
    "contacts.context": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "text": "The whole Context, rewritten: what everyone should know about them",
        "why": "Why, in one line the owner reads",
    },
    "contacts.note": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "text": "The note, for their log",
    },
    "contacts.follow_up": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "text": "What to follow up on",
        "at": "When, ISO 8601; it wakes you then",
    },
    "contacts.link_project": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "projectId": "The project's id, from projects.list",
    },
})
