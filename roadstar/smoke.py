"""The smoke run: the spec's seven use cases played in the example workspace against whatever model is set
(OPENAI_BASE_URL, OPENAI_API_KEY, the MODEL_* mappings), with a cap on model calls and on dollars, and a
report of each: what the spec expects, what happened, tokens, cost, the tools called, and where it went wrong.

`make smoke` runs `scripts/smoke.py`, which makes a fresh database with the example workspace and calls `play`.
Nothing here is scripted for the model: each use case starts as the spec's does (Sam's words in an agent's chat,
then the email or the Monday morning that starts the work) and is judged by what the workspace holds afterwards.
The suite plays it against an imperfect fake model of its own (tests/use_cases/test_smoke.py).
"""

from __future__ import annotations

import datetime
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from django.utils import timezone

from agents import services as agent_services
from agents.models import Agent, Message, Run, ToolCall, Work
from agents.runtime.model import ModelUnavailable, cost_of, get_model, model_connected, set_model
from agents.runtime.scheduler import drain
from checks.models import Ask
from core.models import Card, Change, Organization

NO_MODEL = ("No model is set, so the smoke run has nothing to play against: set OPENAI_API_KEY (and OPENAI_BASE_URL "
            "for a server other than OpenAI's, and MODEL_GPT_6_1_TERRA and the like to map Roadstar's models to "
            "yours), then run `make smoke` again.")
MAX_CALLS = 200
MAX_DOLLARS = Decimal("2.00")


class CapReached(ModelUnavailable):
    """The run's cap on model calls or dollars: the turn stops as for a model that is down (Try again)."""


class Metered:
    """The configured model, counted: every call's tokens and cost for the report, and the caps enforced."""

    def __init__(self, inner, *, max_calls: int, max_dollars: Decimal):
        self.inner, self.max_calls, self.max_dollars = inner, max_calls, max_dollars
        self.calls, self.input_tokens, self.output_tokens, self.dollars = 0, 0, 0, Decimal(0)
        self.capped = ""

    def complete(self, *, model_id: str, **kwargs):
        if self.calls >= self.max_calls or self.dollars >= self.max_dollars:
            self.capped = (f"the cap was reached ({self.calls} model calls, ${self.dollars:.2f}; caps {self.max_calls}"
                           f" calls, ${self.max_dollars:.2f})")
            raise CapReached(self.capped)
        response = self.inner.complete(model_id=model_id, **kwargs)
        self.calls += 1
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens
        self.dollars += cost_of(model_id, response.usage)
        return response


@dataclass
class UseCase:
    name: str
    page: str
    agent: str
    says: str
    expects: str
    check: Callable[[Organization, datetime.datetime], tuple[bool, str]]
    then: Callable[[Organization], None] | None = None  # what happens next in the spec (an email arrives, …)
    before: Callable[[Organization], None] | None = None


@dataclass
class Played:
    case: UseCase
    reached: bool = False
    happened: str = ""
    answer: str = ""
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    dollars: Decimal = Decimal(0)
    tools: Counter = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)


# --- what the spec expects, and how the workspace shows it --------------------------------------------------------


def _changes(org, since, *tools) -> list[Change]:
    return list(Change.objects.filter(organization=org, at__gte=since, tool__in=tools).order_by("at"))


def _mail_to(org, since, address: str) -> str:
    """How an email to `address` stands: sent or held (a change), or waiting for the owner's yes (an ask)."""
    for change in _changes(org, since, "mail.send", "mail.draft"):
        if address in change.sentence:
            return f"{change.tool}: {change.sentence}"
    for ask in Ask.objects.filter(organization=org, created_at__gte=since,
                                  decision__tool="mail.send").select_related("decision"):
        if address in json.dumps(ask.decision.input):
            subject = ask.decision.input.get("subject", "") if isinstance(ask.decision.input, dict) else ""
            return f"waiting for Sam's yes on Home: an email to {address}, “{subject}”"
    return ""


def _make_an_agent(org, since):
    made = _changes(org, since, "make_agent")
    if not made:
        return False, "no agent was made"
    agent = Agent.objects.filter(organization=org, created_at__gte=since, is_roadstar=False).first()
    work = Work.objects.filter(agent=agent).exists() if agent else False
    return bool(agent and work), (f"made {agent.name}" if agent else "made an agent") + (
        ", and handed it the Ortiz Bakery proposal" if work else ", but handed it no work")


