"""The owner's page for outside AI apps and Mac programs: the connection tokens, making one, revoking one.

A token is shown once, on the page that answers the form that made it, and never again (only its SHA-256 is
kept). Every page is the signed-in owner's own workspace; another workspace's ids are not found.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.csp import CSP
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents.models import Agent
from core.errors import ToolError
from core.http import workspace_or_404
from mcp_server import oauth, selectors, services
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
    return _page(request, workspace_or_404(request))


@never_cache
@login_required
@require_POST
def make(request):
    org = workspace_or_404(request)
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
    org = workspace_or_404(request)
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
    org = workspace_or_404(request)
    agent = Agent.objects.filter(organization=org, id=agent_id).select_related("organization").first()
    if agent is None or filename not in MAC_FILES:
        raise Http404("No such agent or file.")
    response = HttpResponse(mac_instructions(agent, filename=filename), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- an outside app signing in through Roadstar: the owner's consent --------------------------------------------


def _consent_page(request, org, pending, *, status=200, **extra):
    context = {"org": org, "pending": pending, "agents": _agents(org), "key": extra.pop("key", ""), **extra}
    if pending is not None:
        back = urlsplit(pending.redirect_uri)
        context["back_to"] = pending.redirect_uri
        context["back_host"] = back.netloc
        response = render(request, "mcp_server/consent.html", context, status=status)
        # The answer's POST redirects to the app's registered redirect URI, and Chromium applies form-action to
        # that redirect: this page's forms may go there too, and nowhere else.
        response._csp_config = {  # type: ignore[attr-defined]
            **settings.SECURE_CSP, "form-action": [CSP.SELF, f"{back.scheme}://{back.netloc}"],
        }
        return response
    return render(request, "mcp_server/consent.html", context, status=status)


@never_cache
@login_required
def consent(request, key: str):
    """The authorize page: which app asks, where it sends the owner back, which agent it works as; yes or no.

    Reached from the SDK's /authorize, which checked the app and its redirect URI. The owner's answer sends the
    browser to that registered URI only (with a code, or access_denied); an unknown or spent key shows a page
    and sends the browser nowhere.
    """
    org = workspace_or_404(request)
    pending = oauth.oauth_request(key)
    if pending is None:
        return _consent_page(request, org, None, status=404)
    if request.method == "GET":
        return _consent_page(request, org, pending, key=key)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    try:
        if request.POST.get("answer") == "refuse":
            return redirect(oauth.oauth_consent_refuse(key=key))
        agent = None
        agent_id = request.POST.get("agent")
        if agent_id:
            try:
                agent = Agent.objects.filter(organization=org, id=agent_id).first()
            except ValidationError:  # not a UUID: no such agent
                pass
        if agent is None:
            return _consent_page(request, org, pending, status=400, key=key,
                                 error="Choose which agent the app works as.")
        _, back = oauth.oauth_consent_approve(org=org, key=key, agent=agent)
    except ToolError:  # answered meanwhile, in another tab, or expired
        return _consent_page(request, org, None, status=404)
    return redirect(back)
