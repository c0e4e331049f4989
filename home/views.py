"""The owner's pages: Home (Waiting for you, Your work, the morning summary) with the buttons on it (Undo; on
cards Dismiss, Try again and Raise the budget; an agent's ask answered in place), and the chats with each agent.
Both are live: `home_live` and `chat_live` are the parts a page fetches again when its websocket says something
changed (core/live.py).

Reads go through home.selectors (and core.selectors for Your work's change lines and the cards) and writes
through core.services, as every other caller's do.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import TypedDict

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import escape, format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from agent_templates import selectors as template_selectors
from agent_templates import services as template_services
from agent_templates.catalogue import CatalogueError
from agents import selectors as agent_selectors
from agents import services as agent_services
from agents.forms import budget_set_from_form
from agents.models import Agent, Conversation, Message, Work
from agents.runtime.model import model_connected
from checks import reasons
from checks import selectors as check_selectors
from checks import services as check_services
from checks.judge import configured_judge
from checks.models import Ask, CheckDecision
from core import limits, services
from core import selectors as core_selectors
from core.actors import Actor
from core.errors import ToolError
from core.http import workspace_of, workspace_or_404
from core.inputs import as_uuid
from core.models import Card, Change, Organization, undo_possible
from core.owner_zone import owner_zone
from home import ask_words, selectors
from integrations.mail_hold import email_try_again
from routines import engine as routines_engine

# --- Home -------------------------------------------------------------------------------------------------


class WorkLine(TypedDict):
    """One line of Your work, as the owner reads it: every word and address made here, in one pass, so the
    template only puts them in place (a dict, because a template looks a name up in a dict first)."""

    id: str
    css: str  # "line", with "line--undone" and "line--undo" as they apply
    text: str
    iso: str  # the time, in the owner's zone, for the <time> element
    relative: str  # "5 min ago"
    exact: str  # "Tue, Nov 10, 2026, 10:12 AM EST", in the owner's time zone
    undone_exact: str  # "" unless undone
    undo_url: str  # "" when it can't be undone
    href: str  # the record it made or changed, when that has a page (a contact, a company, a doc); else ""
    html: SafeString  # the line's <li>, made from the above (line_html)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    org = workspace_of(request)
    if org is None:
        return render(request, "no_workspace.html", status=403)
    return render(request, "home.html", _home_context(request, org))


@login_required
def home_live(request: HttpRequest) -> HttpResponse:
    """The live part of Home, fetched again by the page when a websocket message says something changed."""
    org = workspace_or_404(request)
    return render(request, "partials/home_live.html", _home_context(request, org))


def _home_context(request: HttpRequest, org: Organization) -> dict:
    tz = owner_zone(org)
    before = _parse_before(request.GET.get("before"), tz=tz)
    page = selectors.home_lines(org=org, before=before)
    now = timezone.now()
    query = request.GET.urlencode()
    # Buttons come back to the Home page they were on, also when the live part was fetched on its own.
    here = reverse("home") + (f"?{query}" if query else "")
    asks = selectors.home_asks(org=org)
    earlier = _earlier(request.GET.get("earlier"))
    work, more_work = selectors.home_work_page(
        org=org, asking=frozenset(a.conversation_id for a in asks if not a.done), offset=earlier)
    return {
        "org": org,
        # No model: a card from the very start says how to connect one (not only once the owner wrote).
        "no_model": not model_connected(org),
        "model_help_url": reverse("model_settings"),
        # No judge model: Home says what the owner's-yes check does instead, and lets the owner choose.
        "without_judge": org.check_enabled and configured_judge(org) is None,
        "asks": [_ask_for_owner(ask, org=org) for ask in asks],
        # The model card a turn left is the same card as the one Home shows from the start: shown once, and not
        # at all once a model is connected.
        "cards": _cards_for_owner(org, [c for c in core_selectors.home_cards(org=org) if c.kind != Card.Kind.MODEL]),
        "agent_work": [_timed_work(group, tz=tz, now=now) for group in work],
        # Earlier work a page at a time ("Show earlier work"), its newest first again with "Newest work".
        "work_earlier": earlier + selectors.WORK_PAGE if more_work else None,
        "work_paged": earlier > 0,
        "held": [_timed_held(line, tz=tz, now=now) for line in selectors.home_held(org=org)],
        "lines": _work_lines(page.lines, org=org, tz=tz, now=now, here=here, csrf_token=get_token(request)),
        "summary": _timed_summary(selectors.home_summary(org=org), tz=tz, now=now),
        "paged": before is not None,
        "older": _iso(page.next_before) if page.next_before else None,
        "here": here,
        "live_src": reverse("home_live") + (f"?{query}" if query else ""),
        "now_ms": _ms(now),
        "answer_limit": limits.MESSAGE,
        "answer_limit_words": f"{limits.MESSAGE:,}",
    }


def _earlier(value: str | None) -> int:
    """How many of the newest pieces of work the page skips (?earlier=): a hand-edited one shows the newest."""
    try:
        return max(0, min(int(value or 0), 10_000))
    except ValueError:
        return 0


def _ask_for_owner(ask: selectors.HomeAsk, *, org: Organization | None = None) -> dict:
    """The ask as the owner reads it: the agent's question (or why it waits, said to the owner) and the action."""
    known = (check_selectors.known_recipients(org=org, tool_input=ask.input)
             if org is not None and ask.reason == reasons.NOT_NAMED else None)
    because = ask_words.reason_for_owner(ask.reason, known=known)
    return {
        "id": ask.id, "agent_id": ask.agent_id, "agent_name": ask.agent_name, "where": ask.where,
        "question": ask.question or (f"It waited for your yes: {because}." if ask.done
                                     else f"It waits for your yes before it goes on: {because}."),
        "done": ask.done,
        "because": because,
        "action": (ask_words.describe(tool=ask.tool, input=ask.input, replaces=ask.replaces, note=ask.note)
                   if ask.tool else None),
    }