def _proposal(org, since):
    copies = _changes(org, since, "files.copy", "files.create_doc")
    filled = _changes(org, since, "files.replace_text", "files.append_text")
    if not copies:
        return False, "no copy of the proposal template was made"
    return bool(filled), f"{copies[0].sentence}; {len(filled)} edits to fill it in"


def _contacts(org, since):
    added = _changes(org, since, "contacts.create", "contacts.add_many")
    return bool(added), "; ".join(c.sentence for c in added)[:300] or "no contact was added"


def _hours(org, since):
    saved = _changes(org, since, "files.save", "files.create_sheet")
    return bool(saved), saved[0].sentence if saved else "no summary Sheet was saved to Drive"


def _kickoff(org, since):
    held = _changes(org, since, "calendar.hold")
    offered = _mail_to(org, since, "dana@juniperdental.test")
    follow = _changes(org, since, "contacts.follow_up")
    parts = [held[0].sentence if held else "no time held", offered or "nothing offered to Dana",
             follow[0].sentence if follow else "no follow-up set"]
    return bool(held and offered), "; ".join(parts)


def _enquiry(org, since):
    from routines.models import Routine

    routine = Routine.objects.filter(organization=org, created_at__gte=since).exclude(ask="").first()
    quote = _mail_to(org, since, "dana@juniperdental.test")
    parts = [f"routine “{routine.name}” set on words" if routine else "no routine on words was set",
             quote or "no quote to Dana"]
    waiting = "waiting for Sam's yes" in quote
    return bool(routine and waiting), "; ".join(parts)


def _overdue(org, since):
    from routines.models import Routine

    routine = Routine.objects.filter(organization=org, created_at__gte=since).exclude(at="").first()
    chase = _mail_to(org, since, "rosa@ortizbakery.test")
    parts = [f"routine “{routine.name}” at {routine.at}" if routine else "no weekly routine was set",
             chase or "no chase to Rosa"]
    return bool(routine and chase), "; ".join(parts)


ENQUIRY = ("Hi Sam,\n\nWe're opening our second clinic in March and would love a new logo, plus signage for both "
           "locations. Could you send us a quote?\n\nThanks,\nDana Whitfield\nPractice manager, Juniper Dental")


def _dana_writes(org) -> None:
    """Dana's enquiry arrives in Sam's mailbox, as the spec's next step has it."""
    from integrations.local.mailbox import Incoming, message_store
    from integrations.models import Connection
    from routines import engine
    from routines.models import Event

    connection = next((c for c in Connection.objects.filter(organization=org) if "mail" in (c.groups or [])), None)
    if connection is not None:
        message_store(connection, Incoming(sender="Dana Whitfield <dana@juniperdental.test>",
                                           to=["sam@fernhill.test"], subject="Rebrand for our second clinic",
                                           text=ENQUIRY, date=timezone.now(), box="inbox"))
    event = Event.objects.create(organization=org, kind="mail.received",
                                 keys=["kind:mail.received", "from:dana@juniperdental.test"],
                                 text=f"From: Dana Whitfield\nSubject: Rebrand for our second clinic\n{ENQUIRY}")
    engine.match_event(event)


def _monday_comes(org) -> None:
    """Monday at 9: the routine Sam asked for fires now rather than waiting for it."""
    from routines import services as routine_services
    from routines.models import Routine

    for routine in Routine.objects.filter(organization=org, status=Routine.Status.ON).exclude(at=""):
        routine_services.routine_fire(routine=routine, started_by="Monday at 9 (fired now by the smoke run)")


NEW_PEOPLE = [
    ("Priya Shah", "priya@harborflorists.test", "Catalogue photos",
     "Hi Priya,\n\nThe catalogue photos look great; two more of the spring bouquets?\n\nSam"),
    ("Tom Becker", "tom@beckerbrewing.test", "Label ideas",
     "Hi Tom,\n\nHere are three label ideas for the winter ale. Which way shall we go?\n\nSam"),
]


