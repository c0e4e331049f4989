"""The pages group (optional per workspace): research pages Roadstar's research writer makes on a question. Thin
declarations over research.page_services and page_selectors. pages.request only makes the page, queued; the writer
(agents/research_writer.py, handed to research when agents loads) researches and writes it in a worker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from pydantic import Field, StrictBool, field_validator

from core.actors import Actor
from core.errors import ToolError
from core.inputs import Chars, Offset, PageId, ProjectId, Uuid
from core.models import Change, Organization
from core.undo import undo_data
from docs import selectors as doc_selectors
from docs import services as doc_services
from integrations.web.services import web_available
from research import page_selectors, page_services
from research import selectors as research_selectors
from research.page_shapes import list_item_shape, read_shape
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="pages",
        summary="research pages",
        how_to="Research pages in this workspace: question and thesis pages the reporter writes.",
        enabled=lambda org: research_selectors.group_on(org=org, group="pages"),
    )
)

# The note the check weighs on every request, in the spec's words (spec/tools/pages.md).
COST_NOTE = "A page costs money and has no price up front."


def _agent_id(ctx: ToolContext) -> Uuid | None:
    return ctx.actor.agent.pk if ctx.actor.kind == "agent" and ctx.actor.agent is not None else None


def _author(ctx: ToolContext) -> str:
    return "Roadstar"


# --- list -------------------------------------------------------------------------------------------------------


class ListInput(ToolInput):
    project_id: ProjectId | None = None
    title: Annotated[str, Chars(0, 300)] | None = None
    type: Literal["question", "thesis"] | None = None
    status: Literal["queued", "running", "failed", "published"] | None = None
    offset: Offset = 0


def list_pages(ctx: ToolContext, inp: ListInput) -> dict[str, Any]:
    project = doc_selectors.project_get(org=ctx.org, project_id=inp.project_id) if inp.project_id else None
    pages, next_offset = page_selectors.pages_list(
        org=ctx.org, project=project, title=inp.title, type_=inp.type, status=inp.status, offset=inp.offset
    )
    return {"items": [list_item_shape(p) for p in pages], "nextOffset": next_offset}


register(Tool(name="pages.list", description="Pages, newest first", input=ListInput, run=list_pages, kind="reads"))


# --- read -------------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    page_id: PageId


def read(ctx: ToolContext, inp: ReadInput) -> dict[str, Any]:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    return read_shape(
        page, sources=page_selectors.sources_of(page=page),
        marks=page_selectors.marks_of(page=page, agent_id=_agent_id(ctx)),
        star_count=page_selectors.star_count(page=page), author=_author(ctx),
    )


register(Tool(name="pages.read", description="A page with its content and sources", input=ReadInput, run=read,
              kind="reads"))


# --- request ----------------------------------------------------------------------------------------------------


class RequestInput(ToolInput):
    project_id: ProjectId | None = None
    question: Annotated[str, Chars(1, 2000)]
    context: Annotated[str, Chars(0, 4000)] | None = None

    @field_validator("question")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must have words, not only spaces")
        return value


def request(ctx: ToolContext, inp: RequestInput) -> Done:
    if inp.project_id:
        project, filed = doc_selectors.project_get(org=ctx.org, project_id=inp.project_id), ""
    else:
        project = doc_services.project_filed_into(org=ctx.org, actor=ctx.actor, conversation_id=ctx.conversation_id)
        filed = f' in "{project.name}"'
    page = page_services.page_request(org=ctx.org, project=project, question=inp.question.strip(),
                                      context=(inp.context or "").strip(), agent_id=_agent_id(ctx))
    return Done(
        result={"pageId": str(page.id), "slug": page.slug, "generationToken": str(page.generation_token),
                "status": page.generation},
        sentence=f"asked for a research page, “{page.title}”{filed}",
        target_type="page",
        target_id=str(page.id),
        created=True,
    )


register(
    Tool(
        name="pages.request",
        description=("Start a research page on a question, in the project the owner names, else the one you file "
                     "into. A page costs money and has no price up front"),
        input=RequestInput,
        run=request,
        kind="makes",
        your_work="home",
        check_note=lambda ctx, inp: COST_NOTE,
        unavailable=lambda ctx: None if web_available() else f"{page_services.NO_WEB_SEARCH} No page was asked for.",
    )
)


# --- update -----------------------------------------------------------------------------------------------------


class Edit(ToolInput):
    label: Annotated[str, Chars(1, 120)]
    find: Annotated[str, Chars(1, 2000)]
    replace: Annotated[str, Chars(0, 2000)]
    was: Annotated[str, Chars(0, 60)] | None = None
    now: Annotated[str, Chars(0, 60)] | None = None


class Sentence(ToolInput):
    before: Annotated[str, Chars(1, 2000)]
    after: Annotated[str, Chars(1, 2000)]


class Source(ToolInput):
    label: Annotated[str, Chars(1, 200)]
    href: Annotated[str, Chars(1, 2000)]

    @field_validator("href")
    @classmethod
    def _web_address(cls, value: str) -> str:
        if not value.strip().lower().startswith(("http://", "https://")):
            raise ValueError("must be the web address (http or https) the new figures come from")
        return value


class UpdateInput(ToolInput):
    page_id: PageId
    title: Annotated[str, Chars(1, 200)] | None = None
    edits: Annotated[list[Edit], Field(min_length=1, max_length=12)]
    sentence: Sentence | None = None
    source: Source
    quote: Annotated[str, Chars(0, 1000)] | None = None


class UpdateUndo(TypedDict):
    """What pages.update's Undo reads: the revision to put back, and the one it replaced (to see it is still there)."""

    restore: str
    expect: str


