"""Research pages in the spec's shapes (spec/tools/pages.md, comments.md): what pages.list, pages.read and
comments.list return, and the writer's document (`GeneratedPageDocumentModel`'s artifact) as a pydantic model, so
what a model wrote is held to the shape before it is kept, and a figure can't be kept without a source."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.timefmt import iso
from research.models import PageComment, PageSource, ResearchPage

ROADSTAR = "Roadstar"  # how what an agent writes shows (spec/tools/comments.md)

# --- the writer's document ---------------------------------------------------------------------------------------

_Short = Annotated[str, Field(max_length=300)]
_Ids = Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=20)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChartSeries(_Strict):
    key: _Short
    label: _Short
    unit: _Short | None = None


class ChartRow(_Strict):
    x: _Short
    values: Annotated[list[float | None], Field(max_length=12)]
    sourceDocumentIds: _Ids  # noqa: N815  (the spec's names)


class Chart(_Strict):
    id: _Short
    title: _Short
    type: Literal["bar", "line", "area", "donut"]
    description: Annotated[str, Field(max_length=2000)] | None = None
    noteMarkdown: Annotated[str, Field(max_length=2000)] | None = None  # noqa: N815
    series: Annotated[list[ChartSeries], Field(min_length=1, max_length=12)]
    rows: Annotated[list[ChartRow], Field(max_length=60)]
    xLabel: _Short | None = None  # noqa: N815
    yLabel: _Short | None = None  # noqa: N815


class TableRow(_Strict):
    cells: Annotated[list[Annotated[str, Field(max_length=1000)]], Field(max_length=12)]
    sourceDocumentIds: _Ids  # noqa: N815


class DataTable(_Strict):
    id: _Short
    title: _Short
    columns: Annotated[list[_Short], Field(min_length=1, max_length=12)]
    rows: Annotated[list[TableRow], Field(max_length=60)]


class TimelineItem(_Strict):
    id: _Short
    title: _Short
    date: Annotated[str, Field(max_length=10)] | None = None
    datePrecision: Literal["day", "month", "year"] | None = None  # noqa: N815
    bodyMarkdown: Annotated[str, Field(max_length=4000)]  # noqa: N815
    analysisMarkdown: Annotated[str, Field(max_length=4000)]  # noqa: N815
    sourceDocumentIds: _Ids  # noqa: N815


class Timeline(_Strict):
    id: Literal["primary_timeline"]
    items: Annotated[list[TimelineItem], Field(max_length=40)]


class Visualization(_Strict):
    id: _Short
    title: _Short
    description: Annotated[str, Field(max_length=2000)]
    specJson: Annotated[str, Field(max_length=20_000)]  # noqa: N815
    sourceDocumentIds: _Ids  # noqa: N815


class Artifact(_Strict):
    version: Literal[1] = 1
    synopsisMarkdown: Annotated[str, Field(min_length=1, max_length=4000)]  # noqa: N815
    bodyMdx: Annotated[str, Field(min_length=1, max_length=60_000)]  # noqa: N815
    charts: Annotated[list[Chart], Field(max_length=8)] = []
    dataTables: Annotated[list[DataTable], Field(max_length=8)] = []  # noqa: N815
    timelines: Annotated[list[Timeline], Field(max_length=1)] = []
    counterViewMarkdown: Annotated[str, Field(max_length=6000)] | None = None  # noqa: N815
    visualizations: Annotated[list[Visualization], Field(max_length=6)] | None = None


# Where a page's words are, for pages.update's find-and-replace: the text fields of the artifact, by path.
def text_fields(artifact: dict) -> list[tuple[tuple, str]]:
    """(path, text) of every piece of words in the artifact a figure can sit in, in reading order."""
    found: list[tuple[tuple, str]] = []
    for key in ("synopsisMarkdown", "bodyMdx", "counterViewMarkdown"):
        if isinstance(artifact.get(key), str):
            found.append(((key,), artifact[key]))
    for t, table in enumerate(artifact.get("dataTables") or []):
        for r, row in enumerate(table.get("rows") or []):
            for c, cell in enumerate(row.get("cells") or []):
                found.append((("dataTables", t, "rows", r, "cells", c), cell))
    for t, timeline in enumerate(artifact.get("timelines") or []):
        for i, item in enumerate(timeline.get("items") or []):
            for key in ("title", "bodyMarkdown", "analysisMarkdown"):
                found.append((("timelines", t, "items", i, key), item.get(key) or ""))
    for c, chart in enumerate(artifact.get("charts") or []):
        for key in ("title", "description", "noteMarkdown"):
            if isinstance(chart.get(key), str):
                found.append((("charts", c, key), chart[key]))
    return found


def set_at(artifact: dict, path: tuple, value: str) -> None:
    holder = artifact
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value


CITATION = re.compile(r"\[(\d{1,3})\](?!\()")  # [3] in the body, not a Markdown link's [text](…)


# --- the tools' shapes -----------------------------------------------------------------------------------------


def date_precision(value: str) -> str | None:
    return {4: "year", 7: "month", 10: "day"}.get(len(value or "")) if value else None


def source_shape(source: PageSource) -> dict:
    return {
        "citationNumber": source.citation_number,
        "crawlStatus": source.crawl_status,
        "datePrecision": date_precision(source.published_date),
        "id": str(source.id),
        "hasSnapshot": bool(source.text),
        "publishedDate": source.published_date or None,
        "title": source.title or source.url,
        "url": source.url,
    }


def list_item_shape(page: ResearchPage) -> dict:
    return {
        "id": str(page.id),
        "title": page.title,
        "type": page.type,
        "projectId": str(page.project_id),
        "projectName": page.project.name,
        "status": page.status,
        "generationStatus": page.generation,
        "updatedAt": iso(page.updated_at),
    }


def _base(page: ResearchPage) -> dict:
    return {
        "projectId": str(page.project_id),
        "organizationId": str(page.organization_id),
        "agentId": str(page.agent_id) if page.agent_id else None,
    }


def page_url(page: ResearchPage) -> str:
    return f"/research/{page.id}/"


def read_shape(page: ResearchPage, *, sources: list[PageSource], marks: set[str], star_count: int,
               author: str) -> dict:
    """pages.read: a generating, failed, unavailable or ready page, as the spec's union has each."""
    head = {"id": str(page.id), "slug": page.slug, "title": page.title, "type": page.type}
    if page.generation == ResearchPage.Generation.FAILED:
        return {**_base(page), "errorMessage": page.error_message, "page": head, "state": "failed"}
    if page.generation != ResearchPage.Generation.COMPLETED:
        return {**_base(page), "page": head, "phase": page.phase, "state": "generating"}
    revision = page.current_revision
    if revision is None or page.status == ResearchPage.Status.ARCHIVED:
        return {**_base(page), "page": {"id": str(page.id), "title": page.title, "type": page.type},
                "state": "unavailable"}
    artifact = revision.artifact
    words = len(re.findall(r"\w+", " ".join(text for _, text in text_fields(artifact))))
    return {
        **_base(page),
        "type": "question",
        "author": {"image": None, "name": author},
        "canonicalUrl": page_url(page),
        "description": _plain(artifact.get("synopsisMarkdown", ""))[:300],
        "currentRevisionId": str(revision.id),
        "id": str(page.id),
        "isAuthenticated": True,
        "isFollowing": "follow" in marks,
        "isStarred": "star" in marks,
        "isPublished": page.status == ResearchPage.Status.PUBLISHED,
        "model": {"artifact": artifact, "sources": [source_shape(s) for s in sources], "title": revision.title},
        "publishedAt": iso(page.published_at) if page.published_at else iso(revision.created_at),
        "slug": page.slug,
        "state": "ready",
        "starCount": star_count,
        "wordCount": words,
    }


def _plain(markdown: str) -> str:
    return " ".join(re.sub(r"[*_`#>\[\]]", "", CITATION.sub("", markdown)).split())


def comment_shape(comment: PageComment, *, replies: list[PageComment] | None, owner_name: str) -> dict:
    by_agent = comment.agent_id is not None
    removed = comment.removed_at is not None
    return {
        "assistant": None,
        "author": {"image": None, "name": ROADSTAR if by_agent else owner_name, "username": None},
        "bodyMarkdown": None if removed else comment.text,
        "canEdit": False,
        "canRemove": False,
        "canReport": False,
        "children": None if replies is None else {
            "items": [comment_shape(r, replies=None, owner_name=owner_name) for r in replies], "nextCursor": None,
        },
        "createdAt": iso(comment.created_at),
        "directReplyCount": len(replies or []),
        "editedAt": None,
        "id": str(comment.id),
        "isLiked": False,
        "likeCount": 0,
        "parentId": str(comment.parent_id) if comment.parent_id else None,
        "removedAt": iso(comment.removed_at) if removed else None,
    }
