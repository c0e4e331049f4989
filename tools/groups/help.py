"""The help group: Roadstar's own docs, searched and read from inside a thread. Thin declarations over tools/help/."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from core.errors import ToolError
from core.inputs import Chars, Whole
from tools.help import search as help_search
from tools.help.library import library, split_address
from tools.registry import Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="help",
        summary="these docs: how Roadstar works, and every tool",
        how_to=(
            "Roadstar's docs, as markdown: how agents, threads, hand-offs, routines and the owner's yes work, every "
            "tool with its input, result and limits, and worked examples. Search with the words you'd expect on the "
            "page, such as a tool's name; then read the page, or just the part you need."
        ),
    )
)


# --- search -----------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    query: Annotated[str, Chars(1, 200)]
    limit: Annotated[int, Whole(1, 20)] = 8


def search(ctx: ToolContext, inp: SearchInput) -> dict[str, Any]:
    if not help_search.query_words(inp.query):
        raise ToolError("bad_input", "query: has no words to search for; use words you'd expect on the page, "
                                     "such as a tool's name")
    return help_search.search(library(), inp.query, inp.limit)


register(
    Tool(
        name="help.search",
        description=(
            "The pages and parts of pages with the most of these words, best first, each with its address and "
            "opening lines"
        ),
        input=SearchInput,
        run=search,
        kind="reads",
    )
)


# --- read -------------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    page: Annotated[str, Chars(1, 300)]


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    address, anchor = split_address(inp.page)
    docs = library()
    page = docs.get(address)
    if page is None:
        raise ToolError("not_found", f"No page {inp.page!r} in Roadstar's docs. help.search finds pages by their "
                                     "words; the start page is \"/\".")
    if not anchor:
        return {"page": page.address, "title": page.title, "text": page.text}
    part = page.part(anchor)
    if part is None:
        parts = ", ".join(f"#{p.anchor}" for p in page.parts) or "none"
        raise ToolError("not_found", f"No part #{anchor} on {page.address}. Its parts are: {parts}.")
    return {"page": f"{page.address}#{part.anchor}", "title": f"{page.title}: {part.title}", "text": part.text}


register(
    Tool(
        name="help.read",
        description=(
            'One page as markdown, by its address from search or a link, such as "/tools/mail/"; with #part, only '
            'that part, such as "/tools/mail/#send"'
        ),
        input=ReadInput,
        run=read,
        kind="reads",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "help.search": {
        "query": "Words to look for in these docs",
        "limit": "How many pages at most",
    },
    "help.read": {
        "page": "The page's address from search or a link, such as /tools/mail/; add #part for only that part",
    },
})
