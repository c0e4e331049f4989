"""Writes for agents at work: the agents themselves, their conversations and messages, work and usage."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ObjectNotUpdated
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from agents.models import Agent, Conversation, Message, Usage, Work
from agents.runtime import scheduler
from agents.runtime.model import cost_of
from agents.runtime.scheduler import wake
from agents.selectors import agent_spend_this_month
from core import limits, live, rows
from core.actors import Actor
from core.errors import ToolError
from core.locking import lock
from core.models import Card
from core.services import card_open

MAX_AGENTS = 40  # besides Roadstar
JOB_DESCRIPTION_LIMIT = limits.JOB_DESCRIPTION
MAX_OPEN_THREADS = 30
MODEL_IDS = [choice for choice, _ in Agent.Model.choices]


# --- agents -------------------------------------------------------------------------------------------------


def agent_by_name(*, org, name: str) -> Agent:
    agent = Agent.objects.filter(organization=org, name__iexact=(name or "").strip()).first()
    if agent is None:
        names = ", ".join(Agent.objects.filter(organization=org).values_list("name", flat=True))
        raise ToolError("not_found", f"There is no agent called {name!r}. The owner's agents are: {names}.")
    return agent


def _too_long(field: str, text: str | None, limit: int, what: str) -> None:
    if text is not None and len(text) > limit:
        raise ToolError("bad_input", f"{field}: {len(text):,} characters; {what} is at most {limit:,}. Shorten it; "
                                     "nothing was saved.")


def _check_agent_words(*, name=None, job=None, department=None) -> None:
    _too_long("name", name, limits.AGENT_NAME, "an agent's name")
    _too_long("job", job, limits.AGENT_JOB, "a job, in one line,")
    _too_long("department", department, limits.AGENT_DEPARTMENT, "a department's name")


def _check_job_description(owns, good, works, asks_first):
    length = sum(len(part or "") for part in (owns, good, works, asks_first))
    if length > JOB_DESCRIPTION_LIMIT:
        raise ToolError(
            "bad_input",
            f"owns, good, works, asksFirst: the job description's four parts come to {length} characters; "
            f"{JOB_DESCRIPTION_LIMIT} is the most. Shorten it; nothing was saved.",
        )


def agent_make(
    *, org, actor: Actor, name: str, job: str, owns: str, good: str, works: str, asks_first: str,
    model: str | None = None, reports_to: str | None = None, department: str | None = None,
) -> Agent:
    name = name.strip()
    if not name:
        raise ToolError("bad_input", "name: required")
    _check_agent_words(name=name, job=job, department=department)
    _check_job_description(owns, good, works, asks_first)
    if Agent.objects.filter(organization=org, is_roadstar=False).count() >= MAX_AGENTS:
        raise ToolError(
            "bad_input", f"An owner keeps up to {MAX_AGENTS} agents besides Roadstar; this workspace has that many."
        )
    if Agent.objects.filter(organization=org, name__iexact=name).exists():
        raise ToolError("bad_input", f"name: there is an agent called {name} already.")
    boss = (
        agent_by_name(org=org, name=reports_to) if reports_to else Agent.objects.get(organization=org, is_roadstar=True)
    )
    return Agent.objects.create(
        organization=org, name=name, job=job, owns=owns, good=good, works=works, asks_first=asks_first,
        model=model or Agent.Model.TERRA, reports_to=boss, department=department or "",
    )


AGENT_FIELDS = ("name", "job", "owns", "good", "works", "asks_first", "model", "reports_to", "department")


def agent_change(*, org, actor: Actor, agent: Agent, changes: dict) -> Agent:
    """Change what is given of name, job, the four parts, model, reportsTo (a name) and department. The agent is
    read again under its lock, and only what changes is written: a note kept meanwhile stays."""
    with transaction.atomic():
        lock(agent)
        if "name" in changes:
            new_name = changes["name"].strip()
            if not new_name:
                raise ToolError("bad_input", "name: can't be empty")
            if Agent.objects.filter(organization=org, name__iexact=new_name).exclude(id=agent.id).exists():
                raise ToolError("bad_input", f"name: there is an agent called {new_name} already.")
            if agent.is_roadstar and new_name != agent.name:
                raise ToolError("bad_input", "name: Roadstar keeps its name.")
            changes["name"] = new_name
        _check_agent_words(name=changes.get("name"), job=changes.get("job"), department=changes.get("department"))
        parts = {k: changes.get(k, getattr(agent, k)) for k in ("owns", "good", "works", "asks_first")}
        _check_job_description(**parts)
        if "reports_to" in changes:
            boss = agent_by_name(org=org, name=changes["reports_to"]) if changes["reports_to"] else None
            if boss is not None and boss.id == agent.id:
                raise ToolError("bad_input", "reportsTo: an agent can't report to itself.")
            changes["reports_to"] = boss
        for key, value in changes.items():
            setattr(agent, key, value)
        agent.save(update_fields=[*changes, "updated_at"])
    return agent


def agent_remember(*, agent: Agent, note: str | None = None, forget: str | None = None,
                   about: str | None = None) -> dict:
    """Keep or drop a note; Roadstar also keeps the About. Returns the spec's answer. The notes are read again
    under the agent's lock, so notes kept at the same time by two threads are both kept."""
    if about is not None and not agent.is_roadstar:
        raise ToolError("bad_input", "about: only Roadstar keeps the About; tell Roadstar with hand_off.")
    if note is None and forget is None and about is None:
        raise ToolError("bad_input", "note, forget or about: give one")
    _too_long("note", note.strip() if note else None, limits.NOTE, "a note")
    _too_long("about", about, limits.ABOUT, "the About")
    with transaction.atomic():
        lock(agent)
        if forget is not None and forget not in agent.notes:
            raise ToolError(
                "not_found", "forget: no note reads exactly that; give the note word for word. Notes: "
                + " | ".join(agent.notes),
            )
        if forget is not None:
            agent.notes = [n for n in agent.notes if n != forget]
        if note is not None and note.strip() and note.strip() not in agent.notes:
            agent.notes = [*agent.notes, note.strip()]
            total = sum(len(n) for n in agent.notes)
            if total > limits.NOTES_TOTAL:
                raise ToolError(
                    "bad_input", f"note: {agent.name}'s notes would come to {total:,} characters; they hold at most "
                    f"{limits.NOTES_TOTAL:,}, as every prompt carries them. Forget one that no longer holds, or "
                    "fold two into one, then keep this one; nothing was saved.",
                )
        agent.save(update_fields=["notes", "updated_at"])
        if about is not None:
            org = agent.organization
            org.about = about
            org.save(update_fields=["about"])
    if about is not None and note is None and forget is None:
        return {"about": "saved"}
    return {"notes": list(agent.notes)}