def _timed_work(group: selectors.AgentWork, *, tz, now) -> dict:
    return {
        "agent_id": group.agent_id,
        "agent_name": group.agent_name,
        "items": [
            {"item": item, "relative": relative_time(item.at, now=now, tz=tz), "exact": exact_time(item.at, tz=tz)}
            for item in group.items
        ],
    }


def _timed_held(line: selectors.HeldLine, *, tz, now) -> dict:
    left = max(0, int((line.held_until - now).total_seconds() + 0.999))
    return {"line": line, "until_ms": _ms(line.held_until), "left": f"{left // 60}:{left % 60:02d}",
            "exact": exact_time(line.held_until, tz=tz)}


def _ms(at: datetime.datetime) -> int:
    """Milliseconds since the epoch: what the page's countdowns compute with."""
    return int(at.timestamp() * 1000)


def _timed_summary(summary, *, tz, now) -> dict | None:
    if summary is None:
        return None
    return {"text": summary.text, "at": summary.at, "relative": relative_time(summary.at, now=now, tz=tz),
            "exact": exact_time(summary.at, tz=tz)}


def _cards_for_owner(org: Organization, cards: list[Card]) -> list[Card]:
    staff = None
    for card in cards:
        _with_safe_action(card)
        if card.kind == Card.Kind.TEMPLATE:
            staff = staff if staff is not None else selectors.staff(org=org)
            # The page's own view of the card, beside the model's fields, for template_card.html.
            card.template = _template_card(org, card, staff)  # type: ignore[attr-defined]
    return cards


_TEMPLATE_KINDS = {"agent": "one agent", "team": "a team", "department": "a department", "skill": "a skill"}


def _template_card(org: Organization, card: Card, staff: list) -> dict:
    """A template ask as the owner answers it: what it makes, its questions with the answers the agent found,
    where it goes on the chart; or, to share, what would go out."""
    data = card.data or {}
    names = [a.name for a in staff]
    view: dict = {"action": data.get("action"), "asked_by": data.get("agent_name", ""), "staff": names}
    try:
        if data.get("action") == "share":
            body = template_services.share_preview(org=org, card=card)
            view.update(body=body, name=body.name, says=body.says)
            return view
        found = template_selectors.template_get(org=org, template_id=data.get("template", ""))
    except (ToolError, CatalogueError) as error:
        view["problem"] = getattr(error, "message", str(error))
        return view
    body = found.body
    given = data.get("answers") or {}
    have = {n.lower() for n in names}
    default_place = data.get("to") if body.kind == "skill" else data.get("under")
    view.update(
        body=body, source=found.from_, template_id=found.id, kind_words=_TEMPLATE_KINDS[body.kind],
        newer=found.body.version != data.get("version"),
        questions=[{"q": q, "value": (given.get(q.blank) or {}).get("value", ""),
                    "found": (given.get(q.blank) or {}).get("found", "")} for q in body.questions],
        agents=[{"a": a, "taken": a.name.lower() in have,
                 "routines": [f"{r.name} ({template_selectors.when_for_owner(r.when)})" for r in a.routines]}
                for a in body.agents],
        place=next((n for n in names if default_place and n.lower() == default_place.lower()),
                   "" if body.kind == "skill" else next(iter(names), "")),
    )
    return view


def _with_safe_action(card):
    # A card's link is followed by the owner's browser: only our own pages and web addresses, never `javascript:`.
    url = card.action_url or ""
    card.safe_action_url = url if url.startswith(("/", "https://", "http://")) and not url.startswith("//") else ""
    return card


def _parse_before(value: str | None, *, tz) -> datetime.datetime | None:
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
        parsed = timezone.make_aware(parsed, tz)  # the owner's, as on the page
    return parsed


