"""Real threads against the database, for the tests of concurrent writes (with `transactional_db`).

SQLite's test database lives in memory, shared between connections by SQLite's shared cache, whose table locks
fail at once ("database table is locked") instead of waiting their turn. So on SQLite the threads write to a copy
of it in a file, opened as Roadstar opens its own database (WAL, a busy timeout, IMMEDIATE transactions); on
PostgreSQL they use the test database itself.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from django.db import connections


def all_at_once(calls) -> list:
    """Run each call in a thread of its own, all started together; what each returned (or raised)."""
    start = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            start.wait()
            results[i] = call()
        except Exception as error:  # noqa: BLE001  (the test looks at it)
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def in_a_thread(read):
    """`read()` in a thread of its own, so it reads the database the threads wrote to."""
    [result] = all_at_once([read])
    if isinstance(result, Exception):
        raise result
    return result


# These tests are about writes that are lost or kept, not about how long a writer waits: a dozen writers on a
# loaded two-core machine can take longer than the product's 5 s busy timeout to each get their turn, and a busy
# answer is the product's right answer there (tests/roadstar/test_busy.py tests it). So the threads wait up
# to a minute.
THREAD_BUSY_TIMEOUT_MS = 60_000


def _waiting_longer(settings: dict) -> dict:
    options = dict(settings.get("OPTIONS") or {})
    command = options.get("init_command", "")
    pragma = f"PRAGMA busy_timeout={THREAD_BUSY_TIMEOUT_MS};"
    options["init_command"] = re.sub(r"PRAGMA busy_timeout=\d+;", pragma, command) if "busy_timeout" in command \
        else f"{command} {pragma}".strip()
    # The init command's own statements run before its busy_timeout pragma, under the driver's timeout (5 s by
    # default): threads connecting at once wait as long there too.
    options["timeout"] = THREAD_BUSY_TIMEOUT_MS / 1000
    return options


@contextmanager
def threads_on_a_file():
    """On SQLite's in-memory test database, point the connections that threads open at a copy of it in a file;
    the main thread's connection stays on the one in memory. Read what the threads wrote with `in_a_thread`."""
    default = connections["default"]
    if default.vendor != "sqlite" or not default.is_in_memory_db():
        yield
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "threads.sqlite3"
        default.ensure_connection()
        copy = sqlite3.connect(path)
        default.connection.backup(copy)
        # In WAL already, as Roadstar's own file is once migrated: otherwise the threads' first connections, all
        # at once, each switch the copy from rollback to WAL (an exclusive lock apiece), and under load one of
        # them answered "database is locked" before a single statement of the test ran (CI, 2026-12-02).
        copy.execute("PRAGMA journal_mode=WAL")
        copy.close()
        in_memory = connections.settings["default"]
        connections.settings["default"] = {**in_memory, "NAME": str(path), "OPTIONS": _waiting_longer(in_memory)}
        try:
            yield
        finally:
            connections.settings["default"] = in_memory
