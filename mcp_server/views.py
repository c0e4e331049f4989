"""The owner's page for outside AI apps and Mac programs: the connection tokens, making one, revoking one.

A token is shown once, on the page that answers the form that made it, and never again (only its SHA-256 is
kept). Every page is the signed-in owner's own workspace; another workspace's ids are not found.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents.models import Agent
from core.errors import ToolError
from core.http import workspace_or_404 as _workspace
from mcp_server import selectors, services
from mcp_server.instructions import MAC_FILES, mac_instructions
from mcp_server.server import mcp_url


def _agents(org):
    return list(Agent.objects.filter(organization=org).order_by("-is_roadstar", "name"))


def _page(request, org, *, status=200, **extra):
    context = {"org": org, "tokens": selectors.mcp_tokens(org=org), "agents": _agents(org),
               "mcp_url": mcp_url(request), "roadstar_url_set": bool(settings.ROADSTAR_URL),
               "mac_files": list(MAC_FILES), **extra}
    return render(request, "mcp_server/index.html", context, status=status)


@login_required
@require_GET
def index(request):
    return _page(request, _workspace(request))


@never_cache
@login_required
@require_POST
def make(request):
    org = _workspace(request)
    name = request.POST.get("name", "")
    agent_id = request.POST.get("agent")
    agent = None
    if agent_id:
        try:
            agent = Agent.objects.filter(organization=org, id=agent_id).first()
        except ValidationError:  # not a UUID: no such agent
            pass
    if agent is None:
        return _page(request, org, status=400, error="Choose which agent the app works as.", name=name)
    try:
        token, plaintext = services.mcp_token_make(org=org, agent=agent, name=name)
    except ToolError as error:
        return _page(request, org, status=400, error=error.message.split(": ", 1)[-1], name=name, chosen=agent.id)
    return render(request, "mcp_server/made.html", {
        "org": org, "token": token, "plaintext": plaintext, "mcp_url": mcp_url(request),
        "mac": agent.runs_on == Agent.RunsOn.MAC, "mac_files": list(MAC_FILES),
    })


@login_required
@require_POST
def revoke(request, token_id):
    org = _workspace(request)
    try:
        token = services.mcp_token_revoke(org=org, token_id=token_id)
    except ToolError as exc:
        raise Http404("No such token in this workspace.") from exc
    messages.success(request, f"{token.name} can no longer connect.")
    return redirect("mcp_server:index")


@login_required
@require_GET
def agent_file(request, agent_id, filename: str):
    """An agent's CLAUDE.md or AGENTS.md, for its folder on the owner's Mac."""
    org = _workspace(request)
    agent = Agent.objects.filter(organization=org, id=agent_id).select_related("organization").first()
    if agent is None or filename not in MAC_FILES:
        raise Http404("No such agent or file.")
    response = HttpResponse(mac_instructions(agent, filename=filename), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
