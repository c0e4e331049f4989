"""Reads for Home and the chats: the cards and asks waiting for the owner, Your work (the agents' work, held
emails, the change lines) and the morning summary, each a fixed number of queries however much there is."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from agents.models import Agent, Conversation, Message, Run, Work
from agents.runtime.model import model_connected
from checks.models import Ask
from checks.selectors import went_since
from core import held
from core import selectors as core_selectors
from core.held import HeldLine
from core.inputs import Uuid, as_uuid
from core.models import Card, Organization
from routines.models import Summary

# --- Waiting for you: the asks --------------------------------------------------------------------------------

ASKS_SHOWN = 20


@dataclass(frozen=True)
class HomeAsk:
    """An agent's question the owner answers in place, from the check's ask that holds the action back."""

    id: str
    agent_id: str
    agent_name: str
    question: str  # the agent's own words (its reply after the ask), or "" when it gave none
    reason: str
    where: str  # the thread's title; "" when the ask came from the agent's chat or an outside app
    conversation_id: str
    at: datetime.datetime
    # The action held back, as the check saw it: what the owner says yes to.
    tool: str = ""
    input: dict | None = None
    replaces: object = None
    note: str = ""  # what the tool carried for the check to weigh, such as a cost
    done: bool = False  # the action went: shown as done, with no Yes or No


def _uuids(values) -> set[Uuid]:
    return {found for value in values if (found := as_uuid(value)) is not None}


def home_asks(*, org: Organization, limit: int = ASKS_SHOWN) -> list[HomeAsk]:
    """The asks still waiting for the owner, newest first: three queries, however many there are.

    An ask the owner answered in the chat instead, whose action then went ahead, is over: a later "go" on the same
    action in the same conversation takes it off Home.
    """
    # An ask whose action went (on a yes given anywhere, or on the owner's own words, reworded or not) stays a day,
    # shown as done with no Yes or No: the owner sees it is over, and a stale Yes can't send it again.
    recently = timezone.now() - datetime.timedelta(days=1)
    went_at = Subquery(went_since().values("created_at")[:1])
    asks = list(
        Ask.objects.filter(organization=org, decision__actor_kind="agent")
        .filter(Q(state=Ask.State.WAITING)
                | Q(state=Ask.State.DONE, used_by__created_at__gte=recently)
                # answered in the chat instead, and spent: open as far as Home knew, so shown done too
                | Q(state=Ask.State.YES, answered_in="chat", used_by__created_at__gte=recently))
        .annotate(went_at=went_at)
        .filter(Q(went_at__isnull=True) | Q(went_at__gte=recently) | ~Q(state=Ask.State.WAITING))
        .select_related("decision")
        .order_by("-created_at")[:limit]
    )
    if not asks:
        return []
    agents = {
        str(a.id): a.name
        for a in Agent.objects.filter(organization=org, id__in=_uuids(a.decision.actor_id for a in asks)).only("name")
    }
    replies = (
        Message.objects.filter(conversation=OuterRef("pk"), role=Message.Role.AGENT).exclude(text="").order_by("-seq")
    )
    conversations = {
        str(c.id): c
        for c in Conversation.objects.filter(
            organization=org, id__in=_uuids(a.decision.conversation_id for a in asks)
        ).annotate(
            reply=Subquery(replies.values("text")[:1]), reply_at=Subquery(replies.values("created_at")[:1])
        ).only("id", "kind", "title")
    }
    shown = []
    for ask in asks:
        decision = ask.decision
        agent_id = decision.actor_id or ""
        name = agents.get(agent_id)
        if name is None:
            continue  # the agent is no longer on the staff: there is no chat to answer in
        conversation = conversations.get(decision.conversation_id or "")
        reason = decision.reason or "the check couldn't decide"
        question = ""  # Home says why it waits, in the owner's words (home/ask_words.py)
        if conversation is not None and conversation.reply and conversation.reply_at >= decision.created_at:
            question = conversation.reply
        where = conversation.title if conversation is not None and conversation.kind == "thread" else ""
        shown.append(HomeAsk(id=str(ask.id), agent_id=agent_id, agent_name=name, question=question,
                             reason=reason, where=where, conversation_id=decision.conversation_id or "",
                             at=ask.created_at, tool=decision.tool, input=decision.input,
                             replaces=decision.replaces, note=decision.note,
                             done=ask.state != Ask.State.WAITING or ask.went_at is not None))
    return shown


# --- Your work: each piece of work, under the agent doing it --------------------------------------------------

WORK_SHOWN = 30
# Home shows this many pieces of work a page; "Show earlier work" pages back.
WORK_PAGE = 10


@dataclass(frozen=True)
class WorkItem:
    id: str
    task: str
    where: str  # the thread's title, or "" for work in the agent's chat
    state: str  # working, up next, waiting, waiting for you, done, couldn't finish, can't start, paused
    latest_reply: str
    at: datetime.datetime
    answered_at: datetime.datetime | None
    agent_id: str = ""
    agent_name: str = ""
    conversation_id: str = ""
    in_thread: bool = False  # the work is in a thread (its page), not in the agent's chat
    why: str = ""  # why it is stuck or waits, in the owner's words; "" when it is moving or done
    try_again: bool = False  # Try again would move it: the turn failed, or couldn't start before a model was set


@dataclass(frozen=True)
class AgentWork:
    agent_id: str
    agent_name: str
    items: list[WorkItem]


def _work_state(work) -> str:
    if work.state == Work.State.ANSWERED:
        return "done"
    if work.state == Work.State.FAILED:
        return "couldn't finish"
    if work.conversation.state == Conversation.State.RUNNING:
        return "working"
    if work.conversation.state == Conversation.State.QUEUED:
        return "up next"
    return "waiting"


# Said on Home and on the thread's own page, where no card is above it: so they name the page to go to, not a card.
NO_MODEL_WHY = ("It can't start: no AI model is connected to Roadstar yet. Connect one on Settings, AI model; then "
                "Try again starts it.")
NO_MODEL_BEFORE_WHY = "It couldn't start earlier, when no AI model was connected. Try again starts it now."
FAILED_WHY = ("It stopped: the AI model didn't answer, even after five tries over about a minute. Nothing is lost: "
              "Try again picks it up where it stopped.")


def _stuck(work, *, state: str, model_ready: bool, stopped: str | None) -> tuple[str, str, bool]:
    """(state, why, try_again) for a piece of work that isn't moving, in the owner's words."""
    if work.state == Work.State.ANSWERED:
        return state, "", False
    if work.state == Work.State.FAILED or work.last_outcome == Run.Outcome.FAILED or stopped is not None:
        return "couldn't finish", stopped or FAILED_WHY, True
    if state == "waiting for you":
        return state, "It asked you something above; it goes on once you answer.", False
    if work.agent.paused:
        return "paused", (f"{work.agent.name} is paused: it went past its monthly budget. Raise its budget on the "
                          "Agents page and it goes on."), False
    if not model_ready and state in ("waiting", "up next"):
        return "can't start", NO_MODEL_WHY, False
    if work.last_outcome == Run.Outcome.NO_MODEL and state == "waiting":
        return "waiting", NO_MODEL_BEFORE_WHY, True
    if state == "waiting" and work.waits_on:
        return state, f"Waiting for an answer from {work.waits_on}.", False
    if state == "waiting":
        return (
            state,
            "Nothing is running on it now: it goes on when a message, an answer or its routine's next run comes in.",
            False,
        )
    return state, "", False


def _with_standing(rows):
    """Work rows with what _stuck reads: the conversation's last run's outcome, and whom it waits on."""
    last_run = Run.objects.filter(conversation=OuterRef("conversation")).order_by("-started_at", "-id")
    return rows.select_related("agent", "conversation").annotate(
        last_outcome=Subquery(last_run.values("outcome")[:1]),
        waits_on=Subquery(
            Work.objects.filter(requester=OuterRef("conversation"), state=Work.State.OPEN)
            .order_by("-created_at").values("agent__name")[:1]
        ),
    )


def _stopped(org) -> dict[str, str]:
    # The open Try again cards say what stopped each conversation, in the owner's words (agents.runtime.turn).
    return dict(
        Card.objects.filter(organization=org, kind=Card.Kind.TRY_AGAIN, resolved_at__isnull=True,
                            subject__startswith="try_again:").values_list("subject", "body")
    )


def home_work(*, org: Organization, asking: frozenset[str] = frozenset(), limit: int = WORK_SHOWN,
              conversation_id=None) -> list[AgentWork]:
    """The newest pieces of work, grouped under the agent doing each, the agent with the newest work first. One
    query. Work a chat passed on whole is left out: the thread or agent it went to shows it. `asking`: the
    conversations whose ask waits for the owner; their newest piece of work is "waiting for you". Work that
    can't move says why, and whether Try again would help."""
    return _grouped(_work_items(org=org, asking=asking, limit=limit, conversation_id=conversation_id))