def _iso(value: datetime.datetime) -> str:
    # Microseconds matter: the page boundary is exact, and lines a microsecond apart must not be skipped.
    return value.astimezone(datetime.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _work_lines(rows: list, *, org: Organization, tz, now: datetime.datetime, here: str,
                csrf_token: str) -> list[WorkLine]:
    """The page's lines, from home_lines' rows. This is the page's only work that grows with its lines (up to 50),
    so each line is made once here, its Undo's address from one reversed prefix rather than a reverse() a line,
    and its markup by line_html rather than by the template (where a line's dozen nodes and csrf_token tag cost
    about 4 times the rest of the line's making)."""
    owner_id = str(org.owner_id)
    undo_head, undo_tail = _url_around_id("change_undo")
    undo_form_tail = format_html(_UNDO_FORM_TAIL, csrf_token=csrf_token, here=here)
    lines: list[WorkLine] = []
    for row in rows:
        is_undo = row.undoes_id is not None
        undone = row.undone_at is not None
        can_undo = row.listing == Change.Listing.HOME_UNDO and undo_possible(
            undo=row.undo, undone_at=row.undone_at, undoes_id=row.undoes_id)
        who = "You" if row.actor_kind == "user" and row.actor_id == owner_id else row.actor_name
        local = row.at.astimezone(tz)
        line: WorkLine = {
            "id": str(row.id),
            "css": "line" + (" line--undone" if undone else "") + (" line--undo" if is_undo else ""),
            "text": f"{who} {_while_held(row, now=now, tz=tz) if can_undo else row.sentence}",
            "iso": local.isoformat(),
            "relative": relative_time(row.at, now=now, tz=tz),
            "exact": _exact(local),
            "undone_exact": exact_time(row.undone_at, tz=tz) if undone else "",
            "undo_url": f"{undo_head}{row.id}{undo_tail}" if can_undo else "",
            "href": _record_href(row.target_type, row.target_id) if not undone and not is_undo else "",
            "html": SafeString(),
        }
        line["html"] = line_html(line, undo_form_tail=undo_form_tail)
        lines.append(line)
    return lines


def _while_held(row, *, now: datetime.datetime, tz) -> str:
    """The change's sentence, or for an email still held for its two minutes (its Undo's `goesAt`, the time the
    hold keeps) what will happen and when: "will email Dana at 10:42 AM: “Quote”", not "emailed" before it went.
    Asked only while the change can be undone: once the email went (a sweep may send it on time, a moment before
    `goesAt` by this clock), its Undo is gone and the line says "emailed"."""
    goes = parse_datetime(str((row.undo or {}).get("goesAt") or "")) if row.undone_at is None else None
    if goes is None or goes <= now or not row.sentence.startswith("emailed "):
        return row.sentence
    whom, _, subject = row.sentence.removeprefix("emailed ").partition(": ")
    local = goes.astimezone(tz)
    clock = f"{local.hour % 12 or 12}:{local:%M} {'AM' if local.hour < 12 else 'PM'}"
    return f"will email {whom} at {clock}" + (f": {subject}" if subject else "")


# A line of Your work. Every value is escaped as it goes in (line_html); the ids, times and addresses are Roadstar's.
_LINE = (
    '<li class="{css}" data-key="change-{id}">\n'
    '  <p class="line__text">{text}</p>\n'
    '  <time class="line__time" datetime="{iso}" title="{exact}">{relative}</time>\n'
    "{undo}</li>\n"
)
_UNDONE = '<s>{text}</s> <span class="badge" title="Undone {undone_exact}">undone</span>'
_UNDO_FORM_HEAD = '  <form method="post" action="{undo_url}" class="inline-form line__undo">\n'
_UNDO_FORM_TAIL = (
    '    <input type="hidden" name="csrfmiddlewaretoken" value="{csrf_token}">\n'
    '    <input type="hidden" name="next" value="{here}">\n'
    '    <button type="submit" class="button button--small">Undo</button>\n'
    "  </form>\n"
)


_RECORD_PAGES = {"contact": "/contacts/{}/", "company": "/companies/{}/", "doc": "/docs/{}/", "page": "/research/{}/",
                 "project": "/docs/?project={}"}


def _record_href(target_type: str, target_id: str) -> str:
    """A line's record's page (Roadstar's own address; the pages scope it to the workspace), made with no reverse()
    a line: Home shows up to 50."""
    pattern = _RECORD_PAGES.get(target_type or "")
    if pattern is None or not target_id or as_uuid(target_id) is None:
        return ""
    return pattern.format(as_uuid(target_id))


def line_html(line: WorkLine, *, undo_form_tail: str) -> SafeString:
    """The line's <li>: its words (struck through when undone), its time, and its Undo button where it has one.
    `undo_form_tail` is the form's end, the same on every line of a page (its CSRF token and the page to come
    back to), made once."""
    text: str = escape(line["text"])
    if line["href"]:
        text = f'<a class="line__link" href="{escape(line["href"])}">{text}</a>'
    if line["undone_exact"]:
        text = _UNDONE.format(text=text, undone_exact=escape(line["undone_exact"]))
    undo = ""
    if line["undo_url"]:
        undo = _UNDO_FORM_HEAD.format(undo_url=escape(line["undo_url"])) + undo_form_tail
    return SafeString(_LINE.format(css=line["css"], id=line["id"], text=text, iso=escape(line["iso"]),
                                   exact=escape(line["exact"]), relative=escape(line["relative"]), undo=undo))


_SOME_ID = "00000000-0000-0000-0000-000000000000"


def _url_around_id(name: str) -> tuple[str, str]:
    """A URL that takes one id, as the text before and after the id: reverse() once for a whole page of lines."""
    head, _, tail = reverse(name, args=[_SOME_ID]).partition(_SOME_ID)
    return head, tail


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
    return _exact(at.astimezone(tz))


# English names, as strftime's %a, %b and %p give them in the C locale, without its per-call cost (a line each).
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _exact(local: datetime.datetime) -> str:
    """A time already in the owner's zone, as "Tue, Nov 10, 2026, 10:12 AM EST"."""
    hour = local.hour % 12 or 12
    return (f"{_DAYS[local.weekday()]}, {_MONTHS[local.month - 1]} {local.day}, {local.year}, "
            f"{hour}:{local.minute:02d} {'PM' if local.hour >= 12 else 'AM'} {local.tzname() or ''}")


# --- The buttons on Home ----------------------------------------------------------------------------------


@require_POST
@login_required
def change_undo(request: HttpRequest, change_id) -> HttpResponse:
    org = workspace_or_404(request)
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
    org = workspace_or_404(request)
    try:
        services.card_resolve(org=org, card_id=card_id)
    except ToolError as error:
        if error.kind == "not_found":
            raise Http404("No such card in this workspace.") from error
        raise
    return _back(request)


@require_POST
@login_required
def card_try_again(request: HttpRequest, card_id) -> HttpResponse:
    """Run once more the turn that couldn't finish; the service resolves the card."""
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.TRY_AGAIN)
    if card.resolved_at is not None:
        messages.info(request, "That was dealt with already.")
        return _back(request)
    if "event_ids" in card.data:  # new mail and documents whose ask routines couldn't be weighed
        queued = routines_engine.asks_try_again(org=org, card_id=card.id)
        messages.success(request, "Checking them against your routines again." if queued else
                         "That was dealt with already.")
        return _back(request)
    if card.data.get("held_email_id"):  # an email that couldn't go: it goes now
        try:
            email_try_again(org=org, held_id=as_uuid(card.data["held_email_id"]))
        except ToolError as error:
            messages.error(request, f"Couldn't try again. {error.message}")
        else:
            messages.success(request, "Sending it again.")
        return _back(request)
    try:
        agent_services.conversation_try_again(org=org, conversation_id=as_uuid(card.data.get("conversation_id")))
    except ToolError as error:
        messages.error(request, f"Couldn't try again. {error.message}")
    else:
        messages.success(request, "Trying again. The answer goes where the work was asked, as before.")
    return _back(request)


