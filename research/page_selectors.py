"""Reads of research pages and their comments, scoped by the workspace: another workspace's page or comment is
`not_found`, as one that doesn't exist."""

from __future__ import annotations

from core.errors import ToolError, not_found
from core.inputs import as_uuid
from research.models import PageComment, PageMark, PageSource, ResearchPage

PAGE_SIZE = 20
# comments.list takes no cursor, so one window holds a page's whole discussion up to this many comments.
COMMENT_WINDOW = 200


def page_get(*, org, page_id) -> ResearchPage:
    parsed = as_uuid(page_id)
    page = (ResearchPage.objects.filter(organization=org, id=parsed).select_related("project", "current_revision")
            .first() if parsed else None)
    if page is None:
        raise not_found("page", page_id)
    return page


def pages_list(*, org, project=None, title: str | None = None, type_: str | None = None,
               status: str | None = None, offset: int = 0) -> tuple[list[ResearchPage], int | None]:
    """Pages, newest first. `status` is the spec's filter: queued, running and failed are where a page's
    generation stands; published, a page that is out."""
    rows = ResearchPage.objects.filter(organization=org).select_related("project").order_by("-created_at", "-id")
    if project is not None:
        rows = rows.filter(project=project)
    if title:
        rows = rows.filter(title__icontains=title.strip())
    if type_:
        rows = rows.filter(type=type_)
    if status == "published":
        rows = rows.filter(status=ResearchPage.Status.PUBLISHED)
    elif status:
        rows = rows.filter(generation=status)
    found = list(rows[offset:offset + PAGE_SIZE + 1])
    more = len(found) > PAGE_SIZE
    return found[:PAGE_SIZE], (offset + PAGE_SIZE if more else None)


def sources_of(*, page: ResearchPage) -> list[PageSource]:
    return list(PageSource.objects.filter(page=page).order_by("citation_number"))


def marks_of(*, page: ResearchPage, agent_id) -> set[str]:
    """What `agent_id` (None: the owner) has on the page: star, follow."""
    rows = PageMark.objects.filter(page=page)
    rows = rows.filter(agent_id=agent_id) if agent_id else rows.filter(agent_id__isnull=True)
    return set(rows.values_list("action", flat=True))


def star_count(*, page: ResearchPage) -> int:
    return PageMark.objects.filter(page=page, action=PageMark.Action.STAR).count()


def followers_of(*, page: ResearchPage) -> list:
    """The agents following the page (their ids): the owner's comments wake them."""
    return list(PageMark.objects.filter(page=page, action=PageMark.Action.FOLLOW, agent_id__isnull=False)
                .values_list("agent_id", flat=True))


def comment_get(*, page: ResearchPage, comment_id) -> PageComment:
    parsed = as_uuid(comment_id)
    comment = PageComment.objects.filter(page=page, id=parsed).first() if parsed else None
    if comment is None:
        raise ToolError("not_found", f"parentId: no comment with id {comment_id} on this page; take ids from "
                                     "comments.list")
    return comment


def comment_window(*, page: ResearchPage) -> tuple[list[tuple[PageComment, list[PageComment]]], bool]:
    """The page's comments, oldest first, each top-level one with its replies; and whether more were left off."""
    rows = list(PageComment.objects.filter(page=page).order_by("created_at", "id")[:COMMENT_WINDOW + 1])
    more = len(rows) > COMMENT_WINDOW
    rows = rows[:COMMENT_WINDOW]
    replies: dict = {}
    for row in rows:
        if row.parent_id:
            replies.setdefault(row.parent_id, []).append(row)
    return [(row, replies.get(row.id, [])) for row in rows if row.parent_id is None], more
