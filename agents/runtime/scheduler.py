"""The run queue: which conversations run now, kept in the database so the limits hold across every worker.

A conversation with something to act on is `queued`. `dispatch` claims queued conversations in the order they
were queued, while at most 3 threads of one agent and 8 threads across the owner's agents run, and hands each
claimed one to a worker as a django-q2 task. Claims are made with the workspace's row locked (PostgreSQL), or
inside SQLite's IMMEDIATE transaction, which holds the write lock from its start: either way two dispatchers
never both see a free place. Chats don't count towards the limits: they only route work, in a few steps.

A claim is a lease: the conversation gets a new token and `lease_until`, which the worker running its turn renews
(`LeaseKeeper`, every third of the lease) while it lives. A lease that runs out means the worker died (kill -9, the
machine gone): the next claim in the workspace (an owner's message, any turn's end, the worker's lease watch every
few seconds, the minute's sweep) claims the conversation again with a new token, and the lapsed turn's run ends
`interrupted`. The old token fences the old worker: each write of a turn takes the conversation's counter only
while the token is its own (services.message_append), so a worker that was slow rather than dead stops at its next
write, and its step or call rolls back. The broker hands a dead worker's task out again only after Q_CLUSTER's
`retry` (660 s, past its 600 s `timeout`), long after the lease (15 s): that task carries the old token and does
nothing, so the two can't both run a turn.
"""

from __future__ import annotations

import datetime
import logging
import threading
import uuid
from collections import Counter
from typing import NamedTuple

from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone

from agents.models import Agent, Conversation, Run
from core import rows
from core.inputs import Uuid
from core.models import Organization

logger = logging.getLogger(__name__)


class LeaseLost(Exception):
    """The conversation was claimed again (this worker's lease ran out): the turn stops, writing nothing more."""


def lease_length() -> datetime.timedelta:
    return datetime.timedelta(seconds=settings.ROADSTAR_TURN_LEASE_SECONDS)


def pickup_length() -> datetime.timedelta:
    """How long a claim waits for a worker to start its task: two leases. Not the broker's `retry`: a cluster's
    pusher takes tasks from the queue ahead of its workers, and a cluster killed with tasks in hand (the scale
    bench's kill -9) would leave their conversations claimed until then. A task that only waited in a busy queue
    past it is claimed again and queued once more; whichever of the two starts second finds its token stale and
    does nothing. The turn's own short lease starts when it does (run_turn renews it first thing)."""
    return 2 * lease_length()


INTERRUPTED = ("Its worker stopped renewing the turn's lease (it died or hung), so the conversation was handed to "
               "another worker, which goes on from the last step saved.")

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

    id: Uuid
    agent_id: Uuid
    kind: str
    lease: Uuid | None = None  # the claim's token: the task carries it, and every write of the turn checks it


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
        with rows.kept_cursor(connection) as cursor:  # (written out: every claim takes it)
            cursor.execute(f'SELECT 1 FROM "{Organization._meta.db_table}" WHERE "id" = %s FOR NO KEY UPDATE',
                           [Organization._meta.pk.get_db_prep_value(org_id, connection)])
    running: Counter = Counter()
    queued, lapsed = [], []
    now = timezone.now()
    for id_, agent_id, kind, state, paused, lapsed_lease in _queued_and_running(org_id, now):
        if state == Conversation.State.RUNNING and lapsed_lease:
            lapsed.append(Claimed(id_, agent_id, kind))  # its worker is gone: claimed again, first, in its place
        elif state == Conversation.State.RUNNING:
            running[agent_id] += 1
        elif not paused:
            queued.append(Claimed(id_, agent_id, kind))
    total = sum(running.values())
    claimed = []
    for conversation in lapsed:
        if conversation.kind == Conversation.Kind.THREAD:
            running[conversation.agent_id] += 1
            total += 1
        claimed.append(conversation)
    for conversation in queued:
        if conversation.kind == Conversation.Kind.THREAD:
            if total >= MAX_RUNNING_PER_OWNER or running[conversation.agent_id] >= MAX_RUNNING_PER_AGENT:
                continue
            running[conversation.agent_id] += 1
            total += 1
        claimed.append(conversation)
    if lapsed:
        logger.warning("turn leases ran out, claimed again: %s", ", ".join(str(c.id) for c in lapsed))
        Run.objects.filter(conversation_id__in=[c.id for c in lapsed], outcome=Run.Outcome.RUNNING).update(
            outcome=Run.Outcome.INTERRUPTED, finished_at=now, error=INTERRUPTED)
    if claimed:
        token = uuid.uuid4()  # one a claim: a conversation's token is new each time it is claimed
        rows.update(Conversation, [("id", "in", [c.id for c in claimed])], state=Conversation.State.RUNNING,
                    started_at=now, lease_token=token, lease_until=now + pickup_length())
        claimed = [c._replace(lease=token) for c in claimed]
    return claimed


