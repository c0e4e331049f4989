"""The task queue's broker wakes the worker when a task is queued (LISTEN/NOTIFY on PostgreSQL, a named pipe on
SQLite), the poll still finds a task whose wake-up was lost, and two workers never both take one task.

Each test runs on the suite's database, so on SQLite it proves the pipe and on PostgreSQL the notification. A wait
is told apart by the broker's counters (`woken`: a wake-up ended it; `polled`: the poll ran out), never by a
time: the poll is set long where a wake-up must end the wait, so a missing one shows as `polled`.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid

import pytest
from django.db import connection, connections, transaction
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ

from roadstar import broker as broker_module
from roadstar.broker import WakingORM, send_wake

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def wake_pipe(settings, tmp_path):
    """SQLite's test database is in memory, so the pipe can't sit beside its file: give it one."""
    settings.ROADSTAR_QUEUE_WAKE_PIPE = str(tmp_path / "queue.wake")


@pytest.fixture
def queue_name():
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield name
    OrmQ.objects.filter(key=name).delete()


@pytest.fixture
def brokers():
    made = []

    def make(name):
        made.append(WakingORM(name))
        return made[-1]

    yield make
    for each in made:
        if each.listener is not None:
            each.listener.close()


def enqueue_from_another_process(name: str, payload: str) -> None:
    """The web's enqueue, on a connection of its own (a thread here), committed before it returns."""

    def enqueue():
        try:
            WakingORM(name).enqueue(payload)
        finally:
            connections.close_all()

    thread = threading.Thread(target=enqueue)
    thread.start()
    thread.join(30)


def enqueue_after_its_look(waking: WakingORM, name: str, payload: str) -> None:
    """Make the next look of `waking` find the queue empty and a task arrive right after it: the moment a poll
    would sleep through."""
    look = waking.claim

    def look_then_a_task_arrives():
        found = look()
        waking.claim = look
        enqueue_from_another_process(name, payload)
        return found

    waking.claim = look_then_a_task_arrives


def test_the_worker_is_woken_by_the_enqueue_not_by_its_poll(monkeypatch, queue_name, brokers):
    monkeypatch.setattr(Conf, "POLL", 30)  # a missed wake-up would end the wait as `polled`, after 30 s
    pusher = brokers(queue_name)
    enqueue_after_its_look(pusher, queue_name, "turn-1")

    assert pusher.dequeue() is None  # the look found nothing; the wait ended at the task's wake-up
    assert (pusher.woken, pusher.polled) == (1, 0)
    assert [payload for _, payload in pusher.dequeue()] == ["turn-1"]


def test_the_wake_up_goes_on_commit_and_not_for_a_rolled_back_enqueue(queue_name, brokers):
    pusher = brokers(queue_name)
    listener = pusher._listener()
    web = WakingORM(queue_name)

    with pytest.raises(RuntimeError), transaction.atomic():
        web.enqueue("never-queued")
        raise RuntimeError("the request failed")
    assert listener.wait(0) is False

    with transaction.atomic():
        web.enqueue("turn-2")
        assert listener.wait(0) is False  # not yet: the worker would look and not see it
    assert listener.wait(5) is True
    assert [payload for _, payload in pusher.claim()] == ["turn-2"]


def test_a_lost_wake_up_is_found_by_the_poll(monkeypatch, queue_name, brokers):
    monkeypatch.setattr(Conf, "POLL", 0.05)
    monkeypatch.setattr(broker_module, "send_wake", lambda list_key: None)  # the wake-up is lost
    pusher = brokers(queue_name)
    enqueue_after_its_look(pusher, queue_name, "turn-3")

    assert pusher.dequeue() is None
    assert (pusher.woken, pusher.polled) == (0, 1)
    assert [payload for _, payload in pusher.dequeue()] == ["turn-3"]


def test_two_workers_woken_by_one_task_take_it_once(monkeypatch, queue_name, brokers):
    monkeypatch.setattr(Conf, "POLL", 0.05)
    first, second = brokers(queue_name), brokers(queue_name)
    first._listener(), second._listener()
    enqueue_from_another_process(queue_name, "turn-4")
    first._wait(first.listener)
    second._wait(second.listener)
    # PostgreSQL wakes every listener; the pipe wakes one reader, and the other finds it at its poll.
    assert first.woken + second.woken >= 1

    # The second reads the task, and the first takes it before the second's write: the write's condition (the
    # lock it read) no longer holds, so the second gets nothing.
    taken_by_first = []
    second_writes = second.timeout

    def first_takes_it_meanwhile(task):
        taken_by_first.extend(first.claim())
        return second_writes(task)

    monkeypatch.setattr(second, "timeout", first_takes_it_meanwhile)
    taken_by_second = second.claim()
    assert [payload for _, payload in taken_by_first] == ["turn-4"]
    assert taken_by_second == []
    assert first.claim() == [] and second.claim() == []


def test_an_enqueue_keeps_the_connection_it_runs_on(queue_name):
    """An enqueue runs inside a request or a task, whose own cycle closes an old connection: it doesn't reopen one
    in the middle (django-q2's ORM broker did, before its insert: on SQLite, for every chat message)."""
    connection.ensure_connection()
    before = connection.connection
    connection.close_at = time.monotonic() - 1  # past its CONN_MAX_AGE, as SQLite's 0 makes it at once
    WakingORM(queue_name).enqueue("turn-5")
    assert connection.connection is before
    assert list(OrmQ.objects.filter(key=queue_name).values_list("payload", flat=True)) == ["turn-5"]


def test_a_wake_up_with_no_worker_listening_is_dropped_quietly(settings, tmp_path, queue_name):
    send_wake(queue_name)  # no pipe yet (SQLite), no listener (PostgreSQL): nothing happens, nothing fails
    if connection.vendor == "sqlite":
        pipe = tmp_path / "queue.wake"
        os.mkfifo(pipe)
        send_wake(queue_name)  # a pipe no worker holds open
        reader = os.open(pipe, os.O_RDWR | os.O_NONBLOCK)
        try:
            with contextlib.suppress(BlockingIOError):
                while True:  # the worker has so many wake-ups unread that the pipe is full
                    os.write(reader, b"\0" * 4096)
            send_wake(queue_name)  # dropped: one more adds nothing
        finally:
            os.close(reader)


def test_the_cluster_uses_the_waking_broker_with_a_fallback_poll():
    assert isinstance(get_broker(), WakingORM)
    assert Conf.ORM == "default"  # the queue and the results stay in the database
    assert Conf.POLL <= 5  # the fallback: a lost wake-up costs at most this