def usage_record(*, org, agent: Agent | None, conversation: Conversation | None, purpose: str, model_id: str,
                 usage) -> Usage:
    """Record one model call's tokens and cost; an agent past its monthly budget is paused, with a Home card."""
    row = rows.insert(usage_row(org=org, agent=agent, conversation=conversation, purpose=purpose, model_id=model_id,
                                usage=usage))  # once a model call, every step of a turn (core.rows)
    agent_keep_to_budget(agent=agent)
    return row


def usage_row(*, org, agent: Agent | None, conversation: Conversation | None, purpose: str, model_id: str,
              usage) -> Usage:
    """One model call's tokens and cost, as a row not saved yet (a turn's step writes it with the step's others)."""
    return Usage(
        organization=org, agent=agent, conversation=conversation, purpose=purpose, model=model_id,
        input_tokens=usage.input_tokens, cached_input_tokens=usage.cached_input_tokens,
        output_tokens=usage.output_tokens, cost=cost_of(model_id, usage),
    )


def agent_keep_to_budget(*, agent: Agent | None) -> None:
    """After a model call's usage is written: an agent past its monthly budget is paused, with a Home card."""
    if agent is not None and agent.monthly_budget is not None and not agent.paused:
        spent = agent_spend_this_month(agent=agent)
        if spent > agent.monthly_budget:
            agent_pause_for_budget(agent=agent, spent=spent)


