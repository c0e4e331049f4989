"""The comments group (optional per workspace, with research pages): comments on research pages. What an agent
writes shows as Roadstar. Thin declarations over research.page_services and page_selectors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from core.inputs import Chars, Id, PageId
from research import page_selectors, page_services
from research import selectors as research_selectors
from research.page_shapes import comment_shape
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="comments",
        summary="comments on pages",
        how_to="Comments on pages. What an agent writes shows as Roadstar, like an @roadstar reply.",
        enabled=lambda org: research_selectors.group_on(org=org, group="comments"),
    )
)


class ListInput(ToolInput):
    page_id: PageId
    # Beyond the spec's inputs (README, "Where Roadstar adds to the spec"): its result has nextCursor, and this
    # takes it back, so a discussion past one window of 200 comments can be read to its end.
    cursor: Annotated[str, Chars(0, 400)] | None = None


def list_comments(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    window, next_cursor = page_selectors.comment_window(page=page, cursor=inp.cursor or None)
    owner = ctx.org.owner_first_name
    return {"comments": {
        "items": [comment_shape(c, replies=replies, owner_name=owner) for c, replies in window],
        "nextCursor": next_cursor,
    }}


register(Tool(name="comments.list", description="A page's comments", input=ListInput, run=list_comments,
              kind="reads"))


class CommentInput(ToolInput):
    page_id: PageId
    text: Annotated[str, Chars(1, 10_000)]
    parent_id: Id | None = None


def comment(ctx: ToolContext, inp: CommentInput) -> Done:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    parent = page_selectors.comment_get(page=page, comment_id=inp.parent_id) if inp.parent_id else None
    agent_id = ctx.actor.agent.pk if ctx.actor.kind == "agent" and ctx.actor.agent is not None else None
    made = page_services.comment_add(page=page, text=inp.text, parent=parent, agent_id=agent_id)
    what = "replied to a comment" if made.parent_id else "commented"
    return Done(result={"commentId": str(made.id)}, sentence=f"{what} on the research page “{page.title}”",
                target_type="page", target_id=str(page.id))


register(Tool(name="comments.comment", description="Comment on a page, or reply to a comment", input=CommentInput,
              run=comment, kind="makes", your_work="home"))


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "comments.list": {
        "pageId": "The page's id, from pages.list",
        "cursor": "Where to go on: the nextCursor a list of over 200 comments gave; leave it out for the first ones",
    },
    "comments.comment": {
        "pageId": "The page's id, from pages.list",
        "text": "The comment",
        "parentId": "The comment to reply to, from comments.list",
    },
})
