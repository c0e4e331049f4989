"""The owner's research pages: the list, and one page drawn as docs are (pages/mdx.py: Markdown, callouts,
metric grids, vega-lite charts), with numbered citations linked to its sources, its generation's progress live
(the page's region refetches on the "pages" live message), and the comments, where the owner writes too.

The page's document is the writer's GeneratedPageDocumentModel; it is turned into one MDX text here (charts as
<Chart> with a vega-lite spec made from the chart's rows, data tables as Markdown tables, the timeline as a list, the
counter-view as a callout) and rendered by the same renderer as docs, so nothing an agent or a web page wrote is
trusted more here than in a doc.
"""

from __future__ import annotations

import json
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from core.errors import ToolError
from core.http import workspace_or_404
from pages import mdx
from pages.links import WorkspaceLinks
from pages.views import _back_to, _offset, _page
from research import page_selectors, page_services
from research import selectors as research_selectors
from research.models import ResearchPage
from research.page_services import COMMENT_LIMIT

PHASE_WORDS = {
    "queued": "Waiting for a worker to start it.",
    "researching": "Searching the web and reading what it found.",
    "writing": "Writing the page from its sources.",
    "verifying": "Checking every figure against its sources.",
}


@login_required
def research_pages(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    offset = _offset(request)
    found, next_offset = page_selectors.pages_list(org=org, offset=offset)
    return _page(request, org, "pages/research_pages.html", {
        "pages": found, "next_offset": next_offset, "offset": offset,
        "on": research_selectors.group_on(org=org, group="pages"),
    })


def _page_or_404(org, page_id) -> ResearchPage:
    try:
        return page_selectors.page_get(org=org, page_id=page_id)
    except ToolError as exc:
        raise Http404("No such research page in this workspace.") from exc


@login_required
def research_page(request: HttpRequest, page_id) -> HttpResponse:
    org = workspace_or_404(request)
    page = _page_or_404(org, page_id)
    return _page(request, org, "pages/research_page.html", _context(request, org, page))


@login_required
def research_page_live(request: HttpRequest, page_id) -> HttpResponse:
    """The page's live parts (its progress and comments), fetched again when a live message says pages changed."""
    org = workspace_or_404(request)
    page = _page_or_404(org, page_id)
    return render(request, "partials/research_page_live.html", _context(request, org, page))


def _context(request, org, page: ResearchPage, **kept) -> dict:
    sources = page_selectors.sources_of(page=page)
    body = None
    revision = page.current_revision
    if page.generation == ResearchPage.Generation.COMPLETED and revision is not None:
        body = render_document(revision.artifact, sources=sources, links=WorkspaceLinks(org))
    window, _ = page_selectors.comment_window(page=page)
    return {
        "page": page, "revision": revision, "body": body, "sources": sources,
        "phase_words": PHASE_WORDS.get(page.phase, ""),
        "comments": window, "comment_limit": COMMENT_LIMIT, "comment_limit_words": f"{COMMENT_LIMIT:,}",
        "starred": "star" in page_selectors.marks_of(page=page, agent_id=None),
        **kept,
    }


@require_POST
@login_required
def research_page_comment(request: HttpRequest, page_id) -> HttpResponse:
    """The owner comments on the page (or replies to a comment): the agents following it are woken."""
    org = workspace_or_404(request)
    page = _page_or_404(org, page_id)
    text = request.POST.get("text", "").strip()
    parent = None
    parent_id = request.POST.get("parent", "").strip()
    if parent_id:
        try:
            parent = page_selectors.comment_get(page=page, comment_id=parent_id)
        except ToolError as exc:
            raise Http404("No such comment on this page.") from exc
    error = ""
    if not text:
        error = "Write your comment first."
    elif len(text) > COMMENT_LIMIT:
        error = (f"Your comment is {len(text):,} characters; a comment holds up to {COMMENT_LIMIT:,}. Shorten it "
                 "(it is below, as you wrote it) and post it again.")
    if error:
        return _page(request, org, "pages/research_page.html",
                     _context(request, org, page, comment_error=error, kept_comment=text), status=400)
    page_services.comment_add(page=page, text=text, parent=parent, agent_id=None)
    followers = len(page_selectors.followers_of(page=page))
    messages.success(request, "Comment posted." + (" The agents following this page will see it." if followers
                                                   else ""))
    return _back_to(reverse("pages:research_page", args=[page.id]), "comments")


@require_POST
@login_required
def research_page_star(request: HttpRequest, page_id) -> HttpResponse:
    org = workspace_or_404(request)
    page = _page_or_404(org, page_id)
    page_services.page_mark(page=page, agent_id=None, action="star", enabled=request.POST.get("star") == "1")
    return _back_to(reverse("pages:research_page", args=[page.id]), "page-head")


# --- the document as MDX -------------------------------------------------------------------------------------------

_MDX_SPECIAL = re.compile(r"([<>{}|\\`*_\[\]])")


def _plain(text) -> str:
    """Words from a chart or table (an agent's, from the web) as literal text in MDX and Markdown."""
    return _MDX_SPECIAL.sub(r"\\\1", " ".join(str(text or "").split()))


def _chart_spec(chart: dict) -> dict:
    """A vega-lite spec of the writer's chart, its data inline (the renderer refuses any other)."""
    values = []
    for row in chart["rows"]:
        for series, value in zip(chart["series"], row["values"], strict=False):
            if value is not None:
                values.append({"x": row["x"], "value": value, "series": series["label"]})
    mark = {"bar": "bar", "line": "line", "area": "area", "donut": "arc"}[chart["type"]]
    if mark == "arc":
        encoding = {"theta": {"field": "value", "type": "quantitative"},
                    "color": {"field": "x", "type": "nominal", "title": chart.get("xLabel") or ""}}
        return {"mark": {"type": "arc", "innerRadius": 50}, "data": {"values": values}, "encoding": encoding}
    encoding = {
        "x": {"field": "x", "type": "ordinal", "title": chart.get("xLabel") or "", "sort": None},
        "y": {"field": "value", "type": "quantitative", "title": chart.get("yLabel") or ""},
    }
    if len(chart["series"]) > 1:
        encoding["color"] = {"field": "series", "type": "nominal", "title": ""}
    return {"mark": mark, "data": {"values": values}, "encoding": encoding, "width": "container"}


def _cites(ids: list[str], numbers: dict[str, int]) -> str:
    return "".join(f"[{numbers[i]}]" for i in ids if i in numbers)


def document_mdx(artifact: dict, *, numbers: dict[str, int]) -> str:
    """The page's document as one MDX text: synopsis, body, charts, tables, timeline, counter-view."""
    parts = [f"<Callout tone=\"info\" title=\"In short\">\n\n{artifact.get('synopsisMarkdown', '')}\n\n</Callout>",
             artifact.get("bodyMdx", "")]
    for chart in artifact.get("charts") or []:
        spec = json.dumps(_chart_spec(chart), ensure_ascii=False)
        cited = " ".join(sorted({_cites(r["sourceDocumentIds"], numbers) for r in chart["rows"]}))
        parts.append(f"### {_plain(chart['title'])}\n\n<Chart title={json.dumps(chart['title'])}>\n\n"
                     f"```vega-lite\n{spec}\n```\n\n</Chart>\n\n"
                     + (f"{_plain(chart.get('description'))} " if chart.get("description") else "")
                     + f"Sources: {cited}")
    for table in artifact.get("dataTables") or []:
        head = "| " + " | ".join(_plain(c) for c in table["columns"]) + " | Sources |"
        rule = "| " + " | ".join("---" for _ in table["columns"]) + " | --- |"
        rows = ["| " + " | ".join(_plain(c) for c in row["cells"]) + f" | {_cites(row['sourceDocumentIds'], numbers)} |"
                for row in table["rows"]]
        parts.append(f"### {_plain(table['title'])}\n\n" + "\n".join([head, rule, *rows]))
    for timeline in artifact.get("timelines") or []:
        items = [f"- **{_plain(i.get('date') or 'Undated')}: {_plain(i['title'])}** {i['bodyMarkdown']} "
                 f"{_cites(i['sourceDocumentIds'], numbers)}" for i in timeline["items"]]
        parts.append("### Timeline\n\n" + "\n".join(items))
    if artifact.get("counterViewMarkdown"):
        parts.append(f"<Callout tone=\"warning\" title=\"The other view\">\n\n{artifact['counterViewMarkdown']}"
                     "\n\n</Callout>")
    return "\n\n".join(p for p in parts if p)


_CITED = re.compile(r"\[(\d{1,3})\]")


def render_document(artifact: dict, *, sources, links=None) -> mdx.Rendered:
    """The document rendered as a doc is, each [n] of a source the page has made a numbered link to it."""
    numbers = {str(s.id): s.citation_number for s in sources}
    known = {str(s.citation_number) for s in sources}
    rendered = mdx.render(document_mdx(artifact, numbers=numbers), links=links, id_prefix="page-chart")

    def cite(match):
        n = match.group(1)
        if n not in known:
            return match.group(0)
        return format_html('<sup class="cite"><a href="#source-{}" aria-label="Source {}">[{}]</a></sup>', n, n, n)

    # Only in the text between tags: an attribute or a chart's JSON is never touched.
    parts = re.split(r"(<[^>]*>)", str(rendered.html))
    inside_script = False
    for i, part in enumerate(parts):
        if part.startswith("<script"):
            inside_script = True
        elif part.startswith("</script"):
            inside_script = False
        elif not part.startswith("<") and not inside_script:
            parts[i] = _CITED.sub(cite, part)
    return mdx.Rendered(html=mark_safe("".join(parts)), charts=rendered.charts, problems=rendered.problems)
