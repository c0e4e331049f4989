"""The run queue: which conversations run now, kept in the database so the limits hold across every worker.

A conversation with something to act on is `queued`. `dispatch` claims queued conversations in the order they
were queued, while at most 3 threads of one agent and 8 threads across the owner's agents run, and hands each
claimed one to a worker as a django-q2 task. Claims are made with the workspace's row locked (PostgreSQL), or
inside SQLite's IMMEDIATE transaction, which holds the write lock from its start: either way two dispatchers
never both see a free place. Chats don't count towards the limits: they only route work, in a few steps.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from typing import NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from agents.models import Agent, Conversation
from core import rows
from core.models import Organization

logger = logging.getLogger(__name__)

MAX_RUNNING_PER_AGENT = 3
MAX_RUNNING_PER_OWNER = 8


def wake(*, conversation: Conversation) -> None:
    """It has something new to act on: queue it (a running one takes it at its next step) and dispatch."""
    if conversation.kind == Conversation.Kind.OUTSIDE:
        return  # an outside app reads what arrived when it asks; nothing runs here
    if conversation.kind == Conversation.Kind.CHAT and conversation.agent.runs_on == Agent.RunsOn.MAC:
        return  # the program on the owner's Mac reads its chat's messages over MCP and replies itself
    rows.update(Conversation, [("id", "=", conversation.id), ("state", "=", Conversation.State.IDLE)],
                state=Conversation.State.QUEUED, queued_at=timezone.now())
    org_id = conversation.organization_id
    transaction.on_commit(lambda: dispatch(org_id=org_id))


class Claimed(NamedTuple):
    """A conversation claimed to run (the state written RUNNING): what dispatch and drain need of it."""

    id: uuid.UUID
    agent_id: uuid.UUID
    kind: str


def claim(*, org_id) -> list[Claimed]:
    """Claim what may run now, within the limits, oldest queued first.

    Two statements on SQLite (three on PostgreSQL, with the workspace's lock): one read of the workspace's queued
    conversations and its running threads, with whether their agent is paused, and the write of the claimed. A
    claim follows every owner message and every turn, so it was five compiled queries on each.
    """
    with transaction.atomic():
        return _claim_in_transaction(org_id)


def _claim_in_transaction(org_id) -> list[Claimed]:
    """claim's work, inside the caller's transaction."""
    if connection.vendor == "postgresql":
        # FOR NO KEY UPDATE: claims still take turns, but a transaction that inserts a row naming the workspace
        # (the owner's message, its work) can take its foreign key's KEY SHARE lock at its commit. With FOR
        # UPDATE it waited for this claim, which waited for that transaction's conversation row: a deadlock.
        # (SQLite needs no lock here: its IMMEDIATE transaction holds the database's write lock from BEGIN.)
        with connection.cursor() as cursor:  # (written out: every claim takes it)
            cursor.execute(f'SELECT 1 FROM "{Organization._meta.db_table}" WHERE "id" = %s FOR NO KEY UPDATE',
                           [Organization._meta.pk.get_db_prep_value(org_id, connection)])
    running: Counter = Counter()
    queued = []
    for id_, agent_id, kind, state, paused in _queued_and_running(org_id):
        if state == Conversation.State.RUNNING:
            running[agent_id] += 1
        elif not paused:
            queued.append(Claimed(id_, agent_id, kind))
    total = sum(running.values())
    claimed = []
    for conversation in queued:
        if conversation.kind == Conversation.Kind.THREAD:
            if total >= MAX_RUNNING_PER_OWNER or running[conversation.agent_id] >= MAX_RUNNING_PER_AGENT:
                continue
            running[conversation.agent_id] += 1
            total += 1
        claimed.append(conversation)
    if claimed:
        rows.update(Conversation, [("id", "in", [c.id for c in claimed])], state=Conversation.State.RUNNING,
                    started_at=timezone.now())
    return claimed


_CLAIM_SQL: dict[str, str] = {}


def _queued_and_running(org_id) -> list[tuple]:
    """The workspace's queued conversations and its running threads, oldest queued first: (id, agent id, kind,
    state, whether the agent is paused). Written out, as every claim reads it (the ORM compiled it each time)."""
    sql = _CLAIM_SQL.get(connection.vendor)
    if sql is None:
        conversations, agents = Conversation._meta.db_table, Agent._meta.db_table
        sql = _CLAIM_SQL[connection.vendor] = (
            f'SELECT c."id", c."agent_id", c."kind", c."state", a."paused" FROM "{conversations}" c '
            f'JOIN "{agents}" a ON a."id" = c."agent_id" WHERE c."organization_id" = %s '
            f'AND (c."state" = %s OR (c."state" = %s AND c."kind" = %s)) ORDER BY c."queued_at", c."created_at"'
        )
    uuid_field = Conversation._meta.pk
    with connection.cursor() as cursor:
        cursor.execute(sql, [Conversation._meta.get_field("organization").get_db_prep_value(org_id, connection),
                             Conversation.State.QUEUED, Conversation.State.RUNNING, Conversation.Kind.THREAD])
        return [(uuid_field.to_python(id_), uuid_field.to_python(agent_id), kind, state, bool(paused))
                for id_, agent_id, kind, state, paused in cursor.fetchall()]


def dispatch(*, org_id) -> list[str]:
    """Claim what may run and queue a worker task for each. Returns the claimed conversation ids.

    The claim and its tasks commit together: a process that dies between them can't leave a conversation claimed
    (`running`) with no task to run it, which nothing would hand out again; and it is one commit where it was
    one and one a task (each a disk flush on PostgreSQL, on the way from the owner's message to the model). Run
    inline (Q_SYNC: the tests and the one-shot commands), a task is the whole turn, which calls out: it runs after
    the claim's commit, as a worker's does."""
    from django_q.conf import Conf
    from django_q.tasks import async_task

    def enqueue(claimed: list[Claimed]) -> None:
        for conversation in claimed:
            async_task("agents.tasks.run_turn", str(conversation.id), task_name=f"turn {conversation.id}",
                       group="turns")

    if Conf.SYNC:
        claimed = claim(org_id=org_id)
        enqueue(claimed)
    else:
        with transaction.atomic():
            claimed = _claim_in_transaction(org_id)
            enqueue(claimed)
    return [str(c.id) for c in claimed]


def finish(*, conversation: Conversation, more_to_do: bool) -> None:
    """A worker is done with it: back to idle, or queued again when new messages came in meanwhile."""
    state = Conversation.State.QUEUED if more_to_do else Conversation.State.IDLE
    rows.update(Conversation, [("id", "=", conversation.id)], state=state,
                queued_at=timezone.now() if more_to_do else None)
    org_id = conversation.organization_id
    transaction.on_commit(lambda: dispatch(org_id=org_id))


def drain(*, org_id, max_turns: int = 500) -> int:
    """Run every queued turn here, in this process, until none is left: for tests and one-shot commands."""
    # agents.runtime.turn imports this module at import time (a turn wakes and finishes through it): a cycle
    # within agents
    from agents.runtime.turn import run_turn

    turns = 0
    while turns < max_turns:
        claimed = claim(org_id=org_id)
        if not claimed:
            return turns
        for conversation in claimed:
            run_turn(str(conversation.id))
            turns += 1
    raise RuntimeError(f"drain ran {max_turns} turns and work was still queued: a loop between agents?")
