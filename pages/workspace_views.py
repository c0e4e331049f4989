"""The workspace page (/workspace/): the files in each agent's folder and in shared, for the owner to see and
download. Only the signed-in owner's own workspace; a path is checked as the tools check it (no `..`, no links out),
and anything else is a 404."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse

from agents.models import Agent
from core.actors import Actor
from core.errors import ToolError
from integrations.files import content
from pages import selectors
from pages.views import _page, _workspace
from workspace import folders

SHARED = "shared"


def _place(org, agent):
    return folders.place_for(org=org, actor=Actor.for_agent(agent))


@login_required
def workspace(request: HttpRequest) -> HttpResponse:
    org = _workspace(request)
    sections = []
    shared_base = None
    for agent in selectors.agents_of(org=org):
        place = _place(org, agent)
        shared_base = place.shared
        files = [f for f in folders.listing(place.folder) if not _hidden(f["path"])] if place.folder.is_dir() else []
        sections.append({"key": str(agent.id), "title": f"{agent.name}'s folder", "files": files})
    shared = folders.listing(shared_base) if shared_base is not None and shared_base.is_dir() else []
    sections.append({"key": SHARED, "title": "Shared", "files": [f for f in shared if not _hidden(f["path"])]})
    return _page(request, org, "pages/workspace.html", {"sections": sections})


def _hidden(path: str) -> bool:
    # Roadstar's own half-written files (a write renames its new file over the old) are not the agents' files.
    return any(part.startswith(".") and ".roadstar-" in part for part in path.split("/"))


@login_required
def workspace_file(request: HttpRequest, folder: str, path: str) -> HttpResponse:
    org = _workspace(request)
    if folder == SHARED:
        agent: Agent | None = selectors.agents_of(org=org)[0]
        shown = f"/work/shared/{path}"
    else:
        agent = selectors.agent_get(org=org, agent_id=folder)
        shown = path
    if agent is None:
        raise Http404("No such agent in this workspace.")
    place = _place(org, agent)
    try:
        target = folders.target(place, shown)
        if folder != SHARED and target.base != place.folder:
            raise Http404("No such file.")
        data = folders.read_bytes(target, raw=path, limit=content.MAX_FILE_BYTES)
    except ToolError as error:
        raise Http404("No such file in this folder.") from error
    response = HttpResponse(data, content_type=content.mime_of(target.name))
    response["Content-Disposition"] = f"attachment; filename*=UTF-8''{_quoted(target.name)}"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _quoted(name: str) -> str:
    return quote(name, safe="")
