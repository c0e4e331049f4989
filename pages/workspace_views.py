"""The workspace page (/workspace/): the files in each agent's folder and in shared, for the owner to see and
download or delete. Only the signed-in owner's own workspace; a path is checked as the tools check it (no `..`, no
links out), and anything else is a 404.

A run can leave a file of any name (a line break, bytes that aren't UTF-8): the page lists it with its name shown
safely and links it by its listing key, so the page never fails on it and the owner can delete it. A download is
always an attachment, sent as plain bytes unless its type is one a browser won't run (never script or HTML from
Roadstar's own origin), with nosniff and a sandboxing CSP besides."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from agents.models import Agent
from core.actors import Actor
from core.errors import ToolError
from core.http import workspace_or_404
from integrations.files import content
from pages import selectors
from pages.views import _page
from workspace import folders, sandbox

SHARED = "shared"


def _place(org, agent):
    return folders.place_for(org=org, actor=Actor.for_agent(agent))


@login_required
def workspace(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    sections = []
    shared_base = None
    for agent in selectors.agents_of(org=org):
        place = _place(org, agent)
        shared_base = place.shared
        files = [f for f in folders.listing(place.folder) if not _hidden(f["path"])] if place.folder.is_dir() else []
        sections.append({"key": str(agent.id), "title": f"{agent.name}'s folder", "files": files})
    shared = folders.listing(shared_base) if shared_base is not None and shared_base.is_dir() else []
    sections.append({"key": SHARED, "title": "Shared", "files": [f for f in shared if not _hidden(f["path"])]})
    return _page(request, org, "pages/workspace.html", {"sections": sections, "unavailable": sandbox.availability()})


def _hidden(path: str) -> bool:
    # Roadstar's own half-written files (a write renames its new file over the old) are not the agents' files.
    return any(part.startswith(".") and ".roadstar-" in part for part in path.split("/"))


@login_required
def workspace_file(request: HttpRequest, folder: str, path: str) -> HttpResponse:
    org = workspace_or_404(request)
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
    return _download(data, target.name.encode("utf-8"))


def _base(org, folder: str):
    """The folder on this machine the page's `folder` names: an agent's of this workspace, or shared."""
    agent = selectors.agents_of(org=org)[0] if folder == SHARED else selectors.agent_get(org=org, agent_id=folder)
    if agent is None:
        raise Http404("No such agent in this workspace.")
    place = _place(org, agent)
    return place.shared if folder == SHARED else place.folder


@login_required
def workspace_file_by_key(request: HttpRequest, folder: str, key: str) -> HttpResponse:
    org = workspace_or_404(request)
    try:
        name, data = folders.read_listed(_base(org, folder), key, limit=content.MAX_FILE_BYTES)
    except (FileNotFoundError, ValueError) as error:
        raise Http404("No such file in this folder.") from error
    return _download(data, name)


@login_required
@require_POST
def workspace_file_delete(request: HttpRequest, folder: str, key: str) -> HttpResponse:
    org = workspace_or_404(request)
    if not folders.remove_listed(_base(org, folder), key):
        raise Http404("No such file in this folder.")
    return HttpResponseRedirect(reverse("pages:workspace") + f"#folder-{folder}")


# Types a browser shows without running anything; everything else (HTML, script, SVG, XML, unknown) goes as bytes.
_SHOWN_AS_IS = {"application/pdf", "text/plain", "text/csv", "application/json", "application/zip", "image/png",
                "image/jpeg", "image/gif", "image/webp"}


def _download(data: bytes, name: bytes) -> HttpResponse:
    mime = content.mime_of(name.decode("utf-8", "replace"))
    if mime not in _SHOWN_AS_IS and not mime.startswith("application/vnd."):
        mime = "application/octet-stream"
    response = HttpResponse(data, content_type=mime)
    response["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(name, safe='')}"
    response["X-Content-Type-Options"] = "nosniff"
    # Opened in a tab anyway, it runs nothing and reaches nothing of Roadstar's.
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return response
