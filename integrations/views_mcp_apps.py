"""The owner's other apps, by their MCP address: the page to add one (or connect it again), and the OAuth callback.

Roadstar signs in to the app as an OAuth client (integrations/mcp_apps.py: discovery, dynamic registration, PKCE
S256, the resource). The first half's state, verifier and registration wait in the owner's session, used once; the
callback trades the code, reads the app's tools, and writes the connection in one short transaction after
(integrations/mcp_apps_services.py). No transaction is open while the app is called.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.http import workspace_or_404
from integrations import mcp_apps, mcp_apps_services
from integrations.models import McpApp

logger = logging.getLogger(__name__)

SESSION_KEY = "integrations.oauth.apps"


def _redirect_uri(request) -> str:
    # Roadstar's own address when it is set (behind a proxy the request's may not be the one the app can send
    # the owner back to), else the one this request came to.
    path = reverse("integrations:apps_callback")
    return settings.ROADSTAR_URL.rstrip("/") + path if settings.ROADSTAR_URL else request.build_absolute_uri(path)


def _page(request, org, *, status=200, **extra):
    again = None
    key = extra.pop("account", None) or request.GET.get("account", "")
    if key:
        again = (
            McpApp.objects.filter(organization=org, connection__account_key=key).select_related("connection").first()
        )
    context = {
        "org": org, "apps": mcp_apps_services.mcp_apps(org=org), "again": again,
        "address": extra.pop("address", None) or (again.url if again else ""), **extra,
    }
    return render(request, "integrations/apps.html", context, status=status)


@login_required
@require_GET
def page(request):
    return _page(request, workspace_or_404(request))


@never_cache
@login_required
@require_POST
def start(request):
    org = workspace_or_404(request)
    url = request.POST.get("address", "").strip()
    problem = mcp_apps.address_problem(url)
    if problem:
        return _page(request, org, status=400, error=problem, address=url)
    try:
        pending = mcp_apps.start(url=url, redirect_uri=_redirect_uri(request))
    except mcp_apps.AppProblem as e:
        logger.info("could not start signing in to %s: %s", url, e)
        return _page(request, org, status=502, error=f"Roadstar couldn't sign in to that app: {e}", address=url)
    authorize_url = pending.pop("authorize_url")
    request.session[SESSION_KEY] = pending
    # A page with the link, not a redirect: the form's POST may only go on to Roadstar itself (CSP form-action), and
    # the owner sees where they are sent to sign in.
    return render(request, "integrations/apps_continue.html", {
        "org": org, "authorize_url": authorize_url, "host": urlsplit(authorize_url).netloc, "address": url,
    })


@never_cache
@login_required
@require_GET
def callback(request):
    org = workspace_or_404(request)
    pending = request.session.pop(SESSION_KEY, None)
    if not pending or not request.GET.get("state") or request.GET["state"] != pending.get("state"):
        return _page(request, org, status=400, error="That sign-in can't be finished: it wasn't started from this "
                     "browser, or it was finished already. Add the app again.")
    url = pending["url"]
    if request.GET.get("error") or not request.GET.get("code"):
        return _page(request, org, status=400, address=url,
                     error="The app said access wasn't allowed, so Roadstar connected nothing.")
    try:
        tokens = mcp_apps.finish(pending=pending, code=request.GET["code"])
        server = mcp_apps.read_server(url=url, access_token=tokens["access_token"])
    except mcp_apps.AppProblem as e:
        logger.info("could not finish signing in to %s: %s", url, e)
        return _page(request, org, status=502, address=url, error=f"Roadstar couldn't finish signing in: {e}")
    connection, cards = mcp_apps_services.mcp_app_connected(
        org=org, url=url, server=server, oauth=pending["oauth"], tokens=tokens
    )
    count = len(server.tools)
    text = f"Connected {connection.account}: {count} tool{'s' if count != 1 else ''} for your agents."
    if cards:
        text += " The agents that asked for it will be told."
    messages.success(request, text)
    return redirect("integrations:apps")

