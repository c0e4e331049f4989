"""The two-minute hold against a real crash: worker processes sweeping 200 held emails through a real SMTP server
(tests/integrations/smtp_server.py), three of them killed with SIGKILL after the server took an email and before
they could write that down. While each sits there, no database transaction is open (on SQLite, another process can
take the write lock). After each kill the next worker takes over: nothing goes twice, and the three emails that
may have gone wait for the owner's word, each with its card, instead of going again.

On SQLite (a database file of the test's own) always; on PostgreSQL when the suite runs there (DATABASE_URL).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.integrations.smtp_server import SmtpServer

EMAILS = 200
VICTIMS = (20, 100, 180)  # the emails whose worker is killed after the server took them
DEADLINE = 300  # seconds: a test that hangs fails instead


def worker_env(tmp_path, server: SmtpServer, database: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "Q_SYNC")}
    return {**env, **database, "SECRET_KEY": "crash-test-key", "DEBUG": "0", "ROADSTAR_NETWORK_GUARD": "raise",
            "ROADSTAR_MAIL_ROOT": str(tmp_path / "mail"), "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(server.port),
            "EMAIL_USE_TLS": "0"}


def run(env, *args) -> dict:
    done = subprocess.run([sys.executable, "-m", "tests.integrations.crash_worker", *args], cwd=settings.BASE_DIR,
                          env=env, capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def crash_run(tmp_path, database: dict, nothing_held_open) -> None:
    stall = set()

    def stall_once(message_id: str) -> bool:
        if message_id in stall:
            stall.discard(message_id)
            return True
        return False

    with SmtpServer(stall_after=stall_once) as server:
        env = worker_env(tmp_path, server, database)
        ids = run(env, "setup", str(EMAILS))["message_ids"]
        victims = {ids[i] for i in VICTIMS}
        stall.update(victims)  # each the first time it goes
        killed, free, rounds, errors = [], [], 0, []
        started = time.monotonic()
        while time.monotonic() - started < DEADLINE:
            args = ["sweep"] if rounds == 0 else ["sweep", "late", str(rounds)]
            worker = subprocess.Popen([sys.executable, "-m", "tests.integrations.crash_worker", *args],
                                      cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            rounds += 1
            was_killed = False
            while True:
                try:
                    message_id, release = server.stalled.get(timeout=0.2)
                except queue.Empty:
                    if worker.poll() is not None:
                        break
                    continue
                free.append(nothing_held_open())
                os.kill(worker.pid, signal.SIGKILL)  # after the hand-off, before anything was written down
                worker.communicate()
                release.set()
                killed.append(message_id)
                was_killed = True
                break
            if not was_killed:  # it swept to the end on its own
                _, err = worker.communicate()
                errors.append(err[-3000:] if worker.returncode else "")
                break
        deliveries = server.deliveries()
    report = run(env, "report")

    assert not any(errors), errors
    assert sorted(killed) == sorted(victims)
    assert free == [True, True, True]  # no transaction was open while the server held each worker
    assert set(deliveries) == set(ids) and set(deliveries.values()) == {1}  # every email went, none twice
    states = report["states"]
    assert {m for m, s in states.items() if s == "unsure"} == victims
    assert {m for m, s in states.items() if s == "sent"} == set(ids) - victims
    assert (report["asked"], report["sent_copies"]) == (report["unsure_ids"], EMAILS - len(victims))


def test_workers_killed_after_the_smtp_hand_off_never_send_twice_on_sqlite(tmp_path):
    path = tmp_path / "roadstar.sqlite3"

    def write_lock_free() -> bool:
        probe = sqlite3.connect(path, timeout=2)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.rollback()
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            probe.close()

    crash_run(tmp_path, {"SQLITE_PATH": str(path)}, write_lock_free)


@pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                    reason="the PostgreSQL run needs DATABASE_URL set to a PostgreSQL database")
@pytest.mark.django_db(transaction=True)
def test_workers_killed_after_the_smtp_hand_off_never_send_twice_on_postgresql(tmp_path):
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"

    def no_transaction_open() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%%'"
            )
            return cursor.fetchone()[0] == 0

    crash_run(tmp_path, {"DATABASE_URL": url}, no_transaction_open)