def update(ctx: ToolContext, inp: UpdateInput) -> Done:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    revision, before, done = page_services.page_update(
        page=page, title=inp.title, edits=[e.model_dump() for e in inp.edits],
        sentence=inp.sentence.model_dump() if inp.sentence else None,
        source=inp.source.model_dump(), quote=inp.quote,
    )
    replaced = "; ".join(done)
    return Done(
        result={"pageId": str(page.id), "replaced": replaced,
                "published": {"revisionId": str(revision.id), "revisionNumber": revision.number}},
        sentence=f"changed figures in “{revision.title}”: {replaced}"[:500],
        target_type="page",
        target_id=str(page.id),
        undo=UpdateUndo(restore=str(before.id), expect=str(revision.id)),
    )


def update_replaces(ctx: ToolContext, inp: UpdateInput) -> dict[str, Any] | None:
    """What the edits would overwrite, for the check: the page's title and the words each edit replaces."""
    try:
        page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    except ToolError:
        return None
    return {"page": page.title, "words": [e.find for e in inp.edits]}


def undo_update(*, org: Organization, actor: Actor, change: Change) -> None:
    page = page_selectors.page_get(org=org, page_id=change.target_id)
    undo: UpdateUndo = undo_data(change)
    page_services.page_revision_restore(page=page, restore_id=undo["restore"], expect_id=undo["expect"])


register(
    Tool(
        name="pages.update",
        description=("Change figures in a page the owner requested, each edit replacing words the page has now; "
                     "label names the figure"),
        input=UpdateInput,
        run=update,
        kind="changes",
        your_work="home_undo",
        undo=undo_update,
        replaces=update_replaces,
    )
)


# --- move -------------------------------------------------------------------------------------------------------


class MoveInput(ToolInput):
    page_id: PageId
    project_id: ProjectId


def move(ctx: ToolContext, inp: MoveInput) -> Done:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    project = doc_selectors.project_get(org=ctx.org, project_id=inp.project_id)
    was = page.project.name
    page_services.page_move(page=page, project=project)
    return Done(
        result={"id": str(page.id), "projectId": str(project.id)},
        sentence=f"moved the research page “{page.title}” from “{was}” to “{project.name}”",
        target_type="page",
        target_id=str(page.id),
    )


def move_replaces(ctx: ToolContext, inp: MoveInput) -> dict[str, Any] | None:
    try:
        page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    except ToolError:
        return None
    return {"page": page.title, "project": page.project.name}


register(
    Tool(
        name="pages.move",
        description="Move a page to another project",
        input=MoveInput,
        run=move,
        kind="changes",
        your_work="home",
        replaces=move_replaces,
    )
)


# --- mark -------------------------------------------------------------------------------------------------------


class MarkInput(ToolInput):
    page_id: PageId
    action: Literal["star", "follow"]
    enabled: StrictBool  # true or false, as the spec types it: "yes" or 1 is not taken


MARK_WORDS = {("star", True): "starred", ("star", False): "unstarred",
              ("follow", True): "followed", ("follow", False): "stopped following"}


def mark(ctx: ToolContext, inp: MarkInput) -> dict[str, Any] | Done:
    page = page_selectors.page_get(org=ctx.org, page_id=inp.page_id)
    result = {"pageId": str(page.id), "action": inp.action, "enabled": inp.enabled}
    changed = page_services.page_mark(page=page, agent_id=_agent_id(ctx), action=inp.action, enabled=inp.enabled)
    if not changed:
        return result  # it was so already: nothing new to list
    return Done(result=result, sentence=f"{MARK_WORDS[(inp.action, inp.enabled)]} the research page “{page.title}”",
                target_type="page", target_id=str(page.id))


register(Tool(name="pages.mark", description="Star or follow a page", input=MarkInput, run=mark, kind="makes",
              your_work="home"))


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "pages.list": {
        "projectId": "Only pages in this project",
        "title": "Part of a title",
        "type": "question or thesis",
        "status": "Only pages at this stage",
        "offset": "nextOffset from the last page, for the next; 0 for the first",
    },
    "pages.read": {
        "pageId": "The page's id, from pages.list",
    },
    "pages.request": {
        "projectId": "The project the page goes in",
        "question": "The question the page answers",
        "context": "What the researcher should know first",
    },
    "pages.update": {
        "pageId": "The page's id, from pages.list",
        "title": "A new title",
        "edits": "Each a passage to find, word for word, and what replaces it",
        "sentence": "A sentence to add, and where",
        "source": "The source the change rests on",
        "quote": "The source's words, quoted",
    },
    "pages.move": {
        "pageId": "The page's id, from pages.list",
        "projectId": "The project it goes to",
    },
    "pages.mark": {
        "pageId": "The page's id, from pages.list",
        "action": "star, or follow for its updates",
        "enabled": "true to mark it, false to unmark",
    },
})