def _sam_wrote_to_new_people(org) -> None:
    """The example workspace's sent mail is to people Contacts has already: two more, whom it doesn't, so the use
    case has someone to add."""
    from integrations.local.mailbox import Incoming, message_store
    from integrations.models import Connection

    connection = next((c for c in Connection.objects.filter(organization=org) if "mail" in (c.groups or [])), None)
    if connection is None:
        return
    for name, address, subject, text in NEW_PEOPLE:
        message_store(connection, Incoming(sender="Sam Rivera <sam@fernhill.test>", to=[f"{name} <{address}>"],
                                           subject=subject, text=text, date=timezone.now(), box="sent"))


def _no_proposal_writer(org) -> None:
    """Sam has no Proposal writer yet: Roadstar makes one."""
    Agent.objects.filter(organization=org, name="Proposal writer").delete()


USE_CASES = [
    UseCase("Making an agent", "use-cases/make-an-agent.md", "Roadstar",
            "I'm spending my evenings on proposals. Can someone take them on? Start with the Ortiz Bakery packaging "
            "one: Rosa wants it by Friday.",
            "Roadstar makes Proposal writer from a job description and hands it the first piece of work.",
            _make_an_agent, before=_no_proposal_writer),
    UseCase("A proposal from the template", "use-cases/proposal-from-template.md", "Proposal writer",
            "Write the Ortiz Bakery packaging redesign proposal for Rosa Ortiz from the proposal template in Drive, "
            "due Friday.",
            "Proposal writer copies the proposal template in Drive, fills it in for Ortiz Bakery, and hands Sam the "
            "link.", _proposal),
    UseCase("Filling Contacts from mail", "use-cases/contacts-from-mail.md", "Client desk",
            "Can you fill Contacts from my email? Just real people I work with, no newsletters.",
            "Client desk works out who Sam writes to most from sent mail, reads their signatures, and saves them as "
            "contacts.", _contacts, before=_sam_wrote_to_new_people),
    UseCase("A month of hours", "use-cases/hours-spreadsheet.md", "Bookkeeper",
            "Can you total October's hours per client from the timesheet? I need it for invoicing.",
            "Bookkeeper totals October's hours per client from the timesheet, and saves the summary to Drive as a "
            "Google Sheet.", _hours),
    UseCase("Booking a kickoff call", "use-cases/kickoff-call.md", "Client desk",
            "Juniper signed! Book a kickoff call with Dana next week, an hour, mornings are best for me.",
            "Client desk finds a free hour in Sam's calendar, holds it, offers it to Dana at Juniper Dental, and "
            "sets a follow-up.", _kickoff),
    UseCase("A new client enquiry", "use-cases/new-client-enquiry.md", "Client desk",
            "When a new client writes in, answer the same day. Quotes come from the rate card in Drive, and I see "
            "every quote before it goes out.",
            "Client desk answers Juniper Dental's request for a quote, priced from the rate card, and Sam approves "
            "it before it goes.", _enquiry, then=_dana_writes),
    UseCase("Chasing overdue invoices", "use-cases/overdue-invoices.md", "Bookkeeper",
            "Every Monday morning, chase anything more than a week overdue. Be friendly the first time. Anything "
            "over $5,000, check with me first.",
            "Bookkeeper's Monday routine reads QuickBooks, emails Ortiz Bakery about an overdue invoice, and sets a "
            "follow-up.", _overdue, then=_monday_comes),
]


# --- the run ------------------------------------------------------------------------------------------------------


def play(org: Organization, *, report: Path, max_calls: int = MAX_CALLS, max_dollars: Decimal = MAX_DOLLARS,
         say: Callable[[str], None] = print, cases: list[UseCase] | None = None) -> list[Played]:
    """Play each use case in `org` (the example workspace) and write the report; without a model, say so."""
    if not model_connected(org):
        say(NO_MODEL)
        return []
    metered = Metered(get_model(org), max_calls=max_calls, max_dollars=max_dollars)
    set_model(metered)
    played = []
    try:
        for case in cases or USE_CASES:
            played.append(_play_one(org, case, metered))
            say(f"{case.name}: {'reached' if played[-1].reached else 'NOT reached'} ({played[-1].happened})")
    finally:
        set_model(None)
    report.write_text(report_text(played, metered))
    say(f"Report: {report}")
    return played