def agent_pause_for_budget(*, agent: Agent, spent: Decimal) -> None:
    Agent.objects.filter(id=agent.id).update(paused=True)
    agent.paused = True
    card_open(
        org=agent.organization, kind="budget", subject=f"budget:{agent.id}",
        title=f"{agent.name} is paused: it spent ${spent:.2f} of its ${agent.monthly_budget:.2f} this month",
        body=f"Raise {agent.name}'s monthly budget to let it work again; its work waits until then.",
        action_label="Raise the budget", data={"agent_id": str(agent.id)},
    )


def agent_raise_budget(*, org, agent: Agent, monthly_budget: Decimal) -> Agent:
    if agent.organization_id != org.id:
        raise ToolError("not_found", f"No agent {agent.name!r} in this workspace.")
    with transaction.atomic():
        agent.monthly_budget = monthly_budget
        agent.paused = agent_spend_this_month(agent=agent) > monthly_budget
        agent.save(update_fields=["monthly_budget", "paused", "updated_at"])
        if not agent.paused:
            Card.objects.filter(organization=org, subject=f"budget:{agent.id}", resolved_at__isnull=True).update(
                resolved_at=timezone.now()
            )
            transaction.on_commit(lambda: scheduler.dispatch(org_id=org.id))
    return agent


# --- conversations and messages -----------------------------------------------------------------------------


def chat_for(*, agent: Agent) -> Conversation:
    # One chat an agent (a unique constraint); by a kept statement, as every answer from a thread reads it.
    found = rows.select(Conversation, [("agent_id", "=", agent.pk), ("kind", "=", Conversation.Kind.CHAT)], limit=1)
    if found:
        return found[0]
    try:
        with transaction.atomic():
            return Conversation.objects.create(organization_id=agent.organization_id, agent=agent, kind="chat")
    except IntegrityError:
        return Conversation.objects.get(agent=agent, kind=Conversation.Kind.CHAT)


def message_append(*, conversation: Conversation, role: str, text: str, data: dict | None = None,
                   saw_upto: int | None = None, lease=None) -> Message:
    """Append a message with the next seq, taken from the conversation's counter.

    One UPDATE … RETURNING takes the seq and, until the transaction commits, locks the conversation's row
    (PostgreSQL) or holds the write lock it took at BEGIN (SQLite's transactions here are IMMEDIATE): concurrent
    writers take turns, so no two messages share a seq, and a rolled-back append gives its seq back.
    `conversation.next_seq` holds the counter after it.

    `saw_upto`, for the model's own step: the last seq its prompt held. Messages appended meanwhile (the owner
    wrote again while the model was writing) take seqs before this one though the step never saw them; the step
    then keeps `saw_upto` in its data, so they count as not yet answered (messages.input_waits) and are shown after
    it (messages.PromptMessages).

    `lease`, for a turn's own messages: the token of the claim it runs under. The counter is taken only while the
    conversation still holds it, else scheduler.LeaseLost: a worker taken for dead, whose conversation was
    claimed again, writes nothing more (the step and the call it writes with it roll back).
    """
    # Inside a caller's transaction no savepoint is needed: a failure here fails the caller's whole write.
    # The seq's UPDATE and the INSERT are one kept statement on PostgreSQL (core.rows.insert_numbered: a turn
    # appends two messages a step, each a round trip to the server less), two elsewhere.
    data = data or {}
    # The step keeps `saw_upto` only when the seq it takes is past the one after it (others appended meanwhile).
    past = (saw_upto + 1, "data", {**data, "saw_upto": saw_upto}) if saw_upto is not None else None
    message = Message(conversation=conversation, role=role, text=text, data=data)
    with transaction.atomic(savepoint=False):
        try:
            rows.insert_numbered(message, "seq", conversation, "next_seq", past=past,
                                 fence=("lease_token", lease) if lease is not None else None)
        except ObjectNotUpdated as lost:
            if lease is None:
                raise
            raise scheduler.LeaseLost(f"conversation {conversation.id} is no longer this worker's") from lost
        live.notify(conversation.organization_id, "chat", conversation=conversation.id)  # sent after commit
    return message


