"""The owner's pages for connecting apps: the list, each app's connect page, and the OAuth web flows.

Google: authorization code flow with PKCE (google-auth-oauthlib); the session keeps state and code_verifier
between the two halves, once. QuickBooks: intuit-oauth's AuthClient; the session keeps state. Every page is the
signed-in owner's own workspace (request.user.organization); the callbacks write only through services.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from core.actors import Actor
from core.errors import ToolError
from core.http import workspace_or_404
from core.models import Change
from core.owner_zone import owner_zone
from integrations import catalog, oauth, selectors, services
from integrations.clients import quickbooks_company_name
from integrations.local.models_mail import HeldEmail
from integrations.models import Connection, SearchCopy

logger = logging.getLogger(__name__)

SESSION_KEY = "integrations.oauth.{app}"
REDIRECT_SETTING = {"google": "GOOGLE_REDIRECT_URI", "quickbooks": "QUICKBOOKS_REDIRECT_URI",
                    "microsoft": "MICROSOFT_REDIRECT_URI"}


def _connectable(app: str) -> catalog.App:
    if app not in catalog.CONNECTABLE:
        raise Http404("No such app to connect.")
    return catalog.app(app)


def _connection(org, app: str, account_key: str) -> Connection | None:
    """The account being connected again (a reconnect card's link names it), in this workspace only."""
    if not account_key:
        return None
    return Connection.objects.filter(organization=org, app=app, account_key=account_key).first()


def _redirect_uri(request, app: str) -> str:
    return oauth.setting(REDIRECT_SETTING[app]) or request.build_absolute_uri(
        reverse(f"integrations:{app}_callback")
    )


def _write_groups(value: str, info: catalog.App) -> list[str]:
    return [g for g in value.split(",") if g in info.groups] if value else []


def _problem(request, *, title: str, text: str, app: str | None = None, status: int = 400):
    return render(request, "integrations/problem.html", {"title": title, "text": text, "app": app}, status=status)


@dataclass(frozen=True)
class ConnectionLine:
    """A connection as the page lists it, with its search copy's state."""

    connection: Connection
    searchable: bool
    copy: SearchCopy | None


@login_required
@require_GET
def index(request):
    org = workspace_or_404(request)
    copies = {c.connection_id: c for c in SearchCopy.objects.filter(connection__organization=org)}
    rows = [
        # Search is offered for the accounts whose mail, files or meetings it can copy; the copy's state shows.
        ConnectionLine(
            connection=row, searchable=row.is_connected and bool({"mail", "files", "calendar"} & set(row.groups)),
            copy=copies.get(row.id),
        )
        for row in selectors.connections(org=org)
    ]
    apps = [
        {"info": catalog.app(key), "missing": oauth.missing_settings(key)} for key in catalog.CONNECTABLE
    ]
    return render(request, "integrations/index.html", {"org": org, "connections": rows, "apps": apps})


@login_required
@require_GET
def connect(request, app: str):
    org = workspace_or_404(request)
    info = _connectable(app)
    account_key = request.GET.get("account", "")
    again = _connection(org, app, account_key)
    context = {
        "org": org,
        "info": info,
        "missing": oauth.missing_settings(app),
        "redirect_uri": _redirect_uri(request, app),
        "write": ",".join(_write_groups(request.GET.get("write", ""), info)),
        "write_labels": [info.group_labels[g] for g in _write_groups(request.GET.get("write", ""), info)],
        "again": again,
        "uses": [(info.group_labels[g], catalog.GROUP_USE[g]) for g in info.groups],
        "environment": oauth.quickbooks_environment() if app == "quickbooks" else None,
    }
    return render(request, "integrations/connect.html", context)


@login_required
@require_POST
def start(request, app: str):
    org = workspace_or_404(request)
    info = _connectable(app)
    if oauth.missing_settings(app):
        return redirect("integrations:connect", app=app)
    redirect_uri = _redirect_uri(request, app)
    try:
        if app == "google":
            again = _connection(org, app, request.POST.get("account", ""))
            login_hint = again.account if again else None
            pending = oauth.google_authorization(
                redirect_uri=redirect_uri, write_groups=_write_groups(request.POST.get("write", ""), info),
                login_hint=login_hint,
            )
        elif app == "microsoft":
            again = _connection(org, app, request.POST.get("account", ""))
            pending = oauth.microsoft_authorization(
                redirect_uri=redirect_uri, write_groups=_write_groups(request.POST.get("write", ""), info),
                login_hint=again.account if again else None,
            )
        else:
            pending = oauth.quickbooks_authorization(redirect_uri=redirect_uri)
    except Exception as e:  # noqa: BLE001  (the network, or intuit-oauth's discovery fetch failing: nothing to do but retry)
        logger.warning("could not start the %s sign-in: %s", app, e)
        return _problem(
            request, app=app, status=502, title=f"{info.label} didn't answer",
            text=f"Roadstar couldn't start the sign-in with {info.label}. Try again in a minute.",
        )
    url = pending.pop("url")
    request.session[SESSION_KEY.format(app=app)] = pending
    return redirect(url)


def _pending(request, app: str) -> dict | None:
    """The first half's state, used once: a callback can't be replayed."""
    pending = request.session.pop(SESSION_KEY.format(app=app), None)
    if not pending or not request.GET.get("state") or request.GET["state"] != pending.get("state"):
        return None
    return pending


def _stale(request, app: str):
    return _problem(
        request, app=app, title="That sign-in can't be finished",
        text="It wasn't started from this browser, or it was finished already. Start again from the connect page.",
    )


def _refused(request, app: str, info: catalog.App):
    return _problem(
        request, app=app, title="Nothing was connected",
        text=f"{info.label} said access wasn't allowed, so Roadstar connected nothing. You can start again any time.",
    )


def _connected(request, connection: Connection, cards) -> None:
    info = connection.app_info
    served = ", ".join(info.group_labels[g] for g in connection.groups)
    text = f"Connected {connection.account}: {served}."
    if cards:
        text += " The agents that asked for it will be told."
    messages.success(request, text)


# Who runs each sign-in, as the owner knows them (the app's label is what it serves: "Gmail, Drive and Calendar").
_VENDOR = {"google": "Google", "microsoft": "Microsoft", "quickbooks": "QuickBooks"}
# What a Google or Microsoft sign-in that allowed none of what Roadstar asked for tells the owner.
_NOTHING_GRANTED = {
    "google": "The sign-in allowed none of Gmail, Drive or Calendar. Start again and tick what your agents need.",
    "microsoft": "The sign-in didn't allow reading your OneDrive files. Start again and accept what it asks.",
}


@login_required
@require_GET
def google_callback(request):
    return _sign_in_callback(request, "google")


@login_required
@require_GET
def microsoft_callback(request):
    return _sign_in_callback(request, "microsoft")


def _sign_in_callback(request, app: str):
    """The second half of a Google or Microsoft sign-in: the code for tokens, then the connection saved."""
    org = workspace_or_404(request)
    info = catalog.app(app)
    pending = _pending(request, app)
    if request.GET.get("error"):
        return _refused(request, app, info)
    if pending is None or not request.GET.get("code"):
        return _stale(request, app)
    finish = oauth.google_finish if app == "google" else oauth.microsoft_finish
    try:
        got = finish(code=request.GET["code"], pending=pending)
    except Exception as e:  # noqa: BLE001  (oauthlib's errors, a refused or expired code, the network: "start again")
        logger.warning("the %s sign-in could not be finished: %s", _VENDOR[app], e)
        return _finish_failed(request, app)
    try:
        connection, cards = services.connection_save_oauth(
            org=org, actor=Actor.for_user(request.user), app=app, account=got["account"], scopes=got["scopes"],
            tokens=got["tokens"],
        )
    except services.NothingGranted:
        return _problem(request, app=app, title="Nothing was connected", text=_NOTHING_GRANTED[app])
    _connected(request, connection, cards)
    return redirect("integrations:index")


def _finish_failed(request, app: str):
    return _problem(
        request, app=app, status=502, title=f"{_VENDOR[app]} didn't finish the sign-in",
        text=f"{_VENDOR[app]} didn't give Roadstar access this time. Start again from the connect page.",
    )


@login_required
@require_GET
def quickbooks_callback(request):
    org = workspace_or_404(request)
    info = catalog.QUICKBOOKS
    pending = _pending(request, "quickbooks")
    if request.GET.get("error"):
        return _refused(request, "quickbooks", info)
    if pending is None or not request.GET.get("code") or not request.GET.get("realmId"):
        return _stale(request, "quickbooks")
    realm_id = request.GET["realmId"]
    try:
        got = oauth.quickbooks_finish(code=request.GET["code"], realm_id=realm_id, pending=pending)
    except Exception as e:  # noqa: BLE001  (AuthClientError, the discovery fetch, the network: all mean "start again")
        logger.warning("the QuickBooks sign-in could not be finished: %s", e)
        return _finish_failed(request, "quickbooks")
    name = quickbooks_company_name(access_token=got["tokens"]["access_token"], realm_id=realm_id)
    connection, cards = services.connection_save_oauth(
        org=org, actor=Actor.for_user(request.user), app="quickbooks", account=name or f"QuickBooks company {realm_id}",
        scopes=got["scopes"], tokens=got["tokens"], realm_id=realm_id,
    )
    _connected(request, connection, cards)
    return redirect("integrations:index")


# --- an email held before it goes, opened from Home -------------------------------------------------------------

HELD_STATE_WORDS = {
    "held": "Waiting out its two minutes: Undo stops it, and nothing goes.",
    "sending": "Going now: it's too late to undo.",
    "sent": "Sent.",
    "undone": "Undone: it never went.",
    "failed": "It couldn't go: Try again waits on Home.",
    "unsure": "It may have gone: a card on Home asks you what to do.",
}


@require_GET
@login_required
def held_email(request, held_id):
    """The whole of an email an agent is sending (recipients, subject, text, attachments), with Undo while it waits:
    what the owner opens from its line on Home before it goes."""
    org = workspace_or_404(request)
    held = HeldEmail.objects.filter(organization=org, id=held_id).select_related("connection").first()
    if held is None:
        raise Http404("No such email in this workspace.")
    change = None
    if held.state == HeldEmail.State.HELD:
        change = Change.objects.filter(organization=org, tool="mail.send", target_type="email",
                                       target_id=str(held.id), undone_at__isnull=True).first()
    return render(request, "integrations/held_email.html", {
        "held": held,
        "account": held.connection.account,
        "goes": _owner_time(held.send_at, org),
        "state_words": HELD_STATE_WORDS.get(held.state, held.state),
        "undo": change,
        "attachments": [{"name": a.get("name", ""), "size": a.get("size") or 0} for a in held.attachments or []],
    })


def _owner_time(at, org) -> str:
    """"Tue, Nov 10, 2026, 10:02 AM EST": in the owner's time zone, as Home gives exact times."""
    local = at.astimezone(owner_zone(org))
    return f"{local:%a, %b} {local.day}, {local.year}, {local.hour % 12 or 12}:{local:%M %p %Z}"


@login_required
@require_POST
def search_setting(request, account_key: str):
    """Turn search on or off for one account of the signed-in owner's workspace."""
    org = workspace_or_404(request)
    on = request.POST.get("on") == "1"
    try:
        copy = services.connection_search_set(org=org, account_key=account_key, on=on)
    except ToolError as exc:
        raise Http404("No such account in your workspace.") from exc
    account = copy.connection.account
    if on:
        messages.success(request, f"Search is on for {account}: Roadstar starts copying it within a minute.")
    else:
        messages.success(request, f"Search is off for {account}: its copy is deleted.")
    return redirect("integrations:index")
