"""The owner's pages: Home (Waiting for you, Your work), and the buttons on it (Undo; on cards Dismiss,
Try again and Raise the budget).

Reads go through roadstar.selectors and writes through roadstar.services, as every other caller's do.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
import zoneinfo
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from agents import services as agent_services
from agents.models import Agent
from roadstar import selectors, services
from roadstar.actors import Actor
from roadstar.models import Card, Change, Organization
from tools.errors import ToolError

MAX_BUDGET = decimal.Decimal("99999999.99")  # the most Agent.monthly_budget holds

# --- Home -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkLine:
    """One line of Your work, as the owner reads it."""

    id: str
    text: str
    at: datetime.datetime
    relative: str  # "5 min ago"
    exact: str  # "Tue, Nov 10, 2026, 10:12 AM EST", in the owner's time zone
    can_undo: bool
    undone: bool
    undone_exact: str
    is_undo: bool


@login_required
def home(request: HttpRequest) -> HttpResponse:
    org = _workspace(request)
    if org is None:
        return render(request, "no_workspace.html", status=403)
    before = _parse_before(request.GET.get("before"))
    page = selectors.home_work_lines(org=org, before=before)
    tz = _zone(org)
    now = timezone.now()
    lines = [_work_line(change, org=org, tz=tz, now=now) for change in page.lines]
    return render(
        request,
        "home.html",
        {
            "org": org,
            "cards": [_with_safe_action(card) for card in selectors.home_cards(org=org)],
            "lines": lines,
            "paged": before is not None,
            "older": _iso(page.next_before) if page.next_before else None,
            "here": request.get_full_path(),
        },
    )


def _with_safe_action(card):
    # A card's link is followed by the owner's browser: only our own pages and web addresses, never `javascript:`.
    url = card.action_url or ""
    card.safe_action_url = url if url.startswith(("/", "https://", "http://")) and not url.startswith("//") else ""
    return card


def _workspace(request: HttpRequest) -> Organization | None:
    try:
        return request.user.organization
    except ObjectDoesNotExist:
        return None


def _parse_before(value: str | None) -> datetime.datetime | None:
    # A hand-edited or stale `before` shows the newest page rather than an error.
    if not value:
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        return None
    if parsed is None:
        return None
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, datetime.UTC)
    return parsed


def _iso(value: datetime.datetime) -> str:
    # Microseconds matter: the page boundary is exact, and lines a microsecond apart must not be skipped.
    return value.astimezone(datetime.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _zone(org: Organization) -> datetime.tzinfo:
    try:
        return zoneinfo.ZoneInfo(org.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.UTC


def _work_line(change: Change, *, org: Organization, tz, now: datetime.datetime) -> WorkLine:
    is_owner = change.actor_kind == "user" and change.actor_id == str(org.owner_id)
    who = "You" if is_owner else change.actor_name
    return WorkLine(
        id=str(change.id),
        text=f"{who} {change.sentence}",
        at=change.at,
        relative=relative_time(change.at, now=now, tz=tz),
        exact=exact_time(change.at, tz=tz),
        can_undo=change.can_undo and change.listing == Change.Listing.HOME_UNDO,
        undone=change.undone_at is not None,
        undone_exact=exact_time(change.undone_at, tz=tz) if change.undone_at else "",
        is_undo=change.undoes_id is not None,
    )


def relative_time(at: datetime.datetime, *, now: datetime.datetime, tz) -> str:
    seconds = max(0, int((now - at).total_seconds()))
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    local, today = at.astimezone(tz).date(), now.astimezone(tz).date()
    days = (today - local).days
    if days <= 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    if local.year == today.year:
        return f"{local:%b} {local.day}"
    return f"{local:%b} {local.day}, {local.year}"


def exact_time(at: datetime.datetime, *, tz) -> str:
    local = at.astimezone(tz)
    hour = local.hour % 12 or 12
    return f"{local:%a, %b} {local.day}, {local.year}, {hour}:{local:%M %p %Z}"


# --- The buttons on Home ----------------------------------------------------------------------------------


@require_POST
@login_required
def change_undo(request: HttpRequest, change_id) -> HttpResponse:
    org = _workspace_or_404(request)
    change = Change.objects.filter(organization=org, id=change_id).only("id", "sentence").first()
    if change is None:
        raise Http404("No such change in this workspace.")
    try:
        services.change_undo(org=org, change_id=change.id, actor=Actor.for_user(request.user))
    except ToolError as error:
        # The change is this workspace's (looked up above), so any error is the owner's to read: it was undone
        # already (`changed`), the record moved on since (`changed`), or the record is gone (`not_found`).
        messages.error(request, f"Couldn't undo “{change.sentence}”. {error.message}")
    else:
        messages.success(request, f"Undone: {change.sentence}.")
    return _back(request)


@require_POST
@login_required
def card_dismiss(request: HttpRequest, card_id) -> HttpResponse:
    org = _workspace_or_404(request)
    try:
        services.card_resolve(org=org, card_id=card_id)
    except ToolError as error:
        if error.kind == "not_found":
            raise Http404("No such card in this workspace.")
        raise
    return _back(request)


@require_POST
@login_required
def card_try_again(request: HttpRequest, card_id) -> HttpResponse:
    """Run once more the turn that couldn't finish; the service resolves the card."""
    org = _workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.TRY_AGAIN)
    if card.resolved_at is not None:
        messages.info(request, "That was dealt with already.")
        return _back(request)
    try:
        agent_services.conversation_try_again(org=org, conversation_id=_uuid(card.data.get("conversation_id")))
    except ToolError as error:
        messages.error(request, f"Couldn't try again. {error.message}")
    else:
        messages.success(request, "Trying again. The answer goes where the work was asked, as before.")
    return _back(request)