@require_POST
@login_required
def work_try_again(request: HttpRequest, work_id) -> HttpResponse:
    """Try again from a line of Your work: the conversation that holds the work runs its turn once more."""
    org = workspace_or_404(request)
    work = Work.objects.filter(organization=org, id=work_id).select_related("conversation").first()
    if work is None:
        raise Http404("No such piece of work in this workspace.")
    if not model_connected(org):
        messages.error(request, "No AI model is connected yet, so it can't start. The card on Home says how to "
                                "connect one.")
        return _back(request)
    try:
        agent_services.conversation_try_again(org=org, conversation_id=work.conversation_id)
    except ToolError as error:
        messages.error(request, f"Couldn't try again. {error.message}")
    else:
        messages.success(request, "Trying again. The answer goes where the work was asked, as before.")
    return _back(request)


@login_required
def model_help(request: HttpRequest) -> HttpResponse:
    """The old "How to connect a model" address: connecting one is now the owner's Settings page."""
    workspace_or_404(request)
    return HttpResponseRedirect(reverse("model_settings"))


@require_POST
@login_required
def without_judge_set(request: HttpRequest) -> HttpResponse:
    """The owner's choice for actions the check's rules can't decide while no judge model is set up."""
    org = workspace_or_404(request)
    choice = request.POST.get("without_judge", "")
    if choice not in Organization.WithoutJudge.values:
        messages.error(request, "Choose Ask me or Let it run.")
        return _back(request)
    Organization.objects.filter(id=org.id).update(without_judge=choice)
    messages.success(request, "Saved: " + ("your agents ask you first." if choice == "ask"
                                           else "those actions run without asking you."))
    return _back(request)


@require_POST
@login_required
def card_raise_budget(request: HttpRequest, card_id) -> HttpResponse:
    """Set a paused agent's monthly budget; the service unpauses it, and resolves the card, once it covers the
    month's spend."""
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.BUDGET)
    if card.resolved_at is not None:
        messages.info(request, "That was dealt with already.")
        return _back(request)
    agent = _agent_or_none(org, card.data.get("agent_id"))
    if agent is None:
        messages.error(request, "That agent is no longer on your staff, so there is no budget to raise.")
        return _back(request)
    budget_set_from_form(request, org=org, agent=agent,
                         done="{name} can work again, with a budget of {amount} a month.")
    return _back(request)