def _play_one(org, case: UseCase, metered: Metered) -> Played:
    played = Played(case)
    since = timezone.now()
    calls, tokens_in, tokens_out, dollars = metered.calls, metered.input_tokens, metered.output_tokens, metered.dollars
    if case.before:
        case.before(org)
    agent = Agent.objects.filter(organization=org, name=case.agent).first()
    if agent is None:
        played.happened = f"the workspace has no agent {case.agent}"
        played.wrong.append(played.happened)
        return played
    try:
        agent_services.owner_message_send(org=org, agent=agent, text=case.says)
        drain(org_id=org.id)
        if case.then:
            case.then(org)
            drain(org_id=org.id)
        played.reached, played.happened = case.check(org, since)
    except Exception as error:  # noqa: BLE001  (the report says what broke, and the next use case still runs)
        played.happened = f"the run stopped: {type(error).__name__}: {error}"
        played.wrong.append(played.happened)
    chat = agent_services.chat_for(agent=agent)
    last = Message.objects.filter(conversation=chat, role__in=[Message.Role.AGENT, Message.Role.ANSWER],
                                  created_at__gte=since).exclude(text="").order_by("-seq").first()
    played.answer = last.text if last else ""
    played.calls = metered.calls - calls
    played.input_tokens, played.output_tokens = metered.input_tokens - tokens_in, metered.output_tokens - tokens_out
    played.dollars = metered.dollars - dollars
    _tools_and_errors(org, since, played)
    if metered.capped:
        played.wrong.append(metered.capped)
    return played


def _tools_and_errors(org, since, played: Played) -> None:
    calls = ToolCall.objects.filter(conversation__organization=org, message__created_at__gte=since).order_by("id")
    for call in calls.select_related("conversation", "conversation__agent"):
        name = call.name
        if name == "use_tool" and isinstance(call.arguments, dict) and isinstance(call.arguments.get("name"), str):
            name = call.arguments["name"]
        played.tools[name] += 1
        result = call.result if isinstance(call.result, dict) else {}
        if "error" in result:
            where = call.conversation.title or f"{call.conversation.agent.name}'s chat"
            message = str(result.get("message", ""))
            played.wrong.append(f"{name} in {where}: {result['error']}: {message[:200]}")
    for run in Run.objects.filter(conversation__organization=org, started_at__gte=since,
                                  outcome=Run.Outcome.FAILED).select_related("conversation"):
        played.wrong.append(f"a turn of {run.conversation.title or 'a chat'} failed: {run.error[:200]}")
    for card in Card.objects.filter(organization=org, created_at__gte=since, kind=Card.Kind.TRY_AGAIN):
        played.wrong.append(f"card on Home: {card.title}")
    for note in Message.objects.filter(conversation__organization=org, created_at__gte=since,
                                       role=Message.Role.SYSTEM, data__reply_note=True).select_related(
                                           "conversation", "conversation__agent"):
        where = note.conversation.title or f"{note.conversation.agent.name}'s chat"
        played.wrong.append(f"told to redo a reply in {where}: {note.text}")


def report_text(played: list[Played], metered: Metered) -> str:
    reached = sum(p.reached for p in played)
    lines = [
        "# Smoke run", "",
        f"{reached} of {len(played)} use cases reached the spec's outcome. Model calls {metered.calls}, tokens "
        f"{metered.input_tokens:,} in and {metered.output_tokens:,} out, ${metered.dollars:.4f} (caps: "
        f"{metered.max_calls} calls, ${metered.max_dollars:.2f}).", "",
        "| use case | outcome | model calls | tokens in | tokens out | cost |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {p.case.name} | {'reached' if p.reached else 'not reached'} | {p.calls} | {p.input_tokens:,} | "
              f"{p.output_tokens:,} | ${p.dollars:.4f} |" for p in played]
    for p in played:
        lines += ["", f"## {p.case.name}", "",
                  f"- Spec ({p.case.page}): {p.case.expects}",
                  f"- Sam said, in {p.case.agent}'s chat: “{p.case.says}”",
                  f"- What happened: {p.happened}",
                  f"- The chat's last word: {p.answer[:400] or '(none)'}",
                  f"- Tools called: {', '.join(f'{n} ×{c}' if c > 1 else n for n, c in p.tools.items()) or 'none'}",
                  "- Where it went wrong: " + ("nothing" if not p.wrong else "")]
        lines += [f"  - {w}" for w in p.wrong]
    return "\n".join(lines) + "\n"


__all__ = ["NO_MODEL", "USE_CASES", "Metered", "Played", "UseCase", "play", "report_text"]
