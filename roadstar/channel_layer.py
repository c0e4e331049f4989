"""A Channels layer kept in a small SQLite file: the live Home across processes with no Redis.

The embedded default (`make run`) runs daphne and the django-q2 worker as two processes on one machine, with
SQLite and no Redis. Channels' in-memory layer does not cross processes, so a change a worker makes would never
reach the owner's open page. This layer keeps messages and group memberships in their own SQLite file
(`var/channels.sqlite3` beside the database, WAL mode), which every process on the machine opens:

- `group_send` (the worker, after commit) writes one row per member channel, in one short transaction.
- A process with open websockets polls for rows addressed to its own channels (one cheap indexed read every
  `poll_interval`, 50 ms by default; it takes rows with `DELETE … RETURNING` only when the read found some) and
  hands each to the waiting consumer. Latency is the poll interval, far inside the 2 seconds Home promises.
- Messages expire after `expiry` seconds; a channel whose message expired unread (its process died) leaves its
  groups, as with channels_redis.

Its own file, not the application database: the poll never contends with the application's write lock, it needs
no migration, and it works the same under `DATABASE_URL` (PostgreSQL) on one machine. Across machines, set
`REDIS_URL` and channels_redis is used instead (roadstar/settings/base.py). channels-lite (a third-party SQLite
layer) was weighed and not taken: it stores in the application database through the ORM (its own app and
migrations, polls through Django's one sync thread), refuses any database but SQLite, and is an alpha.

Message bodies are JSON (bytes values are carried as base64), which is all Roadstar sends.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import sqlite3
import threading
import time
import uuid
import weakref
from pathlib import Path

from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer

SCHEMA = """
CREATE TABLE IF NOT EXISTS message (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,   -- where receivers look: the full name, or for a process's own channels the part up to '!'
    target TEXT NOT NULL,    -- the full channel name, for capacity and for leaving groups
    expires REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS message_channel_idx ON message (channel, id);
CREATE INDEX IF NOT EXISTS message_target_idx ON message (target);
CREATE INDEX IF NOT EXISTS message_expires_idx ON message (expires);
CREATE TABLE IF NOT EXISTS membership (
    grp TEXT NOT NULL,
    channel TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (grp, channel)
);
"""

TAKE_BATCH = 100


def _default(value):
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes__": base64.b64encode(bytes(value)).decode("ascii")}
    raise TypeError(f"{type(value).__name__} can't travel through the channel layer")


def _hook(obj):
    if len(obj) == 1 and "__bytes__" in obj:
        return base64.b64decode(obj["__bytes__"])
    return obj


def _dumps(message: dict) -> str:
    return json.dumps(message, default=_default, separators=(",", ":"))


def _loads(body: str) -> dict:
    return json.loads(body, object_hook=_hook)


class _LoopState:
    """What receiving needs on one event loop: a queue per channel and a poll task per polled name."""

    def __init__(self):
        self.queues: dict[str, asyncio.Queue] = {}
        self.waiters: dict[str, int] = {}  # polled name -> receive() calls waiting on it
        self.pollers: dict[str, asyncio.Task] = {}


def into_wal(conn: sqlite3.Connection, *, tries: int = 50) -> None:
    """Put the file in WAL mode. On a new file that several processes open at once (web and worker at the first
    `make run`), each connection switches it from rollback mode, which needs the file to itself; two at once
    deadlock, and SQLite answers one "database is locked" at once, without waiting out the busy timeout. The one
    refused tries again shortly: by then the file is in WAL, and switching is a no-op."""
    for attempt in range(tries):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == tries - 1:
                raise
            time.sleep(0.005 * (attempt + 1))


class SQLiteChannelLayer(BaseChannelLayer):
    extensions = ["groups", "flush"]

    def __init__(self, path, expiry=60, group_expiry=86400, capacity=100, channel_capacity=None,
                 poll_interval=0.05, **kwargs):
        super().__init__(expiry=expiry, capacity=capacity, channel_capacity=channel_capacity, **kwargs)
        # get_capacity() reads the compiled patterns, as channels' Redis layer sets them; the stubs type this
        # attribute as the settings' dict it is compiled from.
        self.channel_capacity = self.compile_capacities(channel_capacity or {})  # type: ignore[assignment]
        self.path = str(path)
        self.group_expiry = group_expiry
        self.poll_interval = poll_interval
        self.client_prefix = uuid.uuid4().hex
        self._local = threading.local()
        self._loops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # --- the file ---------------------------------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        """This thread's connection. A forked child (django-q2 forks its workers) opens its own: a connection
        must never cross a fork."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        into_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(SCHEMA)
        self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _write(self, work):
        """Run `work(conn)` in one IMMEDIATE transaction (it waits its turn for the write lock)."""
        conn = self._db()
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    def _polled_name(self, channel: str) -> str:
        return self.non_local_name(channel)

    # --- blocking operations (run in a thread from the async API; called directly by sync code) -------------

    def _send_blocking(self, channel: str, message: dict) -> None:
        polled = self._polled_name(channel)
        if "!" in channel:
            message = {**message, "__asgi_channel__": channel}
        body = _dumps(message)
        now = time.time()

        def work(conn):
            (pending,) = conn.execute(
                "SELECT COUNT(*) FROM message WHERE target = ? AND expires >= ?", (channel, now)
            ).fetchone()
            if pending >= self.get_capacity(channel):
                raise ChannelFull(channel)
            conn.execute(
                "INSERT INTO message (channel, target, expires, body) VALUES (?, ?, ?, ?)",
                (polled, channel, now + self.expiry, body),
            )

        self._write(work)

    def group_send_blocking(self, group: str, message: dict) -> int:
        """group_send for sync code (a service's on_commit in the worker): no event loop needed. Returns how
        many channels it reached."""
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        assert "__asgi_channel__" not in message
        now = time.time()
        if random.random() < 0.02:
            self._clean_expired_blocking(now)
        conn = self._db()
        members = [row[0] for row in conn.execute(
            "SELECT channel FROM membership WHERE grp = ? AND expires >= ?", (group, now)
        )]
        if not members:
            return 0

        def work(conn):
            marks = ",".join("?" * len(members))
            pending = dict(conn.execute(
                f"SELECT target, COUNT(*) FROM message WHERE target IN ({marks}) AND expires >= ? GROUP BY target",
                (*members, now),
            ).fetchall())
            rows = []
            for channel in members:
                if pending.get(channel, 0) >= self.get_capacity(channel):
                    continue  # a full channel drops group messages, as the spec of channel layers says
                body = _dumps({**message, "__asgi_channel__": channel} if "!" in channel else message)
                rows.append((self._polled_name(channel), channel, now + self.expiry, body))
            conn.executemany("INSERT INTO message (channel, target, expires, body) VALUES (?, ?, ?, ?)", rows)
            return len(rows)

        return self._write(work)

    def _take_blocking(self, polled: str, limit: int) -> list[tuple[float, dict]]:
        """Take up to `limit` messages for a polled name, oldest first; an empty read takes no write lock."""
        conn = self._db()
        if conn.execute("SELECT 1 FROM message WHERE channel = ? LIMIT 1", (polled,)).fetchone() is None:
            return []

        def work(conn):
            return conn.execute(
                "DELETE FROM message WHERE id IN (SELECT id FROM message WHERE channel = ? ORDER BY id LIMIT ?) "
                "RETURNING id, expires, body",
                (polled, limit),
            ).fetchall()

        now = time.time()
        rows = sorted(self._write(work))
        return [(expires, _loads(body)) for _, expires, body in rows if expires >= now]

    def _group_add_blocking(self, group: str, channel: str) -> None:
        self._write(lambda conn: conn.execute(
            "INSERT OR REPLACE INTO membership (grp, channel, expires) VALUES (?, ?, ?)",
            (group, channel, time.time() + self.group_expiry),
        ))

    def _group_discard_blocking(self, group: str, channel: str) -> None:
        self._write(lambda conn: conn.execute("DELETE FROM membership WHERE grp = ? AND channel = ?", (group, channel)))

    def _clean_expired_blocking(self, now: float | None = None) -> None:
        now = time.time() if now is None else now

        def work(conn):
            # A channel that let a message expire unread is gone (its process died): it leaves every group.
            conn.execute(
                "DELETE FROM membership WHERE channel IN (SELECT DISTINCT target FROM message WHERE expires < ?)",
                (now,),
            )
            conn.execute("DELETE FROM message WHERE expires < ?", (now,))
            conn.execute("DELETE FROM membership WHERE expires < ?", (now,))

        self._write(work)

    def _flush_blocking(self) -> None:
        def work(conn):
            conn.execute("DELETE FROM message")
            conn.execute("DELETE FROM membership")

        self._write(work)

    # --- the channel layer API ----------------------------------------------------------------------------------

    async def send(self, channel, message):
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        await asyncio.to_thread(self._send_blocking, channel, message)

    async def new_channel(self, prefix="specific"):
        return f"{prefix}.{self.client_prefix}!{uuid.uuid4().hex}"

    async def receive(self, channel):
        self.require_valid_channel_name(channel)
        state = self._state()
        polled = self._polled_name(channel)
        queue = state.queues.setdefault(channel, asyncio.Queue())
        state.waiters[polled] = state.waiters.get(polled, 0) + 1
        try:
            while True:
                poller = state.pollers.get(polled)
                if poller is None or poller.done():
                    state.pollers[polled] = asyncio.get_running_loop().create_task(self._poll(state, polled))
                expires, message = await queue.get()
                if expires >= time.time():
                    return message
        finally:
            state.waiters[polled] -= 1
            if queue.empty() and state.queues.get(channel) is queue:
                state.queues.pop(channel, None)

    async def _poll(self, state: _LoopState, polled: str) -> None:
        """Move this name's messages from the file into the queues, while anyone waits on them."""
        while state.waiters.get(polled, 0) > 0:
            try:
                taken = await asyncio.to_thread(self._take_blocking, polled, TAKE_BATCH)
            except sqlite3.OperationalError:
                taken = []  # the file was busy past the timeout: try again at the next poll
            for expires, message in taken:
                target = message.pop("__asgi_channel__", polled)
                queue = state.queues.setdefault(target, asyncio.Queue())
                if queue.qsize() >= self.get_capacity(target):
                    queue.get_nowait()  # nobody reads it: drop the oldest rather than grow without end
                queue.put_nowait((expires, message))
            if len(taken) < TAKE_BATCH:
                await asyncio.sleep(self.poll_interval)
        state.pollers.pop(polled, None)

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _LoopState()
        return state

    async def flush(self):
        await asyncio.to_thread(self._flush_blocking)

    async def close(self):
        state = self._loops.get(asyncio.get_running_loop())
        if state is not None:
            for task in state.pollers.values():
                task.cancel()
            state.pollers.clear()

    async def group_add(self, group, channel):
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        await asyncio.to_thread(self._group_add_blocking, group, channel)

    async def group_discard(self, group, channel):
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        await asyncio.to_thread(self._group_discard_blocking, group, channel)

    async def group_send(self, group, message):
        await asyncio.to_thread(self.group_send_blocking, group, message)

    async def clean_expired(self):
        await asyncio.to_thread(self._clean_expired_blocking)