DEFAULT_YES = "Yes, go ahead."
DEFAULT_NO = "No, don't do that."


def _home_refused(request: HttpRequest, org: Organization, *, key: str, text: str, error: str) -> HttpResponse:
    """Home again with the refused answer still in its box and the reason beside it: never throw typed words away."""
    context = _home_context(request, org)
    for ask in context["asks"]:
        if str(ask["id"]) == key:
            ask.update(kept=text, error=error)
    for card in context["cards"]:
        if str(card.id) == key:
            card.kept, card.error = text, error
    return render(request, "home.html", context, status=400)


def _too_long(text: str) -> str | None:
    """What to tell the owner when what they typed is past the limit: it is refused whole, never cut."""
    if len(text) <= limits.MESSAGE:
        return None
    return (f"That is {len(text):,} characters; a message here holds up to {limits.MESSAGE:,}. Shorten it, or put the "
            "long part in a doc; nothing was sent.")


@require_POST
@login_required
def ask_answer(request: HttpRequest, ask_id) -> HttpResponse:
    """The owner answers an agent's ask in place. The answer goes to the agent's chat as the owner's own message,
    after a note saying which question it answers, so the chat sends it to the thread that holds the work. "Yes"
    also gives the owner's yes to exactly the action that was held back; other words are read by the check when
    the thread tries again, like any answer in the chat."""
    org = workspace_or_404(request)
    ask = Ask.objects.filter(organization=org, id=ask_id).select_related("decision").first()
    if ask is None:
        raise Http404("No such ask in this workspace.")
    if ask.state == Ask.State.DONE or (ask.state == Ask.State.WAITING
                                       and check_services.ask_went(org=org, ask_id=ask.id) is not None):
        messages.info(request, "That was done already, so nothing waits for your answer.")
        return _back(request)
    if ask.state != Ask.State.WAITING:
        messages.info(request, "That was answered already.")
        return _back(request)
    decision = ask.decision
    agent = None
    if decision.actor_kind == "agent":
        agent = _agent_or_none(org, decision.actor_id)
    if agent is None:
        messages.error(request, "The agent that asked is no longer on your staff, so there is no one to answer.")
        return _back(request)
    yes = "yes" in request.POST
    no = "no" in request.POST and not yes
    words = request.POST.get("answer", "").strip()
    if too_long := _too_long(words):
        return _home_refused(request, org, key=str(ask.id), text=words, error=too_long)
    if not words and not yes and not no:
        messages.error(request, f"Write your answer to {agent.name}, or press Yes or No.")
        return _back(request)
    text = words or (DEFAULT_YES if yes else DEFAULT_NO)
    action = ask_words.in_a_line(ask_words.describe(tool=decision.tool, input=decision.input,
                                                    replaces=decision.replaces))
    thread_id = as_uuid(decision.conversation_id)
    where = (Conversation.objects.filter(organization=org, id=thread_id, kind="thread").first()
             if thread_id is not None else None)
    if where is not None:
        note = (f"{org.owner_first_name} answers, from Home, the question your thread “{where.title}” asked "
                f"(held back because {decision.reason or 'the check asked'}). Their answer follows: send it to that "
                "thread.")
    else:
        note = f"{org.owner_first_name} answers, from Home, the question you asked. Their answer follows."
    if where is not None and where.agent_id == agent.id and (yes or no) and not words:
        # Yes or No to a thread's ask goes straight to that thread: no model has to pass it on. The chat shows it.
        with transaction.atomic():
            if not Ask.objects.select_for_update().filter(id=ask.id, state=Ask.State.WAITING).exists():
                messages.info(request, "That was answered already.")  # a second press, or the action went meanwhile
                return _back(request)
            check_services.ask_answer(org=org, ask_id=ask.id, yes=yes, text=text, ref=f"ask:{ask.id}")
            agent_services.answer_from_home(
                org=org, thread=where, text=text, ref=f"ask:{ask.id}",
                note=(f"{org.owner_first_name} answered, from Home, the question your thread “{where.title}” asked "
                      f"(held back because {decision.reason or 'the check asked'}): “{text}”. It went straight to "
                      "that thread; there is nothing to pass on."),
                note_data={"ask_id": str(ask.id), "conversation_id": decision.conversation_id or "",
                           "thread": where.title, "answer": "yes" if yes else "no", "action": action},
            )
        messages.success(request, f"Sent to {agent.name}'s thread “{where.title}”: “{text}”")
        return _back(request)
    with transaction.atomic():
        if not Ask.objects.select_for_update().filter(id=ask.id, state=Ask.State.WAITING).exists():
            messages.info(request, "That was answered already.")  # a second press of the same button
            return _back(request)
        agent_services.message_append(
            conversation=agent_services.chat_for(agent=agent), role=Message.Role.SYSTEM, text=note,
            data={"ask_id": str(ask.id), "conversation_id": decision.conversation_id or "",
                  "thread": where.title if where is not None else "",
                  "answer": "yes" if yes else "no" if no else "words", "action": action},
        )
        said = agent_services.owner_message_send(org=org, agent=agent, text=text, user=request.user)
        # The yes and its words in the chat are one yes: spending either spends both.
        check_services.ask_answer(org=org, ask_id=ask.id, yes=yes, text=text, ref=f"message:{said.id}")
    messages.success(request, f"Sent to {agent.name}: “{text}”")
    return _back(request)


