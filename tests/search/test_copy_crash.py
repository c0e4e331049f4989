"""The first sync against a real crash: a worker copying a mailbox of 400 messages is killed with SIGKILL inside a
batch's transaction (its items written, not committed). The next worker, once the dead one's lease is over, resumes
where the last committed batch left off: every message copied once, none twice.

On SQLite (a database file of the test's own) always; on PostgreSQL when the suite runs there (DATABASE_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

MESSAGES = 400
DEADLINE = 300


def run(env, *args, check=True) -> dict | int:
    done = subprocess.run([sys.executable, "-m", "tests.search.crash_copy", *args], cwd=settings.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=DEADLINE, check=False)
    if not check:
        return done.returncode
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def crash_and_resume(tmp_path, database: dict) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "Q_SYNC")}
    env = {**env, **database, "SECRET_KEY": "crash-test-key", "DEBUG": "0", "ROADSTAR_MAIL_ROOT": str(tmp_path / "m")}
    run(env, "setup", str(MESSAGES))
    assert run(env, "copy", "4", check=False) == -9  # killed inside its 4th batch
    after_crash = run(env, "report")
    # Three batches committed with their position; the fourth's items went with its transaction.
    assert (after_crash["items"], after_crash["position"]["mail"] > 0, after_crash["claimed"]) == (150, True, True)
    assert run(env, "copy")["state"] == "busy"  # the dead worker's lease still holds: no second copier
    assert run(env, "copy", "late")["state"] == "current"
    report = run(env, "report")
    assert (report["items"], report["distinct"], report["state"], report["claimed"]) == (
        MESSAGES, MESSAGES, "current", False)


def test_a_worker_killed_mid_sync_resumes_without_duplicates_on_sqlite(tmp_path):
    crash_and_resume(tmp_path, {"SQLITE_PATH": str(tmp_path / "roadstar.sqlite3")})


@pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                    reason="the PostgreSQL run needs DATABASE_URL set to a PostgreSQL database")
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_sync_resumes_without_duplicates_on_postgresql(tmp_path):
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
    crash_and_resume(tmp_path, {"DATABASE_URL": url})