def thread_by_title(*, agent: Agent, title: str, include_closed: bool = True) -> Conversation:
    threads = Conversation.objects.filter(agent=agent, kind=Conversation.Kind.THREAD, title__iexact=title.strip())
    if not include_closed:
        threads = threads.filter(closed_at__isnull=True)
    # The open one first (NULLs sort first on SQLite but last on PostgreSQL: say it), else the last one closed.
    thread = threads.order_by(F("closed_at").desc(nulls_first=True), "-created_at").first()
    if thread is None:
        open_titles = Conversation.objects.filter(
            agent=agent, kind=Conversation.Kind.THREAD, closed_at__isnull=True
        ).values_list("title", flat=True)
        raise ToolError(
            "not_found",
            f"No thread called {title!r}. Open threads: {', '.join(open_titles) or 'none'}.",
        )
    return thread


def open_threads(*, agent: Agent) -> int:
    """Open threads the limit counts: a routine's own thread belongs to the routine, not to the chat's work."""
    return _open_threads_titled(agent=agent, title=None)[0]


def thread_start(*, agent: Agent, title: str, routine_id: str = "") -> Conversation:
    title = title.strip()
    if not title:
        raise ToolError("bad_input", "title: required")
    open_count, same = (0, 0) if routine_id else _open_threads_titled(agent=agent, title=title)
    if same:
        raise ToolError(
            "bad_input", f"title: a thread called {title} is open already; send it work with message_thread."
        )
    if open_count >= MAX_OPEN_THREADS:
        raise ToolError(
            "bad_input", f"{agent.name} has {MAX_OPEN_THREADS} open threads, the most it keeps: close a finished "
            "one with close_thread, or send this work to a thread that holds it.",
        )
    # (a kept statement; in a tool's transaction it goes out with the next: core.rows.holding_writes)
    return rows.insert(Conversation(
        organization_id=agent.organization_id, agent=agent, kind="thread", title=title, routine_id=routine_id
    ), held=True)


def _open_threads_titled(*, agent: Agent, title: str | None) -> tuple[int, int]:
    """The chat's open threads the limit counts (open_threads), and how many of them have this title in any letter
    case (as the ORM's iexact: UPPER on both sides; None: none asked): one read, by a kept statement, as every
    start_thread asks."""
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(
            'SELECT COUNT(*), COALESCE(SUM(CASE WHEN UPPER("title") = UPPER(%s) THEN 1 ELSE 0 END), 0) '
            f'FROM "{Conversation._meta.db_table}" WHERE "agent_id" = %s AND "kind" = %s AND "closed_at" IS NULL '
            'AND "routine_id" = %s',
            [title, Conversation._meta.get_field("agent").get_db_prep_value(agent.pk, connection),
             Conversation.Kind.THREAD.value, ""],
        )
        open_count, same = cursor.fetchone()
    return open_count, same


def thread_close(*, thread: Conversation) -> None:
    thread.closed_at = timezone.now()
    thread.save(update_fields=["closed_at", "updated_at"])


def thread_reopen(*, thread: Conversation) -> None:
    if thread.closed_at is not None:
        if not thread.routine_id and open_threads(agent=thread.agent) >= MAX_OPEN_THREADS:
            raise ToolError(
                "bad_input", f"Reopening {thread.title} would pass {MAX_OPEN_THREADS} open threads; close one first."
            )
        thread.closed_at = None
        thread.save(update_fields=["closed_at", "updated_at"])


