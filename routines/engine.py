"""What makes agents work on their own: the scheduler's tick, events matched to routines, follow-ups that
come due, and the morning summary.

The tick is run by django-q2 every minute (and can run in many workers at once): each due routine is claimed
with its row locked (skip-locked on PostgreSQL) and its next time moved on in the same transaction, so it fires
exactly once. After downtime a routine fires once, not once per missed slot: its next time is computed from now.
"""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from agents import services as agent_services
from agents.models import Agent, Message
from core.actors import Actor
from routines import services
from routines.models import Event, Routine, RoutineKey, RoutineRun, Summary

logger = logging.getLogger(__name__)

ASK_EVENT_KINDS = ("mail.received", "doc.changed")
ASK_CANDIDATES = 20  # at most this many ask routines per event go to the model for confirmation
MATCH_INSTRUCTIONS = (
    "You decide whether a new email or document matches an owner's standing request. Answer with one word: yes or no."
)


# --- the tick ---------------------------------------------------------------------------------------------------


def tick(*, now: datetime.datetime | None = None) -> int:
    """Fire what is due. Returns how many routines fired."""
    now = now or timezone.now()
    fired = 0
    due_ids = list(
        Routine.objects.filter(status=Routine.Status.ON, next_fire_at__lte=now).values_list("id", flat=True)
    )
    for routine_id in due_ids:
        fired += _fire_if_due(routine_id, now=now)
    wake_follow_ups(now=now)
    write_morning_summaries(now=now)
    return fired


def _fire_if_due(routine_id: int, *, now: datetime.datetime) -> int:
    with transaction.atomic():
        routine = (
            Routine.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("organization", "agent", "skill")
            .filter(id=routine_id, status=Routine.Status.ON, next_fire_at__lte=now)
            .first()
        )
        if routine is None:
            return 0  # another worker holds it, or fired it already
        claimed_at = routine.next_fire_at
        reasons = []
        if routine.next_at_time and routine.next_at_time <= now:
            reasons.append("its time came")
        if routine.due and not routine.due_done and routine.due <= now:
            routine.due_done = True
            if "its time came" not in reasons:
                reasons.append("its time came")
        check_changed = False
        if routine.next_check_at and routine.next_check_at <= now:
            check_changed = _run_check(routine)
        # Move every timed `when` past now before firing: a routine missed during downtime fires once.
        services.schedule(routine, now=now)
        # On SQLite the row lock is not there: this conditional write is the claim, and only one writer wins.
        won = Routine.objects.filter(id=routine.id, next_fire_at=claimed_at).update(
            next_at_time=routine.next_at_time, next_check_at=routine.next_check_at, due_done=routine.due_done,
            check_last=routine.check_last, next_fire_at=routine.next_fire_at,
        )
        if not won:
            return 0
        if check_changed:
            reasons.append(f"the result of {routine.check_tool} changed")
        if not reasons:
            return 0
        services.routine_fire(routine=routine, started_by="; ".join(reasons))
        return 1


def _run_check(routine: Routine) -> bool:
    """Run the routine's read-only tool as its agent; did the result change since the last time?"""
    from core.context import ToolContext
    from tools.pipeline import use_tool

    ctx = ToolContext(org=routine.organization, actor=Actor.for_agent(routine.agent))
    result = use_tool(ctx, routine.check_tool, routine.check_input)
    if "error" in result:
        logger.info("routine %s: its check %s failed: %s", routine.id, routine.check_tool, result)
        return False
    digest = services.check_result_hash(result)
    changed = bool(routine.check_last) and digest != routine.check_last
    routine.check_last = digest
    return changed


# --- events -----------------------------------------------------------------------------------------------------


def event_emit(*, org, kind: str, keys: list[str], payload: dict | None = None, text: str = "") -> Event:
    """Record an event and match it to routines after commit, in a worker."""
    from django_q.tasks import async_task

    all_keys = list(dict.fromkeys([f"kind:{kind}", *keys]))
    event = Event.objects.create(organization=org, kind=kind, keys=all_keys, payload=payload or {}, text=text)
    transaction.on_commit(lambda: async_task("routines.tasks.match_event", str(event.id), group="events"))
    return event


def match_event(event: Event) -> list[RoutineRun]:
    """Fire every routine the event matches. The key index makes this cost per key, not per routine."""
    lookup = list(event.keys)
    asking = event.kind in ASK_EVENT_KINDS and event.text
    if asking:
        lookup += sorted(services.ask_index_keys(event.text))
    hits: dict[int, set[str]] = {}
    for routine_id, key in RoutineKey.objects.filter(organization_id=event.organization_id, key__in=lookup).values_list(
        "routine_id", "key"
    ):
        hits.setdefault(routine_id, set()).add(key)
    runs, candidates = [], []
    if not hits:
        # Nothing listens: nothing to mark either, since matching it again would fire nothing.
        return runs
    routines = Routine.objects.filter(id__in=hits, status=Routine.Status.ON).select_related("organization", "agent", "skill")
    for routine in routines:
        keys = {k for k in hits[routine.id] if not k.startswith("word:")}
        if keys and services.filter_passes(routine, event):
            runs.append(services.routine_fire(routine=routine, started_by=services.event_started_by(event), event=event))
        elif asking and routine.ask and len(hits[routine.id]) > len(keys):
            candidates.append((len(hits[routine.id]) - len(keys), routine))
    candidates.sort(key=lambda pair: -pair[0])
    for _, routine in candidates[:ASK_CANDIDATES]:
        if confirm_ask(routine, event):
            runs.append(services.routine_fire(
                routine=routine, started_by=f"new {event.kind.split('.')[0]} matching its words", event=event
            ))
    Event.objects.filter(id=event.id).update(matched_at=timezone.now())
    return runs


