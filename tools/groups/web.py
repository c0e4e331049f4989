"""The web group: search the open web and read pages. Thin declarations over integrations.web.services.

The group is there only where a search provider is configured (SEARXNG_URL or BRAVE_SEARCH_API_KEY): without
one it is off, as an optional group can be: absent from browse's description, and browse, find and use_tool say
what to set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, field_validator

from core.inputs import Chars, Link, Whole
from integrations.web import services
from tools.registry import Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="web",
        summary="search the web and read pages",
        how_to="The open web. Results carry their links: say which page a fact came from.",
        # Off wherever no search provider is set up (a server setting, the same for every workspace).
        enabled=lambda org: services.web_available(),
        off_message=services.NOT_SET_UP,
        turn_on="whoever runs this Roadstar turns it on by setting up a web search provider",
    )
)


def _not_blank[T](value: T) -> T:
    if isinstance(value, str) and not value.strip():
        raise ValueError("must have words, not only spaces")
    if isinstance(value, list):
        for item in value:
            _not_blank(item)
    return value


# --- search ---------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    objective: Annotated[str, Chars(1, 500)]
    queries: Annotated[list[Annotated[str, Chars(1, 120)]], Field(min_length=1, max_length=4)]
    limit: Annotated[int, Whole(1, 10)] = 5

    _words = field_validator("objective", "queries")(_not_blank)


def search(ctx: ToolContext, inp: SearchInput) -> dict[str, Any]:
    return services.web_search(objective=inp.objective, queries=inp.queries, limit=inp.limit)


register(
    Tool(
        name="web.search",
        description="Pages that answer the objective, each with its link and the passages that matter",
        input=SearchInput,
        run=search,
        kind="reads",
        calls_apps=True,
        # Not set up (unsupported), and the search provider's own failures. Never not_connected: there's no account.
        errors=("bad_input", "unsupported", "rate_limited", "unavailable", "vendor"),
    )
)


# --- read -----------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    urls: Annotated[list[Link], Field(min_length=1, max_length=5)]
    objective: Annotated[str, Chars(1, 500)] | None = None

    _words = field_validator("objective")(_not_blank)


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    return services.web_read(urls=inp.urls, objective=inp.objective)


register(
    Tool(
        name="web.read",
        description="The text of up to 5 pages; with an objective, only the passages that bear on it",
        input=ReadInput,
        run=read,
        kind="reads",
        calls_apps=True,
        # A page that can't be read is listed in `failed` with why; the call itself fails only on its input (a
        # refused address is bad_input), when the group isn't set up, or when Roadstar's database is busy.
        errors=("bad_input", "unsupported", "unavailable"),
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "web.search": {
        "objective": "What you are looking for, in a sentence",
        "queries": "Search words, a few ways of putting it",
        "limit": "How many results at most",
    },
    "web.read": {
        "urls": "The pages' addresses",
        "objective": "What to look for on them",
    },
})
