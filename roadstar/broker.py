"""django-q2's ORM broker, woken when a task is queued instead of only polling for it.

django-q2's ORM broker (`django_q/brokers/orm.py`) is polled by the cluster's one pusher process: `dequeue` looks
for a task and, on an empty queue, sleeps `poll` seconds before the pusher asks again. A chat message therefore
waited half a poll on average in the queue (54 ms of 71 on SQLite at a 0.05 s poll), and polling faster costs a
query per look. This broker keeps the ORM broker's table, its claim and its acknowledgement (at-least-once: a task
not acknowledged within `retry` is handed out again), and replaces only the sleep: the pusher waits on a wake-up
that every `enqueue` sends once its transaction commits, for at most `poll` seconds. The poll stays the fallback,
so a wake-up that is lost (the worker was restarting, the listening connection dropped) costs at most one poll.

- PostgreSQL: LISTEN/NOTIFY. The pusher holds a connection of its own that LISTENs on the queue's channel; the
  enqueuer's `pg_notify` runs after its commit (`transaction.on_commit`), so the worker never wakes to a task it
  can't see yet. psycopg keeps a notification that arrives while the pusher is busy, and the next wait returns
  at once.
- SQLite (one machine by nature): a named pipe beside the database file (`var/roadstar.sqlite3.wake` by default).
  The pusher opens it for reading; the enqueuer writes one byte without blocking, and does nothing when no worker
  holds it open (no reader) or the pipe is full (the worker has wake-ups pending already).

Two clusters never both run one task: the claim is the ORM broker's conditional `UPDATE ... WHERE lock = <the
lock read>`, whichever of them was woken. Configured as `Q_CLUSTER["broker_class"]` (roadstar/settings/base.py);
`orm` stays set, since django-q2 reads it for the queue's and the results' database.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import stat
import time
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.conf import Conf
from django_q.models import OrmQ

logger = logging.getLogger(__name__)


def channel_name(list_key: str) -> str:
    """The NOTIFY channel (and the pipe's suffix) of one queue: clusters with different names don't wake each
    other."""
    return f"django_q_{list_key}"


def pipe_path(list_key: str) -> Path | None:
    """The SQLite wake-up pipe of a queue: beside the database file, so the web and the worker that share a
    database share the pipe. None for an in-memory database (nothing else can reach it)."""
    if settings.ROADSTAR_QUEUE_WAKE_PIPE:
        return Path(settings.ROADSTAR_QUEUE_WAKE_PIPE)
    connection = connections[Conf.ORM]
    if getattr(connection, "is_in_memory_db", lambda: False)():
        return None
    database = Path(connection.settings_dict["NAME"])
    suffix = "" if list_key == "roadstar" else f".{list_key}"
    return database.with_name(f"{database.name}{suffix}.wake")


def send_wake(list_key: str) -> None:
    """Wake the pusher of a queue (after the enqueue committed). Never fails its caller: the poll covers a loss."""
    connection = connections[Conf.ORM]
    try:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, '')", [channel_name(list_key)])
        elif connection.vendor == "sqlite":
            path = pipe_path(list_key)
            if path is not None:
                _write_pipe(path)
    except (DatabaseError, OSError):
        logger.warning("queue: the wake-up for %s was not sent; the worker's poll will find the task", list_key,
                       exc_info=True)


def _write_pipe(path: Path) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        # ENXIO: no worker has the pipe open; ENOENT: no worker ever ran here. Either way no one is waiting.
        if error.errno in (errno.ENXIO, errno.ENOENT):
            return
        raise
    try:
        os.write(fd, b"\0")
    except BlockingIOError:
        pass  # the pipe is full: the worker has wake-ups it hasn't read yet, one more adds nothing
    finally:
        os.close(fd)


class PostgresListener:
    """A connection of the pusher's own that LISTENs on the queue's channel."""

    def __init__(self, list_key: str):
        import psycopg
        from psycopg import sql

        params = connections[Conf.ORM].get_connection_params()
        for django_only in ("cursor_factory", "context", "prepare_threshold"):
            params.pop(django_only, None)
        self.connection = psycopg.connect(**params, autocommit=True)
        self.connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel_name(list_key))))

    def wait(self, timeout: float) -> bool:
        woken = False
        for _ in self.connection.notifies(timeout=timeout, stop_after=1):
            woken = True
        if woken:
            # Several enqueues since the last look need one look: take what else is already here.
            for _ in self.connection.notifies(timeout=0):
                pass
        return woken

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.connection.close()


class PipeListener:
    """The read end of the SQLite wake-up pipe, made if missing."""

    def __init__(self, path: Path):
        try:
            os.mkfifo(path, 0o600)
        except FileExistsError:
            if not stat.S_ISFIFO(os.stat(path).st_mode):
                raise OSError(errno.EEXIST, "not a named pipe", str(path)) from None
        # Read and write: a pipe opened this way never blocks on open and never reads end-of-file when the last
        # writer (a web request) closes it.
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)

    def wait(self, timeout: float) -> bool:
        readable, _, _ = select.select([self.fd], [], [], timeout)
        if not readable:
            return False
        with contextlib.suppress(BlockingIOError):
            while os.read(self.fd, 4096):
                pass
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class WakingORM(ORM):
    """The ORM broker, whose pusher waits for an enqueue's wake-up (at most `poll` seconds) instead of sleeping."""

    def __init__(self, list_key: str | None = None):
        # django-q2's Broker.__init__ without its get_connection, which closes an old connection: a broker is made
        # for every async_task, inside a request or a task whose own cycle does that (see enqueue).
        self.list_key = list_key or Conf.CLUSTER_NAME
        self.connection = OrmQ.objects.using(Conf.ORM)
        self.cache = self.get_cache()
        self._info = None
        self._reset()

    def __setstate__(self, state):
        super().__setstate__(state)
        self._reset()

    def _reset(self) -> None:
        self.listener: PostgresListener | PipeListener | None = None
        self.listener_pid: int | None = None
        # How each wait of the pusher ended: a wake-up, or the poll running out. For tests and the bench.
        self.woken = 0
        self.polled = 0

    def enqueue(self, task):
        # The ORM broker's insert, without its get_connection: that closes a connection past CONN_MAX_AGE first,
        # which the pusher (a process with no request around it) needs, but an enqueue runs inside a request or a
        # task whose own cycle does it. On SQLite (CONN_MAX_AGE 0) it reopened the database file in the middle of
        # every chat POST, about 5 ms of CPU (the schema read again).
        list_key = self.list_key or Conf.CLUSTER_NAME
        package = OrmQ.objects.using(Conf.ORM).create(key=list_key, payload=task, lock=timezone.now())
        transaction.on_commit(lambda: send_wake(list_key), using=Conf.ORM)
        return package.pk

    def dequeue(self):
        # Listen before looking: a task committed after the look below sends a wake-up the listener keeps.
        listener = self._listener()
        tasks = self.claim()
        if tasks:
            return tasks
        self._wait(listener)
        return None  # the pusher asks again at once, and the look above finds what woke it

    def claim(self) -> list[tuple[int, str]]:
        """django-q2's ORM claim: a task is taken by the conditional write that moves its lock, so of two
        clusters that read it only one gets it."""
        # One get_connection a look: each call closes a connection past CONN_MAX_AGE (in `manage.py worker` the
        # cluster keeps its connections instead, core/management/commands/worker.py: keep_connections).
        queue = self.get_connection()
        task_list = []
        for task in queue.filter(key=self.list_key, lock__lt=timezone.now())[0 : Conf.BULK]:
            if queue.filter(id=task.id, lock=task.lock).update(lock=self.timeout(task)):
                task_list.append((task.pk, task.payload))
        return task_list

    def _listener(self):
        if self.listener_pid != os.getpid():
            # Made in the process that waits (the cluster forks the pusher with this object): a connection or a
            # descriptor is never shared across a fork.
            self.listener, self.listener_pid = None, os.getpid()
        if self.listener is None:
            try:
                self.listener = self._make_listener()
            except (DatabaseError, OSError, ImportError):
                logger.warning("queue: no wake-up listener, polling every %s s", Conf.POLL, exc_info=True)
                return None
        return self.listener

    def _make_listener(self):
        vendor = connections[Conf.ORM].vendor
        if vendor == "postgresql":
            return PostgresListener(self.list_key)
        path = pipe_path(self.list_key) if vendor == "sqlite" else None
        return PipeListener(path) if path is not None else None

    def _wait(self, listener) -> None:
        if listener is None:
            time.sleep(Conf.POLL)
            self.polled += 1
            return
        try:
            woken = listener.wait(Conf.POLL)
        except Exception:  # a dropped connection: listen again on the next look, poll meanwhile
            logger.warning("queue: the wake-up listener failed; listening again", exc_info=True)
            listener.close()
            self.listener = None
            woken = False
        if woken:
            self.woken += 1
        else:
            self.polled += 1
