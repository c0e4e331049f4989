"""The newsfeed group (optional per workspace): today's stories from the feeds the workspace follows. A thin
declaration over research.selectors; the worker reads the feeds on a schedule (research.tasks.feeds_sweep), so
reading the newsfeed never goes out to the network."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.timefmt import iso
from research import selectors
from research.shapes import brief_shape, feed_label, story_shape
from tools.registry import Group, Tool, ToolInput, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

HOW_TO = "The workspace's newsfeed: stories it follows for the workspace's projects."
NOT_AVAILABLE = (
    "Not available in this Roadstar: it reads news feeds only, so it follows no social accounts (accounts is always "
    "empty) and has no market prices or market stories (market, strip and moves are always empty). The brief is "
    "written by the model a few times a day over the day's stories, for each project the feed follows; until then "
    "it is null: read the stories themselves."
)


def _how_to(ctx: ToolContext) -> str:
    """The spec's words, what this Roadstar has no source for, and why today's brief is missing where it is."""
    brief = selectors.brief_today(org=ctx.org)
    missing = f" Today: {brief.problem}" if brief is not None and brief.written_at is None and brief.problem else ""
    return f"{HOW_TO} {NOT_AVAILABLE}{missing}"


register_group(
    Group(
        name="newsfeed",
        summary="today's news",
        how_to="The workspace's newsfeed: stories it follows for the workspace's projects.",
        # After the spec's words, what this Roadstar has no source for, said plainly so an empty list isn't read
        # as "nothing happened".
        how_to_for=_how_to,
        enabled=lambda org: selectors.group_on(org=org, group="newsfeed"),
    )
)


class ReadInput(ToolInput):
    pass


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    org = ctx.org
    feeds = selectors.feeds_of(org=org)
    stories = selectors.stories_today(org=org)
    projects = {str(f.project_id): f.project.name for f in feeds if f.project is not None}
    topics: dict[str, list[str]] = {}
    for feed in feeds:
        ids = topics.setdefault(feed_label(feed), [])
        if feed.project_id and str(feed.project_id) not in ids:
            ids.append(str(feed.project_id))
    checked = [f.fetched_at for f in feeds if f.fetched_at]
    return {
        "stories": [story_shape(s.story, s.project_ids) for s in stories],
        "projects": [{"id": pid, "name": name} for pid, name in projects.items()],
        # What the feed follows: each feed, by its title, with the projects it is followed for (none: the whole
        # workspace). Roadstar's feeds are RSS and Atom feeds; it follows no X accounts and no market (the how-to
        # says so).
        "topics": [{"label": label, "projectIds": ids} for label, ids in topics.items()],
        "accounts": [],
        "market": {"stories": [], "read": None},
        "brief": brief_shape(selectors.brief_today(org=org)),
        "actions": [],
        "today": {
            "counts": [{"kind": "news", "read": selectors.stories_seen_today(org=org), "kept": len(stories)}],
            "stories": len(stories),
        },
        "strip": [],
        "pricedAt": None,
        "moves": {},
        "publishers": sorted({feed_label(f) for f in feeds if f.state == f.State.OK}),
        "checkedAt": iso(max(checked)) if checked else None,
    }


register(
    Tool(
        name="newsfeed.read",
        description="Today's stories and what the feed follows",
        input=ReadInput,
        run=read,
        kind="reads",
    )
)
