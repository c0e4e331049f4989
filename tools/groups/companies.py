"""The companies group: the businesses the owner deals with. Thin declarations over companies' services.

Only create and context are listed on Home; every other change shows on the company's own log, which the
services write. unrecord alone has an Undo: taking an entry off keeps its row, and Undo puts it back.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field

from companies import selectors, services
from companies.shapes import (
    company_context_shape,
    company_read_shape,
    company_record,
    company_row,
    timeline_entry_shape,
)
from core.actors import Actor
from core.change_words import fields_to, joined
from core.inputs import MAX_DAYS, Chars, CompanyId, ContactId, IsoDate, IsoDateTime, Link, Offset, Uuid, Whole, in_range
from core.models import Change, Organization
from core.timefmt import iso
from core.undo import undo_data
from tools.registry import Done, Group, Kind, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="companies",
        summary="the businesses the owner deals with: clients, suppliers, their conversations",
        how_to=(
            "The businesses the owner deals with, shared by all the owner's agents: each with its people and their "
            "roles, a Context, details such as terms, an About from the web, and a timeline. Read a company before "
            "you work for it. Its timeline is its conversations with the business, one entry per thread, meeting, "
            "call or invoice: after one, record what was said or decided, and recording the same thread again "
            "updates its entry. ours is who wrote for the business: your agent id when you did; leave it out when "
            "the owner did. Fix an entry by recording it again with its entryId; take one off only when the owner "
            "asks. Never record your own steps, automated mail or newsletters. Work about a company goes to its "
            "handler."
        ),
    )
)

NonNegative = Annotated[int, Whole(0)]
Positive = Annotated[int, Whole(1)]
OpenKind = Literal["you", "them", "follow_up"]
EntryKind = Literal["mail", "meeting", "call", "invoice", "note"]


def _record(ctx: ToolContext, company_id: Uuid | str) -> dict[str, Any]:
    return company_record(selectors.company_for_record(org=ctx.org, company_id=company_id))


def _given(inp: ToolInput, *names: str) -> dict[str, Any]:
    """The inputs among `names` the caller gave, by their snake_case names; a null counts as given."""
    return {name: getattr(inp, name) for name in names if name in inp.model_fields_set}


def _present(inp: ToolInput, *names: str) -> dict[str, Any]:
    """The inputs among `names` the caller gave a value (a null is as if left out)."""
    return {name: value for name, value in _given(inp, *names).items() if value is not None}


# --- list -------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    label: Annotated[str, Chars(1, 40)] | None = None
    query: Annotated[str, Chars(0, 200)] | None = None
    open: OpenKind | None = None
    quiet_days: Annotated[int, Whole(0, MAX_DAYS)] | None = None
    handled_by: Annotated[str, Chars(1, 80)] | None = None
    offset: Offset = 0


def list_(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    rows, total = selectors.company_list(
        org=ctx.org, label=inp.label, query=inp.query, open_kind=inp.open, quiet_days=inp.quiet_days,
        handled_by=inp.handled_by, offset=inp.offset,
    )
    after = inp.offset + len(rows)
    return {"items": [company_row(c) for c in rows], "nextOffset": after if after < total else None, "total": total}


register(
    Tool(
        name="companies.list",
        description="Companies with labels, people, what's open, last contact and handler",
        input=ListInput,
        run=list_,
        kind="reads",
    )
)


# --- read -------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    company_id: CompanyId


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    return company_read_shape(*selectors.company_read(org=ctx.org, company_id=inp.company_id))


register(
    Tool(
        name="companies.read",
        description=(
            "Everything to know before working for a company: Context, details, About, people with roles, open, "
            "newest 20 conversations"
        ),
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# --- create -----------------------------------------------------------------------------------------------


class PersonInput(ToolInput):
    contact_id: ContactId
    role: Annotated[str, Chars(1, 200)] | None = None


class CreateInput(ToolInput):
    name: Annotated[str, Chars(1, 200)]
    website: Annotated[str, Chars(1, 300)] | None = None
    domains: Annotated[list[Annotated[str, Chars(1, 200)]], Field(max_length=10)] = []
    labels: Annotated[list[Annotated[str, Chars(1, 40)]], Field(max_length=20)] = []
    handler: Annotated[str, Chars(1, 80)] | None = None
    people: Annotated[list[PersonInput], Field(max_length=200)] = []


def create(ctx: ToolContext, inp: CreateInput) -> dict[str, Any] | Done:
    try:
        company = services.company_create(
            org=ctx.org, actor=ctx.actor, name=inp.name, website=inp.website, domains=inp.domains,
            labels=inp.labels, handler=inp.handler, people=[(p.contact_id, p.role) for p in inp.people],
        )
    except services.CompanyExists as exists:
        return {
            "message": (
                f"{exists.company.name} (id {exists.company.id}) is in Companies already, with {exists.what}; "
                "nothing was added. Read or update it."
            )
        }
    return Done(
        result=_record(ctx, company.id),
        sentence=f"added {company.name} to Companies",
        target_type="company",
        target_id=str(company.id),
        created=True,
    )


register(
    Tool(
        name="companies.create",
        description="Add a company; people are contact ids, a role each",
        input=CreateInput,
        run=create,
        kind="makes",
        your_work="home",
    )
)


# --- update -----------------------------------------------------------------------------------------------


class UpdateInput(ToolInput):
    company_id: CompanyId
    name: Annotated[str, Chars(1, 200)] | None = None
    domains: Annotated[list[Annotated[str, Chars(1, 200)]], Field(max_length=10)] | None = None
    labels: Annotated[list[Annotated[str, Chars(1, 40)]], Field(max_length=20)] | None = None
    handler: Annotated[str, Chars(1, 80)] | None = None
    details: dict[str, str | None] | None = None
    why: Annotated[str, Chars(1, 2000)]

    def changes(self) -> dict[str, Any]:
        # A null handler clears it; a null anywhere else is as if left out.
        return _present(self, "name", "domains", "labels", "details") | _given(self, "handler")


def update(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    known_as = company.name  # the line names it as the owner knew it, and says its new name
    entry = services.company_update(org=ctx.org, actor=ctx.actor, company=company, why=inp.why, **inp.changes())
    if entry is None:
        return _record(ctx, company.id)
    after = entry.after or {}  # an update's entry always holds what it changed to
    changed = [(name, value) for name, value in after.items() if name != "details"] + list(
        (after.get("details") or {}).items())
    return Done(
        result=_record(ctx, company.id),
        sentence=f"changed {known_as}'s {fields_to(changed)}: {inp.why}",
        target_type="company",
        target_id=str(company.id),
        log_entry=entry,
    )


def update_replaces(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | None:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    return services.company_update_replaces(org=ctx.org, company=company, **inp.changes())


register(
    Tool(
        name="companies.update",
        description=(
            "Change a company's name, domains, labels, handler (an agent id) or details (named facts such as Terms; "
            "null clears one)"
        ),
        input=UpdateInput,
        run=update,
        kind="changes",
        your_work="record",
        replaces=update_replaces,
    )
)


# --- about ------------------------------------------------------------------------------------------------


class FactInput(ToolInput):
    label: Annotated[str, Chars(1, 40)]
    value: Annotated[str, Chars(1, 200)]


class LatelyInput(ToolInput):
    date: IsoDate
    text: Annotated[str, Chars(1, 300)]
    source: Positive | None = None


class SourceInput(ToolInput):
    title: Annotated[str, Chars(1, 200)]
    url: Link


class AboutInput(ToolInput):
    company_id: CompanyId
    text: Annotated[str, Chars(1, 3000)]
    facts: Annotated[list[FactInput], Field(max_length=12)] = []
    lately: Annotated[list[LatelyInput], Field(max_length=10)] = []
    sources: Annotated[list[SourceInput], Field(min_length=1, max_length=20)]


def about(ctx: ToolContext, inp: AboutInput) -> Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    dumped = inp.model_dump(mode="json", exclude_none=True)
    entry = services.company_set_about(
        org=ctx.org, actor=ctx.actor, company=company, text=inp.text, facts=dumped["facts"],
        lately=dumped["lately"], sources=dumped["sources"],
    )
    return Done(
        result=_record(ctx, company.id),
        sentence=f"replaced {company.name}'s About",
        target_type="company",
        target_id=str(company.id),
        log_entry=entry,
    )


def about_replaces(ctx: ToolContext, inp: AboutInput) -> dict[str, Any] | None:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    if not company.about:
        return None
    return {"name": company.name, "about": company.about.get("text", "")}


register(
    Tool(
        name="companies.about",
        description="Replace a company's About from the web: text citing sources as [1], facts, dated news",
        input=AboutInput,
        run=about,
        kind="changes",
        your_work="record",
        replaces=about_replaces,
    )
)


# --- timeline ---------------------------------------------------------------------------------------------


def _time(value: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(
            f"{value!r} is not a time; give the last item's at as it came, such as 2026-11-10T15:12:00Z"
        ) from exc
    return in_range(moment)


def _reads_as_time(value: str) -> str:
    _time(value)  # a time it can't read is bad_input, naming the field
    return value


class TimelineInput(ToolInput):
    company_id: CompanyId
    kind: EntryKind | None = None
    contact_id: ContactId | None = None
    query: Annotated[str, Chars(0, 200)] | None = None
    # The last item's `at`, checked as it comes in and read as a time where it is used.
    before: Annotated[str, Chars(0, 64), AfterValidator(_reads_as_time)] | None = None


def timeline(ctx: ToolContext, inp: TimelineInput) -> dict[str, Any]:
    page = selectors.timeline_page(
        org=ctx.org, company_id=inp.company_id, kind=inp.kind, contact_id=inp.contact_id, query=inp.query,
        before=_time(inp.before) if inp.before is not None else None,
    )
    items = page["items"]
    return {
        "items": [timeline_entry_shape(e) for e in items],
        "total": page["total"],
        "counts": page["counts"],
        "nextBefore": iso(items[-1].at) if page["more"] else None,
    }


register(
    Tool(
        name="companies.timeline",
        description="A company's conversations, newest first; before is the last item's at",
        input=TimelineInput,
        run=timeline,
        kind="reads",
    )
)


# --- record -----------------------------------------------------------------------------------------------


class FileInput(ToolInput):
    name: Annotated[str, Chars(1, 200)]
    link: Link | None = None


class RecordInput(ToolInput):
    company_id: CompanyId
    entry_id: str | None = None
    kind: EntryKind
    title: Annotated[str, Chars(1, 200)]
    summary: Annotated[str, Chars(0, 1000)] | None = None
    at: IsoDateTime
    people: Annotated[list[Annotated[str, Chars(1, 254)]], Field(max_length=20)] | None = None
    ours: Annotated[list[Annotated[str, Chars(1, 80)]], Field(max_length=10)] | None = None
    count: Positive | None = None
    minutes: Positive | None = None
    link: Link | None = None
    thread: Annotated[str, Chars(0, 300)] | None = None  # the timeline keeps thread ids of up to 300 characters
    files: Annotated[list[FileInput], Field(max_length=20)] | None = None
    state: Literal["waiting_you", "waiting_them", "paid", "overdue"] | None = None


def record(ctx: ToolContext, inp: RecordInput) -> dict[str, Any] | Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    given = _present(inp, "summary", "people", "ours", "count", "minutes", "link", "thread") | _given(inp, "state")
    if inp.files is not None:
        given["files"] = [f.model_dump(mode="json", exclude_none=True) for f in inp.files]
    entry, updated, log = services.timeline_entry_record(
        org=ctx.org, actor=ctx.actor, company=company, entry_id=inp.entry_id, kind=inp.kind, title=inp.title,
        at=inp.at, **given,
    )
    result = {"entry": timeline_entry_shape(entry), "updated": updated}
    if log is None:
        return result
    return Done(
        result=result,
        sentence=f"{'updated' if updated else 'recorded'} {entry.kind} “{entry.title}” on {company.name}'s timeline",
        # As the check's made_here names an entry: `timeline:<companyId>:<entryId>`.
        target_type="timeline",
        target_id=f"{company.id}:{entry.id}",
        log_entry=log,
        # Updating an entry that was there changes it; only a new entry is something this work made.
        created=not updated,
        changed_existing=updated,
    )


register(
    Tool(
        name="companies.record",
        description=(
            "Add a conversation to a company's timeline, or update it: same entryId, thread or link. people: contact "
            "ids or addresses on their side; ours: agent ids that wrote for the business, else the owner"
        ),
        input=RecordInput,
        run=record,
        kind="makes",
        your_work="record",
    )
)


# --- unrecord ---------------------------------------------------------------------------------------------


class UnrecordInput(ToolInput):
    company_id: CompanyId
    entry_id: Annotated[str, Chars(1)]


def unrecord(ctx: ToolContext, inp: UnrecordInput) -> Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    entry, log, undo = services.timeline_entry_unrecord(
        org=ctx.org, actor=ctx.actor, company=company, entry_id=inp.entry_id
    )
    return Done(
        # historyId is the "unrecorded" entry on the company's log: it is known while the tool runs (the Change
        # is recorded after), and it links to the Change, so Undo can be offered from the record.
        result={"historyId": str(log.id)},
        sentence=f"took “{entry.title}” off {company.name}'s timeline",
        target_type="timeline",
        target_id=f"{company.id}:{entry.id}",
        undo=undo,
        log_entry=log,
    )


def unrecord_replaces(ctx: ToolContext, inp: UnrecordInput) -> dict[str, Any]:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    entry = selectors.timeline_entry_get(org=ctx.org, company=company, entry_id=inp.entry_id)
    return {
        "name": company.name,
        "entry": {"id": str(entry.id), "kind": entry.kind, "title": entry.title, "at": iso(entry.at)},
    }


def undo_unrecord(*, org: Organization, actor: Actor, change: Change) -> None:
    services.timeline_entry_restore(org=org, actor=actor, undo=undo_data(change))


register(
    Tool(
        name="companies.unrecord",
        description="Take an entry off a company's timeline; the owner can undo it",
        input=UnrecordInput,
        run=unrecord,
        kind="deletes",
        your_work="record",
        undo=undo_unrecord,
        replaces=unrecord_replaces,
    )
)


# --- open -------------------------------------------------------------------------------------------------


class AddInput(ToolInput):
    kind: OpenKind
    text: Annotated[str, Chars(1, 500)]
    at: IsoDateTime | None = None


class OpenInput(ToolInput):
    company_id: CompanyId
    add: AddInput | None = None
    done: str | None = None


def open_kind(ctx: ToolContext, inp: OpenInput) -> Kind:
    # Closing an item changes what's there; opening one only makes something new.
    return "changes" if inp.done is not None else "makes"


def open_(ctx: ToolContext, inp: OpenInput) -> Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    outcome = services.company_open(
        org=ctx.org, actor=ctx.actor, company=company, add=inp.add.model_dump() if inp.add else None,
        done=inp.done, thread=ctx.conversation_id or "",
    )
    closed, opened = outcome.closed, outcome.opened
    if opened is not None:
        what = {"you": "an item we owe them", "them": "an item they owe us", "follow_up": "a follow-up"}[opened.kind]
        first = f"closed “{closed.text}” and " if closed is not None else ""
        sentence = f"{first}opened {what} on {company.name}: {opened.text}"
    else:  # nothing opened: company_open closed one (it refuses a call that asks for neither)
        sentence = f"closed an open item on {company.name}: {closed.text if closed is not None else ''}"
    return Done(
        result=_record(ctx, company.id),
        sentence=sentence,
        target_type="company",
        target_id=str(company.id),
        log_entry=outcome.log[0],
    )


def open_replaces(ctx: ToolContext, inp: OpenInput) -> dict[str, Any] | None:
    if inp.done is None:
        return None
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    item = selectors.open_item_get(org=ctx.org, company=company, item_id=inp.done)
    return {"name": company.name, "open": item.text}


register(
    Tool(
        name="companies.open",
        description="Open an item on a company (a follow-up at a time wakes you), or close one by id",
        input=OpenInput,
        run=open_,
        kind=open_kind,
        your_work="record",
        replaces=open_replaces,
    )
)


# --- context ----------------------------------------------------------------------------------------------


class ContextInput(ToolInput):
    company_id: CompanyId
    text: Annotated[str, Chars(0, 1500)]
    why: Annotated[str, Chars(1, 2000)]


def context(ctx: ToolContext, inp: ContextInput) -> Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    entry = services.company_set_context(org=ctx.org, actor=ctx.actor, company=company, text=inp.text, why=inp.why)
    return Done(
        result=company_context_shape(company, actor=ctx.actor),
        sentence=f"set {company.name}'s Context: {inp.why}",
        target_type="company",
        target_id=str(company.id),
        log_entry=entry,
    )


def context_replaces(ctx: ToolContext, inp: ContextInput) -> dict[str, Any] | None:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    if not company.context:
        return None
    return {"name": company.name, "context": company.context}


register(
    Tool(
        name="companies.context",
        description="Set a company's Context: what everyone should know about working with them",
        input=ContextInput,
        run=context,
        kind="changes",
        your_work="home",
        replaces=context_replaces,
    )
)


# --- link_person ------------------------------------------------------------------------------------------


class LinkPersonInput(ToolInput):
    contact_id: ContactId
    company_id: CompanyId
    role: Annotated[str, Chars(1, 200)] | None = None
    since: IsoDate | None = None
    ended: IsoDate | None = None


def link_person(ctx: ToolContext, inp: LinkPersonInput) -> dict[str, Any] | Done:
    company = selectors.company_get(org=ctx.org, company_id=inp.company_id)
    contact = selectors.contact_get(org=ctx.org, contact_id=inp.contact_id)
    entry = services.company_person_link(
        org=ctx.org, actor=ctx.actor, company=company, contact=contact, **_present(inp, "role", "since", "ended")
    )
    result = {"contactId": str(contact.id), "companyId": str(company.id)}
    if entry is None:
        return result
    after = entry.after or {}  # a link's entry always holds what it set
    if entry.before is None:
        role = f" as {after['role']}" if after.get("role") else ""
        sentence = f"linked {contact.name} to {company.name}{role}"
    else:
        sentence = f"changed {contact.name}'s {joined(list(after))} at {company.name}"
    return Done(
        result=result,
        sentence=sentence,
        target_type="company",
        target_id=str(company.id),
        log_entry=entry,
    )


register(
    Tool(
        name="companies.link_person",
        description="Link a person to a company, or change the link: role, since, ended (dates)",
        input=LinkPersonInput,
        run=link_person,
        kind="makes",
        your_work="record",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "companies.list": {
        "label": "Only companies with this label",
        "query": "Part of a name or domain",
        "open": "Only those with an open item of this kind: you (the owner owes them), them (they owe), follow_up",
        "quietDays": "Only those with no contact in this many days",
        "handledBy": "Only those this agent or person handles",
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "companies.read": {
        "companyId": "The company's id, from companies.list",
    },
    "companies.create": {
        "name": "The company's name",
        "website": "Its website",
        "domains": "Its email domains, such as juniperdental.com",
        "labels": "Labels, such as client or supplier",
        "handler": "The agent or person who handles it",
        "people": "Its people: a contact id and a role each",
    },
    "companies.update": {
        "companyId": "The company's id, from companies.list",
        "name": "The new name",
        "domains": "Its email domains, in full",
        "labels": "Its labels, in full",
        "handler": "The agent or person who handles it",
        "details": "Fields to set, by name; null clears one",
        "why": "Why, in one line the owner reads",
    },
    "companies.about": {
        "companyId": "The company's id, from companies.list",
        "text": "About the company, citing sources as [1]",
        "facts": "Short facts, each with its source",
        "lately": "Dated news, newest first",
        "sources": "The pages cited, in the order of their numbers",
    },
    "companies.timeline": {
        "companyId": "The company's id, from companies.list",
        "kind": "Only entries of this kind",
        "contactId": "Only entries with this contact",
        "query": "Words in an entry's title or summary",
        "before": "The last item's at, for older entries",
    },
    "companies.record": {
        "companyId": "The company's id, from companies.list",
        "entryId": "An entry to change, from companies.timeline; left out, a new one",
        "kind": "What it was",
        "title": "A short title",
        "summary": "What happened, in a line or two",
        "at": "When it happened, ISO 8601",
        "people": "Who was on it: contact ids or email addresses",
        "ours": "Who was on it from the business: names",
        "count": "How many messages it covers",
        "minutes": "How long it took",
        "link": "Where it can be opened",
        "thread": "The mail thread's id",
        "files": "Files it brought",
        "state": "For an invoice or a question: where it stands",
    },
    "companies.unrecord": {
        "companyId": "The company's id, from companies.list",
        "entryId": "The entry's id, from companies.timeline",
    },
    "companies.open": {
        "companyId": "The company's id, from companies.list",
        "add": "An item to open: what, whose turn, and for a follow-up when",
        "done": "An open item's id, to close it",
    },
    "companies.context": {
        "companyId": "The company's id, from companies.list",
        "text": "The whole Context, rewritten: what everyone should know about working with them",
        "why": "Why, in one line the owner reads",
    },
    "companies.link_person": {
        "contactId": "The contact's id, from contacts.list or contacts.find",
        "companyId": "The company's id, from companies.list",
        "role": "Their role there",
        "since": "When they started, YYYY-MM-DD",
        "ended": "When they left, YYYY-MM-DD",
    },
})