@require_POST
@login_required
def card_answer(request: HttpRequest, card_id) -> HttpResponse:
    """An ask put on Home as a card: the answer goes to the asking agent's chat, and the card is done."""
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.ASK)
    if card.resolved_at is not None:
        messages.info(request, "That was answered already.")
        return _back(request)
    agent = _agent_or_none(org, card.data.get("agent_id"))
    if agent is None:
        messages.error(request, "The agent that asked is no longer on your staff, so there is no one to answer.")
        return _back(request)
    text = request.POST.get("answer", "").strip() or ("" if "yes" not in request.POST else DEFAULT_YES)
    if too_long := _too_long(text):
        return _home_refused(request, org, key=str(card.id), text=text, error=too_long)
    if not text:
        messages.error(request, f"Write your answer to {agent.name}.")
        return _back(request)
    with transaction.atomic():
        agent_services.owner_message_send(org=org, agent=agent, text=text, user=request.user)
        services.card_resolve(org=org, card_id=card.id)
    messages.success(request, f"Sent to {agent.name}: “{text}”")
    return _back(request)


@require_POST
@login_required
def card_template_add(request: HttpRequest, card_id) -> HttpResponse:
    """The owner adds a template an agent proposed: their answers, where it goes on the chart, and the names.
    Everything is made in one transaction, or nothing is and the ask stays waiting."""
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.TEMPLATE)
    form = request.POST
    answers = {key.removeprefix("answer-"): form.get(key, "") for key in form if key.startswith("answer-")}
    # Each of the template's agents: its name in the template (name-of-N) and the name the owner gives it (name-N).
    names = {}
    for key in form:
        chosen = form.get("name-" + key.removeprefix("name-of-"), "").strip() if key.startswith("name-of-") else ""
        if chosen:
            names[form.get(key, "")] = chosen
    try:
        change = template_services.template_add(org=org, user=request.user, card_id=card.id, answers=answers,
                                                place=request.POST.get("place", "").strip() or None, names=names)
    except ToolError as error:
        if error.kind == "changed":
            messages.info(request, error.message)
        else:
            messages.error(request, f"Nothing was added. {error.message}")
    else:
        messages.success(request, f"Done: you {change.sentence}. Undo is on the line under Your work.")
    return _back(request)


@require_POST
@login_required
def card_template_share(request: HttpRequest, card_id) -> HttpResponse:
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.TEMPLATE)
    try:
        change = template_services.template_share(org=org, user=request.user, card_id=card.id,
                                                  name=request.POST.get("name", ""), says=request.POST.get("says", ""))
    except ToolError as error:
        if error.kind == "changed":
            messages.info(request, error.message)
        else:
            messages.error(request, f"Nothing was shared. {error.message}")
    else:
        messages.success(request, f"Done: you {change.sentence}.")
    return _back(request)


@require_POST
@login_required
def card_template_no(request: HttpRequest, card_id) -> HttpResponse:
    org = workspace_or_404(request)
    card = _card_or_404(org, card_id, Card.Kind.TEMPLATE)
    try:
        template_services.template_decline(org=org, card_id=card.id)
    except ToolError as error:
        messages.info(request, error.message)
    else:
        messages.success(request, f"Declined; {card.data.get('agent_name') or 'the agent'} will read that you said no.")
    return _back(request)


# --- Chats ------------------------------------------------------------------------------------------------------

_ANSWER_FROM = re.compile(r"^\[Answers? from ([^\]]+)\]\s*")


@dataclass(frozen=True)
class ChatLine:
    """One message of a chat as the owner reads it."""

    key: int  # the message's id in its conversation
    who: str  # owner, agent, answer, handoff, routine, note
    label: str
    text: str
    relative: str
    exact: str


@login_required
def chats(request: HttpRequest) -> HttpResponse:
    """Chats start with Roadstar's."""
    org = workspace_or_404(request)
    roadstar = Agent.objects.filter(organization=org).order_by("-is_roadstar", "name").only("id").first()
    if roadstar is None:
        raise Http404("This workspace has no agents.")
    return HttpResponseRedirect(reverse("chat", args=[roadstar.id]))


@login_required
def chat(request: HttpRequest, agent_id) -> HttpResponse:
    """The owner's chat with one agent: what was said, replies as they come, and a box to write in."""
    org = workspace_or_404(request)
    agent = _agent_or_404(org, agent_id)
    if request.method == "POST":
        return _chat_send(request, org, agent)
    context = _chat_context(org, agent)
    context["agents"] = selectors.staff(org=org)
    return render(request, "chat.html", context)