# --- work -----------------------------------------------------------------------------------------------------


def work_open(
    *, org, agent: Agent, conversation: Conversation, task: str, requester: Conversation | None,
    requested_by: Agent | None = None, chain: list | None = None, depth: int = 0, owner_words: list | None = None,
    and_then_group=None, and_then: str = "", seq: int | None = None,
) -> Work:
    """`seq`: the message that brings the work, in `conversation`; by default the last one appended through this
    conversation object (every caller appends the work's message just before: message_append keeps the counter)."""
    if seq is None and conversation.next_seq:
        seq = conversation.next_seq - 1
    # (a kept statement; in a tool's transaction it goes out with the next: core.rows.holding_writes)
    return rows.insert(Work(
        organization=org, agent=agent, conversation=conversation, task=task, requester=requester,
        requested_by=requested_by, chain=chain or [], depth=depth, owner_words=owner_words or [],
        and_then_group=and_then_group, and_then=and_then, seq=seq,
    ), held=True)


def owner_message_send(*, org, agent: Agent, text: str, user=None) -> Message:
    """The owner writes in an agent's chat: a message, a piece of work answered in the chat, and a turn."""
    text = (text or "").strip()
    if not text:
        raise ToolError("bad_input", "text: write something")
    _too_long("text", text, limits.MESSAGE, "a message")
    chat = chat_for(agent=agent)
    with transaction.atomic():
        message = message_append(conversation=chat, role=Message.Role.OWNER, text=text)
        work_open(
            org=org, agent=agent, conversation=chat, task=text, requester=None, seq=message.seq,
            # The ref names these words for the check: a yes in them, carried to a thread, is spent once.
            owner_words=[{"text": text, "where": f"{agent.name}'s chat", "at": message.created_at.isoformat(),
                          "ref": f"message:{message.id}"}],
        )
        wake(conversation=chat)
    return message


def answer_from_home(*, org, thread: Conversation, text: str, ref: str, note: str, note_data: dict) -> Work:
    """The owner's Yes or No to a thread's ask, given on Home: it goes straight to the thread that asked (as the
    owner's words quoted in work handed to it, which the check reads), and the thread starts on it; no model has to
    pass it on. `note` (with `note_data`, what the chat's page shows of it) goes to the agent's chat, quiet: its
    model reads it with what comes next but doesn't start a turn to pass it on again."""
    agent = thread.agent
    at = timezone.now().isoformat()
    owner_words = [{"text": text, "where": "Home", "at": at, "ref": ref}]
    task = f"{org.owner_first_name} answered your question from Home: {text}"
    with transaction.atomic():
        thread_reopen(thread=thread)
        message_append(
            conversation=thread, role=Message.Role.HANDOFF,
            text=f"[From Home] {task}",
            data={"from_chat": True, "from_home": True, "task": task, "notes": "", "links": [],
                  "owner_words": owner_words},
        )
        work = work_open(org=org, agent=agent, conversation=thread, task=task, requester=None,
                         owner_words=owner_words)
        message_append(conversation=chat_for(agent=agent), role=Message.Role.SYSTEM, text=note,
                       data={**note_data, "quiet": True})
        wake(conversation=thread)
    return work


def conversation_try_again(*, org, conversation_id) -> Conversation:
    """Home's Try again: run the turn that couldn't finish once more."""
    conversation = Conversation.objects.filter(organization=org, id=conversation_id).first()
    if conversation is None:
        raise ToolError("not_found", f"No conversation with id {conversation_id} in this workspace.")
    with transaction.atomic():
        Card.objects.filter(
            organization=org, subject=f"try_again:{conversation.id}", resolved_at__isnull=True
        ).update(resolved_at=timezone.now())
        wake(conversation=conversation)
    return conversation