def home_work_page(*, org: Organization, asking: frozenset[str] = frozenset(), offset: int = 0,
                   size: int = WORK_PAGE) -> tuple[list[AgentWork], bool]:
    """Home's page of work: `size` pieces after the newest `offset`, grouped as home_work groups them, and whether
    there are earlier ones. The pieces skipped still count for "waiting for you" (only a conversation's newest
    piece waits)."""
    items = _work_items(org=org, asking=asking, limit=offset + size + 1)
    shown = items[offset: offset + size]
    return _grouped(shown), len(items) > offset + size


def _grouped(items: list[WorkItem]) -> list[AgentWork]:
    groups: dict[str, AgentWork] = {}
    for item in items:
        group = groups.get(item.agent_id)
        if group is None:
            group = groups[item.agent_id] = AgentWork(agent_id=item.agent_id, agent_name=item.agent_name, items=[])
        group.items.append(item)
    return list(groups.values())


def _work_items(*, org: Organization, asking: frozenset[str], limit: int, conversation_id=None) -> list[WorkItem]:
    """The newest `limit` pieces of work, newest first, each with its state in the owner's words."""
    rows = Work.objects.filter(organization=org)
    if conversation_id is not None:  # one thread's work, for its page
        rows = rows.filter(conversation_id=conversation_id)
    rows = _with_standing(rows.exclude(state=Work.State.PASSED)).order_by("-created_at", "-id")[:limit]
    model_ready = model_connected(org)
    stopped = _stopped(org)
    items: list[WorkItem] = []
    seen: set[str] = set()
    for work in rows:
        conversation_id = str(work.conversation_id)
        state = _work_state(work)
        if conversation_id in asking and conversation_id not in seen:
            state = "waiting for you"
        seen.add(conversation_id)
        state, why, try_again = _stuck(work, state=state, model_ready=model_ready,
                                       stopped=stopped.get(f"try_again:{conversation_id}"))
        items.append(WorkItem(
            id=str(work.id), task=work.task,
            where=work.conversation.title if work.conversation.kind == "thread" else "",
            state=state, latest_reply=work.latest_reply, at=work.created_at,
            answered_at=work.answered_at, agent_id=str(work.agent_id), agent_name=work.agent.name,
            conversation_id=conversation_id, in_thread=work.conversation.kind == "thread", why=why,
            try_again=try_again,
        ))
    return items