@require_POST
@login_required
def card_raise_budget(request: HttpRequest, card_id) -> HttpResponse:
    """Set a paused agent's monthly budget; the service unpauses it, and resolves the card, once it covers the
    month's spend."""
    org = _workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.BUDGET)
    if card.resolved_at is not None:
        messages.info(request, "That was dealt with already.")
        return _back(request)
    agent = Agent.objects.filter(organization=org, id=_uuid(card.data.get("agent_id"))).first()
    if agent is None:
        messages.error(request, "That agent is no longer on your staff, so there is no budget to raise.")
        return _back(request)
    amount = _dollars(request.POST.get("monthly_budget", ""))
    if amount is None:
        messages.error(request, f"Give {agent.name}'s new monthly budget in dollars, such as 60 or 75.50.")
        return _back(request)
    try:
        agent = agent_services.agent_raise_budget(org=org, agent=agent, monthly_budget=amount)
    except ToolError as error:
        messages.error(request, f"Couldn't raise the budget. {error.message}")
        return _back(request)
    if agent.paused:
        spent = agent_services.agent_spend_this_month(agent=agent)
        messages.error(
            request,
            f"{agent.name} is still paused: it has spent ${spent:,.2f} this month, more than ${amount:,.2f}. "
            "Raise it above that to let it work again.",
        )
    else:
        messages.success(request, f"{agent.name} can work again, with a budget of ${amount:,.2f} a month.")
    return _back(request)


def _card_or_404(org: Organization, card_id, kind: str) -> Card:
    card = Card.objects.filter(organization=org, id=card_id, kind=kind).first()
    if card is None:
        raise Http404("No such card in this workspace.")
    return card


def _uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _dollars(value: str) -> decimal.Decimal | None:
    """A positive amount of dollars to the cent, as typed ("60", "$75.50", "1,200"); None when it isn't one."""
    try:
        amount = decimal.Decimal(value.strip().lstrip("$").replace(",", ""))
    except decimal.InvalidOperation:
        return None
    if not amount.is_finite() or amount <= 0 or amount > MAX_BUDGET:
        return None
    return amount.quantize(decimal.Decimal("0.01"))


def _workspace_or_404(request: HttpRequest) -> Organization:
    org = _workspace(request)
    if org is None:
        raise Http404("This sign-in has no workspace.")
    return org


def _back(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the Home page the button was on (an older page stays open), never to another site."""
    target = request.POST.get("next", "")
    allowed = {request.get_host()}
    if not url_has_allowed_host_and_scheme(target, allowed_hosts=allowed, require_https=request.is_secure()):
        target = reverse("home")
    return HttpResponseRedirect(target)