_CLAIM_SQL: dict[str, str] = {}


def _queued_and_running(org_id, now) -> list[tuple]:
    """The workspace's queued conversations, its running threads and any running conversation whose lease ran out,
    oldest queued first: (id, agent id, kind, state, whether the agent is paused, lease_until). Written out, as
    every claim reads it (the ORM compiled it each time)."""
    sql = _CLAIM_SQL.get(connection.vendor)
    if sql is None:
        conversations, agents = Conversation._meta.db_table, Agent._meta.db_table
        sql = _CLAIM_SQL[connection.vendor] = (
            f'SELECT c."id", c."agent_id", c."kind", c."state", a."paused", '
            f'CASE WHEN c."lease_until" < %s THEN 1 ELSE 0 END FROM "{conversations}" c '
            f'JOIN "{agents}" a ON a."id" = c."agent_id" WHERE c."organization_id" = %s '
            f'AND (c."state" = %s OR (c."state" = %s AND (c."kind" = %s OR c."lease_until" < %s))) '
            f'ORDER BY c."queued_at", c."created_at"'
        )
    uuid_field = Conversation._meta.pk
    until = Conversation._meta.get_field("lease_until").get_db_prep_value(now, connection)
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(sql, [until, Conversation._meta.get_field("organization").get_db_prep_value(org_id, connection),
                             Conversation.State.QUEUED, Conversation.State.RUNNING, Conversation.Kind.THREAD, until])
        return [(uuid_field.to_python(id_), uuid_field.to_python(agent_id), kind, state, bool(paused), bool(lapsed))
                for id_, agent_id, kind, state, paused, lapsed in cursor.fetchall()]


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
            async_task("agents.tasks.run_turn", str(conversation.id), str(conversation.lease),
                       task_name=f"turn {conversation.id}", group="turns")

    if Conf.SYNC:
        claimed = claim(org_id=org_id)
        enqueue(claimed)
    else:
        with transaction.atomic():
            claimed = _claim_in_transaction(org_id)
            enqueue(claimed)
    return [str(c.id) for c in claimed]


def finish(*, conversation: Conversation, more_to_do: bool, lease: Uuid | None = None) -> bool:
    """A worker is done with it: back to idle, or queued again when new messages came in meanwhile. With `lease`,
    only while the conversation is still under it (else another worker has it now: False, nothing written)."""
    state = Conversation.State.QUEUED if more_to_do else Conversation.State.IDLE
    where = [("id", "=", conversation.id)] + ([("lease_token", "=", lease)] if lease is not None else [])
    if not rows.update(Conversation, where, state=state, queued_at=timezone.now() if more_to_do else None,
                       lease_token=None, lease_until=None):
        return False
    org_id = conversation.organization_id
    transaction.on_commit(lambda: dispatch(org_id=org_id))
    return True


def lapsed_workspaces() -> set:
    """Workspaces with a running conversation whose lease ran out (the lease watch and the minute's sweep)."""
    return set(Conversation.objects.filter(state=Conversation.State.RUNNING, lease_until__lt=timezone.now())
               .values_list("organization_id", flat=True))


class LeaseKeeper:
    """Renews a turn's lease every third of its length, in a thread of its own (so a model call or a tool that takes
    minutes doesn't let it lapse), while the worker lives. `lost` is set when the conversation was claimed again
    meanwhile: the turn stops at its next step. Its own database connection is closed when it stops."""

    def __init__(self, conversation_id, token: Uuid):
        self.conversation_id, self.token = conversation_id, token
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease {conversation_id}", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def renew(self) -> bool:
        renewed = rows.update(
            Conversation, [("id", "=", self.conversation_id), ("lease_token", "=", self.token),
                           ("state", "=", Conversation.State.RUNNING)],
            lease_until=timezone.now() + lease_length())
        self.lost = self.lost or not renewed
        return bool(renewed)

    def _run(self) -> None:
        try:
            while not self._stop.wait(lease_length().total_seconds() / 3):
                try:
                    if not self.renew():
                        return
                except Exception:  # a database hiccup: try again at the next renewal, before the lease runs out
                    logger.warning("could not renew the lease of %s", self.conversation_id, exc_info=True)
        finally:
            connections.close_all()  # (this thread's own connections)
