"""The owner's Newsfeed page: which optional research groups the workspace has on (filings, the newsfeed, research
tables), and the feeds the newsfeed follows, for the whole workspace or one project: add one, remove one, see how
each last read.

It reads and writes through research's selectors and services, as the tools do. Another workspace's feed is a
404, and a button pressed on one changes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.errors import ToolError
from core.http import workspace_or_404
from core.inputs import as_uuid
from pages.views import _back_to, _page
from records.models import Project
from research import selectors, services
from research.models import Feed

STATE_WORDS: dict[str, str] = {  # by the feed's state (a text field)
    Feed.State.NEW: "Not read yet: the worker reads it within a minute.",
    Feed.State.OK: "",
    Feed.State.MALFORMED: "Roadstar can't read it as a feed.",
    Feed.State.UNREACHABLE: "It didn't answer on the last read.",
    Feed.State.REFUSED: "Roadstar doesn't read this address.",
}


@login_required
def newsfeed(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    settings = selectors.research_settings(org=org)
    feeds = selectors.feeds_of(org=org)
    projects = list(Project.objects.filter(organization=org).order_by("name"))
    brief = selectors.brief_today(org=org) if settings.newsfeed_on else None
    return _page(request, org, "pages/newsfeed.html", {
        "settings": settings,
        "feeds": [{"feed": f, "words": STATE_WORDS.get(f.state, "")} for f in feeds],
        "projects": projects,
        "stories": selectors.stories_today(org=org, limit=30) if settings.newsfeed_on else [],
        # Today's brief: a line a project the model wrote about, or the owner's words for why there is none yet
        # (no model connected, the budget spent); nothing before the day's first try.
        "brief": brief,
        "brief_lines": _brief_lines(brief, projects),
        "max_feeds": services.MAX_FEEDS,
    })


# How a brief's `effect` reads to the owner (the spec's direct / indirect / quiet).
EFFECT_WORDS = {"direct": "Bears on it directly", "indirect": "Bears on it indirectly", "quiet": "Nothing for it today"}


def _brief_lines(brief, projects) -> list[dict[str, str]]:
    if brief is None or brief.written_at is None:
        return []
    names = {str(project.id): project.name for project in projects}
    return [
        {"project": names.get(str(line.get("projectId")), "A project"),
         "effect": EFFECT_WORDS.get(str(line.get("effect")), ""), "text": str(line.get("text") or "")}
        for line in brief.projects if isinstance(line, dict)
    ]


@require_POST
@login_required
def research_groups(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    filings, newsfeed_on = request.POST.get("filings") == "1", request.POST.get("newsfeed") == "1"
    tables_on, pages_on = request.POST.get("tables") == "1", request.POST.get("pages") == "1"
    services.research_settings_set(org=org, filings=filings, newsfeed=newsfeed_on, tables=tables_on, pages=pages_on)
    on = [name for name, value in (("Filings", filings), ("Newsfeed", newsfeed_on), ("Research tables", tables_on),
                                   ("Research pages", pages_on))
          if value]
    messages.success(request, f"Your agents now have: {', '.join(on)}." if on else
                     "Your agents have no research tools now.")
    return _back_to(reverse("pages:newsfeed"), "research-groups")


@require_POST
@login_required
def feed_add(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    back = reverse("pages:newsfeed")
    url = request.POST.get("url", "").strip()
    project = None
    project_id = request.POST.get("project", "").strip()
    if project_id:
        wanted = as_uuid(project_id)
        project = Project.objects.filter(organization=org, id=wanted).first() if wanted is not None else None
        if project is None:
            messages.error(request, "That project isn't in your workspace any more. Pick another.")
            return _back_to(back, "add-feed")
    try:
        feed = services.feed_add(org=org, url=url, project=project)
    except ToolError as error:
        # bad_input names the field ("url: …"); the owner reads only the words after it.
        words = error.message.removeprefix("url: ").rstrip(".")
        messages.error(request, words[:1].upper() + words[1:] + ".")
        return _back_to(back, "add-feed")
    where = f" for {project.name}" if project else ""
    messages.success(request, f"Following {feed.url}{where}. Its stories show here after its first read.")
    return _back_to(back, f"feed-{feed.id}")


@require_POST
@login_required
def feed_remove(request: HttpRequest, feed_id) -> HttpResponse:
    org = workspace_or_404(request)
    try:
        feed = selectors.feed_get(org=org, feed_id=feed_id)
    except ToolError as exc:
        raise Http404("No such feed in this workspace.") from exc
    label = feed.title or feed.url
    services.feed_remove(feed=feed)
    messages.success(request, f"No longer following {label}; its stories are gone from the newsfeed.")
    return _back_to(reverse("pages:newsfeed"), "feeds")