@login_required
def chat_live(request: HttpRequest, agent_id) -> HttpResponse:
    """The live part of a chat: its messages and whether the agent is at work, fetched again on a notify."""
    org = workspace_or_404(request)
    agent = _agent_or_404(org, agent_id)
    return render(request, "partials/chat_live.html", _chat_context(org, agent))


def _chat_send(request: HttpRequest, org: Organization, agent: Agent) -> HttpResponse:
    fetched = request.headers.get("X-Requested-With") == "fetch"
    text = request.POST.get("text", "").strip()
    if _too_long(text):
        if fetched:  # live.js shows this beside the box and leaves the text in it
            return HttpResponse(_too_long(text), status=400, content_type="text/plain")
        # The chat again, with the text still in the box: a refusal never throws the owner's words away.
        context = _chat_context(org, agent)
        context.update(agents=selectors.staff(org=org), send_error=_too_long(text), kept_text=text)
        return render(request, "chat.html", context, status=400)
    elif not text:
        if fetched:
            return HttpResponse("Write something first.", status=400, content_type="text/plain")
        messages.error(request, "Write something first.")
    else:
        agent_services.owner_message_send(org=org, agent=agent, text=text, user=request.user)
        if fetched:
            return HttpResponse(status=204)
    return HttpResponseRedirect(reverse("chat", args=[agent.id]))


def _agent_or_none(org: Organization, agent_id) -> Agent | None:
    """The workspace's agent with this id (given as text, from a card or a decision), or None."""
    found = as_uuid(agent_id)
    return Agent.objects.filter(organization=org, id=found).first() if found is not None else None


def _agent_or_404(org: Organization, agent_id) -> Agent:
    agent = Agent.objects.filter(organization=org, id=agent_id).first()
    if agent is None:
        raise Http404("No such agent in this workspace.")
    return agent


def _chat_context(org: Organization, agent: Agent) -> dict:
    tz = owner_zone(org)
    limit_words = f"{limits.MESSAGE:,}"
    now = timezone.now()
    conversation = selectors.chat_of(agent=agent)
    lines = []
    if conversation is not None:
        shown = selectors.chat_messages(conversation=conversation)
        asks = _asks_answered(org, shown)
        lines = [_chat_line(m, agent=agent, tz=tz, now=now, asks=asks) for m in shown]
    return {
        "org": org,
        "agent": agent,
        "chat_id": str(conversation.id) if conversation else "",
        "lines": lines,
        # At work on something the owner wrote, not yet replied to (a turn's last moments after its reply count
        # as done, so a page that refetches on the reply doesn't keep saying "replying").
        "busy": conversation is not None and conversation.state != Conversation.State.IDLE
        and bool(lines) and lines[-1].who != "agent" and not agent.paused,
        # Paused for its budget: its work waits, and the chat says so rather than "replying".
        "paused_for_budget": _budget_pause(agent),
        # The model failed on this chat's turn: said here too, not only on Home's card, with its Try again.
        "stopped": Card.objects.filter(organization=org, kind=Card.Kind.TRY_AGAIN, resolved_at__isnull=True,
                                       subject=f"try_again:{conversation.id}").first() if conversation else None,
        # Its threads' work where it stands, in Home's words for it ("working", "can't start", "waiting").
        "working_on": selectors.agent_threads_at_work(
            agent=agent, asking=frozenset(a.conversation_id for a in selectors.home_asks(org=org))),
        # With no model nothing runs: the chat says so rather than "is replying…".
        "no_model": not model_connected(org),
        "live_src": reverse("chat_live", args=[agent.id]),
        "answer_limit": limits.MESSAGE,
        "answer_limit_words": limit_words,
    }


@login_required
def thread(request: HttpRequest, agent_id, conversation_id) -> HttpResponse:
    """One of an agent's threads, as the owner reads it: its work, where it stands, and what was said in it."""
    org = workspace_or_404(request)
    agent = _agent_or_404(org, agent_id)
    conversation = Conversation.objects.filter(
        organization=org, agent=agent, id=conversation_id, kind=Conversation.Kind.THREAD
    ).first()
    if conversation is None:
        raise Http404("No such thread in this workspace.")
    tz = owner_zone(org)
    now = timezone.now()
    shown = selectors.chat_messages(conversation=conversation)
    asks = _asks_answered(org, shown)
    asking = frozenset(a.conversation_id for a in selectors.home_asks(org=org))
    work = [item for group in selectors.home_work(org=org, asking=asking, conversation_id=conversation.id)
            for item in group.items]
    return render(request, "thread.html", {
        "org": org, "agent": agent, "conversation": conversation, "work": work,
        "lines": [_chat_line(m, agent=agent, tz=tz, now=now, asks=asks) for m in shown],
        "here": request.path,
    })