def confirm_ask(routine: Routine, event: Event) -> bool:
    """The cheapest model confirms what the word index found. No model: nothing is confirmed."""
    from agents.runtime.model import ModelNotConfigured, ModelUnavailable, get_model

    try:
        model = get_model()
        response = model.complete(
            model_id=settings.CHEAPEST_MODEL,
            messages=[
                {"role": "system", "content": MATCH_INSTRUCTIONS},
                {"role": "user", "content": f"The owner's request: {routine.ask}\n\nThe new item:\n{event.text[:6000]}"},
            ],
            tools=[],
        )
    except (ModelNotConfigured, ModelUnavailable) as error:
        logger.warning("routine %s: could not confirm an ask match: %s", routine.id, error)
        return False
    agent_services.usage_record(
        org=routine.organization, agent=routine.agent, conversation=None, purpose="match",
        model_id=settings.CHEAPEST_MODEL, usage=response.usage,
    )
    return response.text.strip().lower().startswith("yes")


# --- follow-ups -------------------------------------------------------------------------------------------------


def wake_follow_ups(*, now: datetime.datetime) -> int:
    """A follow-up at a time wakes the agent that set it, in the thread it was set from, if it is still open."""
    from agents.models import Conversation
    from agents.runtime.scheduler import wake
    from contacts.models import OpenItem

    woken = 0
    due = OpenItem.objects.filter(
        kind=OpenItem.Kind.FOLLOW_UP, closed_at__isnull=True, woken_at__isnull=True, at__lte=now, by_kind="agent"
    ).select_related("contact", "company")
    for item in due:
        with transaction.atomic():
            if not OpenItem.objects.filter(id=item.id, woken_at__isnull=True, closed_at__isnull=True).update(woken_at=now):
                continue
            agent = Agent.objects.filter(id=item.by_id, organization_id=item.organization_id).first()
            if agent is None:
                continue
            conversation = Conversation.objects.filter(id=item.thread or None, agent=agent).first() if item.thread else None
            conversation = conversation or agent_services.chat_for(agent=agent)
            if conversation.kind == Conversation.Kind.THREAD:
                agent_services.thread_reopen(thread=conversation)
            record = item.contact.name if item.contact_id else item.company.name
            agent_services.message_append(
                conversation=conversation, role=Message.Role.SYSTEM,
                text=f"[Follow-up · {record}] {item.text} (open item {item.id}, set for {item.at.isoformat()}). "
                     "It is still open: do what it says, then close it or set the next one.",
                data={"follow_up": str(item.id)},
            )
            agent_services.work_open(
                org=agent.organization, agent=agent, conversation=conversation, task=f"Follow-up: {item.text}",
                requester=None,
            )
            wake(conversation=conversation)
            woken += 1
    return woken


# --- the morning summary ----------------------------------------------------------------------------------------


def write_morning_summaries(*, now: datetime.datetime) -> int:
    """At each owner's summary time (7:00 local by default), Roadstar writes what happened since the last one."""
    from core.models import Organization

    written = 0
    for org in Organization.objects.filter(Q(last_summary_at__isnull=True) | Q(last_summary_at__lt=now - datetime.timedelta(hours=20))):
        zone = services.owner_zone(org)
        local_now = now.astimezone(zone)
        today_at = datetime.datetime.combine(local_now.date(), org.summary_time, tzinfo=zone)
        if local_now < today_at or (org.last_summary_at and org.last_summary_at >= today_at):
            continue
        with transaction.atomic():
            claimed = Organization.objects.filter(id=org.id, last_summary_at=org.last_summary_at).update(last_summary_at=now)
            if not claimed:
                continue
            summary_start(org=org, since=org.last_summary_at, now=now)
            written += 1
    return written


def summary_start(*, org, since, now) -> Summary:
    """Hand Roadstar what happened since `since` in its "Morning summary" thread; its answer is the summary."""
    from agents.models import Conversation, Work
    from agents.runtime.scheduler import wake
    from core.models import Card, Change

    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    since = since or now - datetime.timedelta(days=1)
    changes = Change.objects.filter(organization=org, at__gte=since, listing__in=["home", "home_undo"]).order_by("at")[:200]
    answered = Work.objects.filter(organization=org, answered_at__gte=since).select_related("agent")[:100]
    waiting = Card.objects.filter(organization=org, resolved_at__isnull=True)[:50]
    lines = [f"- {c.actor_name} {c.sentence}" for c in changes]
    lines += [f"- {w.agent.name} answered: {w.task[:120]} → {w.answer[:200]}" for w in answered]
    lines += [f"- Waiting for {org.owner_first_name}: {card.title}" for card in waiting]
    thread = Conversation.objects.filter(agent=roadstar, kind="thread", title="Morning summary").first() or (
        agent_services.thread_start(agent=roadstar, title="Morning summary")
    )
    agent_services.thread_reopen(thread=thread)
    text = (
        f"[Morning summary] Write {org.owner_first_name}'s morning summary of what happened since "
        f"{since.astimezone(services.owner_zone(org)).strftime('%a %b %d, %H:%M')}: a few short lines, what needs "
        f"them first. What happened:\n" + ("\n".join(lines) if lines else "- Nothing changed.")
    )
    agent_services.message_append(conversation=thread, role=Message.Role.SYSTEM, text=text)
    work = agent_services.work_open(org=org, agent=roadstar, conversation=thread, task="Morning summary", requester=None)
    summary = Summary.objects.create(organization=org, text="", since=since, work=work)
    wake(conversation=thread)
    return summary


def summary_finished(*, work, text: str) -> None:
    Summary.objects.filter(work=work, text="").update(text=text)
