"""Reads of research pages and their comments, scoped by the workspace: another workspace's page or comment is
`not_found`, as one that doesn't exist."""

from __future__ import annotations

import base64
import datetime

from django.db.models import Q

from core.errors import ToolError, not_found
from core.inputs import Uuid, as_uuid
from research.models import PageComment, PageMark, PageSource, ResearchPage

PAGE_SIZE = 20
# One window of a page's discussion holds up to this many comments (top-level ones with all their replies);
# comments.list's `cursor` (its nextCursor) gives the next window.
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


def comment_window(*, page: ResearchPage, cursor: str | None = None
                   ) -> tuple[list[tuple[PageComment, list[PageComment]]], str | None]:
    """A window of the page's discussion: top-level comments oldest first, each with all its replies, up to
    COMMENT_WINDOW comments in all (a first comment with more replies than that still comes whole); after `cursor`
    when given. Returns the window and the cursor of the next one (None at the end)."""
    after = _cursor_read(cursor) if cursor else None
    tops = PageComment.objects.filter(page=page, parent__isnull=True).order_by("created_at", "id")
    if after is not None:
        at, last_id = after
        tops = tops.filter(Q(created_at__gt=at) | Q(created_at=at, id__gt=last_id))
    chosen = list(tops[:COMMENT_WINDOW + 1])
    replies: dict = {}
    for reply in PageComment.objects.filter(page=page, parent_id__in=[t.id for t in chosen]).order_by(
            "created_at", "id"):
        replies.setdefault(reply.parent_id, []).append(reply)
    window: list[tuple[PageComment, list[PageComment]]] = []
    count = 0
    for top in chosen:
        size = 1 + len(replies.get(top.id, []))
        if window and count + size > COMMENT_WINDOW:
            break
        window.append((top, replies.get(top.id, [])))
        count += size
    more = len(window) < len(chosen)
    return window, _cursor_of(window[-1][0]) if more and window else None


def _cursor_of(comment: PageComment) -> str:
    raw = f"{comment.created_at.isoformat()}|{comment.id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _cursor_read(cursor: str) -> tuple[datetime.datetime, Uuid]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, _, last = raw.partition("|")
        last_id = as_uuid(last)
        if last_id is None:
            raise ValueError(last)
        return datetime.datetime.fromisoformat(at), last_id
    except (ValueError, UnicodeDecodeError) as error:
        raise ToolError("bad_input", "cursor: pass nextCursor exactly as comments.list gave it") from error
