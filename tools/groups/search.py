"""The search group: one literal search over the copy of the owner's accounts (where search is on) and the
workspace's own content. Thin declarations over search.selectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from core.inputs import Chars, Offset, Whole
from search import selectors
from search.accounts import how_to_for
from tools.registry import Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

HOW_TO = (
    "Search and read the owner's mail, files and meetings as copied for Roadstar, and the workspace's own content. "
    "In search: the workspace's docs, tables, contacts and projects. Search is literal and fast and costs the "
    "owner's accounts nothing: search several times, with words in query and people, dates, folders, labels, sent "
    "or received as fields; identifiers as written. Totals and counts are exact over every match: counts.people "
    "shows who the owner writes with most. Results are one per thread; thread: its id lists every message. Read "
    "before you answer."
)

register_group(
    Group(
        name="search",
        summary="Search",  # as browse_tools lists it in the spec (tools/catalog.md)
        how_to=HOW_TO,
        how_to_for=lambda ctx: how_to_for(ctx.org, HOW_TO),
    )
)

ItemType = Literal["email", "doc", "sheet", "slides", "pdf", "image", "file", "meeting", "page", "table", "contact",
                   "project"]
Who = Annotated[list[Annotated[str, Chars(1, 200)]], Field(max_length=10)]


# --- search ---------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    query: Annotated[str, Chars(0, 300)] | None = None
    from_: Who | None = Field(default=None, alias="from")
    to: Who | None = None
    with_: Who | None = Field(default=None, alias="with")
    after: Annotated[str, Chars(0, 40)] | None = None
    before: Annotated[str, Chars(0, 40)] | None = None
    type: Annotated[list[ItemType], Field(max_length=8)] | None = None
    in_: Annotated[list[Annotated[str, Chars(1, 200)]], Field(max_length=5)] | None = Field(default=None, alias="in")
    has: Annotated[list[Literal["attachment", "star"]], Field(max_length=2)] | None = None
    dir: Literal["sent", "received"] | None = None
    bulk: Annotated[bool, Field(strict=True)] | None = None  # true or false, not "yes"
    waiting: Literal["me", "them"] | None = None
    thread: Annotated[str, Chars(0, 200)] | None = None
    sort: Literal["relevance", "newest", "oldest"] | None = None
    limit: Annotated[int, Whole(1, 50)] = 10
    cursor: Annotated[str, Chars(0, 400)] | None = None


def search(ctx: ToolContext, inp: SearchInput) -> dict[str, Any]:
    filters = selectors.Filters(
        query=inp.query, sender=inp.from_ or [], to=inp.to or [], with_=inp.with_ or [], after=inp.after or None,
        before=inp.before or None, types=inp.type or [], places=inp.in_ or [], has=inp.has or [], dir=inp.dir,
        bulk=inp.bulk, waiting=inp.waiting, thread=inp.thread or None, sort=inp.sort, limit=inp.limit,
        cursor=inp.cursor or None,
    )
    return selectors.search(org=ctx.org, filters=filters)


register(
    Tool(
        name="search.search",
        description=(
            "One list with the exact total, how names and dates were understood, counts by type, source, year, "
            "direction and sender, each source's state, and next for the following page. Results with related: true "
            "matched by meaning, not by the words"
        ),
        input=SearchInput,
        run=search,
        kind="reads",
        # It may call the embeddings endpoint (related results): it runs with no transaction open. Its catch-up of
        # new mail writes in short transactions of its own (search/index.py). Its errors are still only these.
        calls_apps=True,
        errors=("bad_input", "unavailable"),
    )
)


# --- read -----------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    id: Annotated[str, Chars(3, 500)]
    offset: Offset = 0


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    return selectors.read(org=ctx.org, item_id=inp.id, offset=inp.offset)


register(
    Tool(
        name="search.read",
        description=(
            "A result in full, 30,000 characters at a time: a message with sender, recipients, date and its "
            "attachments' ids; a whole thread by an id gmail:{account}:t:{thread}; an attachment's or file's text; a "
            "meeting. With next, read again from that offset"
        ),
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "search.search": {
        "query": "Words; \"PO 4471\", an invoice number or an email address match exactly",
        "from": "Sender, author or organizer: names, addresses or a company",
        "to": "To, cc or guests",
        "with": "Anyone on it, or everyone at a company",
        "after": "\"2026-09-01\" or \"last week\"",
        "before": "\"2026-09-30\" or \"yesterday\"",
        "type": "Only these kinds of item",
        "in": "A folder (\"Clients › Juniper Dental\") or a mail label (\"label:Clients\", \"label:STARRED\")",
        "has": "Only items with an attachment, or starred",
        "dir": "Mail the owner sent, or mail they received",
        "bulk": "false: mail from people only; true: newsletters and automated mail only",
        "waiting": "Threads where a person wrote last and the owner hasn't answered (me), or the reverse",
        "thread": "Every message of one thread, by its thread id",
        "sort": "relevance by default, or newest or oldest first",
        "limit": "How many results at most",
        "cursor": "next from the last search, for the following page",
    },
    "search.read": {
        "id": "The result's id, from search",
        "offset": "nextOffset from the last read, for the rest; 0 from the start",
    },
})