# --- Your work: the change lines --------------------------------------------------------------------------------

# What a line shows and needs for its Undo: read as named rows, not Changes (core.selectors.home_work_lines).
LINE_FIELDS = ("id", "actor_kind", "actor_id", "actor_name", "sentence", "listing", "undo", "undone_at", "undoes_id",
               "target_type", "target_id")


def home_lines(*, org: Organization, before: datetime.datetime | None = None) -> core_selectors.WorkPage:
    """A page of Your work's change lines, newest first, older than `before`: one query, however many lines the
    workspace holds (keyset paging on change_home_order_idx)."""
    return core_selectors.home_work_lines(org=org, before=before, fields=LINE_FIELDS)


# --- Your work: emails held before they go (the mail group fills this in) -------------------------------------


def home_held(*, org: Organization) -> list[HeldLine]:
    lines = [line for source in held.HELD_SOURCES.values() for line in source.lines(org)]
    return sorted(lines, key=lambda line: line.held_until)


# --- The morning summary --------------------------------------------------------------------------------------


def home_summary(*, org: Organization):
    """The latest morning summary with something in it, or None."""
    return Summary.objects.filter(organization=org).exclude(text="").order_by("-at", "-id").first()


# --- Chats ----------------------------------------------------------------------------------------------------

CHAT_SHOWN = 100


def staff(*, org: Organization) -> list:
    """The owner's agents, Roadstar first, for the chats' list."""
    agents = Agent.objects.filter(organization=org).order_by("-is_roadstar", "name")
    return list(agents.only("id", "name", "is_roadstar"))


def chat_of(*, agent):
    """The agent's chat, or None when the owner hasn't written to it yet (reading never makes one)."""
    return Conversation.objects.filter(agent=agent, kind=Conversation.Kind.CHAT).first()


def chat_messages(*, conversation, limit: int = CHAT_SHOWN) -> list:
    """The newest `limit` messages the owner reads in a chat, oldest first: no tool results, no bare tool steps."""
    rows = list(
        Message.objects.filter(conversation=conversation)
        .exclude(role=Message.Role.TOOL)
        .exclude(role=Message.Role.AGENT, text="")
        .order_by("-seq")[:limit]
    )
    rows.reverse()
    return rows


def agent_threads_at_work(*, agent, asking: frozenset[str] = frozenset()) -> list[dict]:
    """The agent's threads with work still open, each with where it stands in the words Home's Your work uses
    (`_work_state` and `_stuck`, the one source): a chat never says "Working on" what Home says isn't running."""
    org = agent.organization
    rows = _with_standing(Work.objects.filter(agent=agent, state=Work.State.OPEN,
                                              conversation__kind=Conversation.Kind.THREAD)).order_by("-created_at")
    model_ready = model_connected(org)
    stopped = _stopped(org)
    threads: dict[str, dict] = {}
    for work in rows:
        key = str(work.conversation_id)
        if key in threads:
            continue  # its newest piece of work says where the thread stands, as on Home
        state = "waiting for you" if key in asking else _work_state(work)
        state, _, _ = _stuck(work, state=state, model_ready=model_ready, stopped=stopped.get(f"try_again:{key}"))
        threads[key] = {"title": work.conversation.title, "state": state}
    return sorted(threads.values(), key=lambda t: t["title"])