def _budget_pause(agent: Agent) -> dict | None:
    if not agent.paused:
        return None
    return {
        "spent": agent_selectors.agent_spend_this_month(agent=agent),
        "budget": agent.monthly_budget,
        "card": Card.objects.filter(organization_id=agent.organization_id, kind=Card.Kind.BUDGET,
                                    subject=f"budget:{agent.id}", resolved_at__isnull=True).first(),
    }


@dataclass(frozen=True)
class AskAnswered:
    """What became of an ask the owner answered from Home."""

    state: str
    went: bool  # the action went ahead later in the same conversation


def _asks_answered(org: Organization, shown: list[Message]) -> dict[str, AskAnswered]:
    """The asks the owner answered from Home that the chat's notes speak of, in one query: what happened next."""
    ids = {ask_id for m in shown if (ask_id := as_uuid((m.data or {}).get("ask_id"))) is not None}
    if not ids:
        return {}
    # It went ahead when the same action ran later in the same conversation: on this yes, or on words that covered it.
    went = CheckDecision.objects.filter(
        organization=org, fingerprint=OuterRef("fingerprint"), conversation_id=OuterRef("decision__conversation_id"),
        outcome=CheckDecision.Outcome.GO, created_at__gt=OuterRef("decision__created_at"),
    )
    asks = Ask.objects.filter(organization=org, id__in=ids).annotate(went=Exists(went))
    rows = asks.values_list("id", "state", "went")
    return {str(ask_id): AskAnswered(state=state, went=went) for ask_id, state, went in rows}


_ANSWERED = {"yes": "Yes", "no": "No", "words": "In your words, below"}


def _answer_note(data: dict, ask: AskAnswered | None, agent: Agent) -> str:
    """The chat's note of an answer given on Home: the action asked about, the answer, and what happened next."""
    asked = f"the question from “{data['thread']}”" if data.get("thread") else "its question"
    lines = [f"You answered {asked} on Home."]
    if data.get("action"):
        lines.append(f"It asked about: {data['action']}")
    if data.get("answer"):
        lines.append(f"Your answer: {_ANSWERED.get(data['answer'], data['answer'])}")
    if ask is not None:
        if ask.went:
            lines.append("Then: it went ahead.")
        elif ask.state == Ask.State.DONE:
            lines.append("Then: it had gone ahead already.")
        elif ask.state == Ask.State.YES:
            lines.append(f"Then: it goes ahead when {agent.name} picks the work up again.")
        elif ask.state == Ask.State.DECLINED:
            lines.append("Then: it stays held back; nothing went." if data.get("answer") == "no"
                         else f"Then: {agent.name} reads your answer and goes on from it.")
    return "\n".join(lines)


# The head of an instruction Roadstar writes into a thread to start work there: "[Morning summary] Write …".
_INTERNAL_PROMPT = re.compile(r"\[([^\]\n]{1,80})\] ")


def _chat_line(message: Message, *, agent: Agent, tz, now, asks: dict | None = None) -> ChatLine:
    data = message.data or {}
    text, label = message.text, ""
    role = message.role
    if role == Message.Role.OWNER:
        who, label = "owner", "You"
    elif role == Message.Role.AGENT:
        who, label = "agent", agent.name
    elif role == Message.Role.ANSWER:
        who = "answer"
        found = _ANSWER_FROM.match(text)
        if found:
            label, text = f"From {found.group(1)}", text[found.end():]
        else:
            label = "An answer"
    elif role == Message.Role.HANDOFF:
        who, label = "handoff", f"Work from {data.get('from') or 'another agent'}"
        text = data.get("task") or text
    elif role == Message.Role.ROUTINE:
        who, label = "routine", f"Routine: {data.get('name') or 'a routine'}"
        text = data.get("note") or text
    elif data.get("ask_id"):
        # The note that tells the chat which question the owner's answer below it is for.
        who, label = "note", "From Home"
        text = _answer_note(data, (asks or {}).get(data["ask_id"]), agent)
    elif (started := _INTERNAL_PROMPT.match(text)) is not None:
        # What Roadstar hands an agent to start a piece of work (the morning summary's list of what happened, with
        # how to write it) is the agent's instructions, not words for the owner: the thread says what started.
        who, label, text = "note", "Started", f"{started.group(1)}, started by Roadstar."
    else:
        who, label = "note", "Note"
    return ChatLine(key=message.seq, who=who, label=label, text=text,
                    relative=relative_time(message.created_at, now=now, tz=tz),
                    exact=exact_time(message.created_at, tz=tz))


def _card_or_404(org: Organization, card_id, kind: str) -> Card:
    card = Card.objects.filter(organization=org, id=card_id, kind=kind).first()
    if card is None:
        raise Http404("No such card in this workspace.")
    return card


def _back(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the Home page the button was on (an older page stays open), never to another site."""
    target = request.POST.get("next", "")
    allowed = {request.get_host()}
    if not url_has_allowed_host_and_scheme(target, allowed_hosts=allowed, require_https=request.is_secure()):
        target = reverse("home")
    return HttpResponseRedirect(target)
