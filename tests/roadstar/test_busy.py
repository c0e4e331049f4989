"""Under the embedded default (SQLite), a write that waits for the database longer than its busy timeout (another
process holds the write lock) answers a clear `unavailable`, "busy, try again", from use_tool, a 503 in the API's
one error shape from the REST API, and Roadstar's busy page from an owner's page (core/middleware.py); never a
500, and nothing half-written. A real second connection holds the lock on a database file of the test's own
(tests/roadstar/busy_worker.py)."""

import json
import os
import subprocess
import sys

from django.conf import settings


def test_a_write_that_waits_out_the_busy_timeout_is_unavailable_from_use_tool_and_503_from_the_api(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "Q_SYNC")}
    env.update({"SQLITE_PATH": str(tmp_path / "roadstar.sqlite3"), "ROADSTAR_MAIL_ROOT": str(tmp_path / "mail"),
                "ROADSTAR_FILES_ROOT": str(tmp_path / "files")})
    done = subprocess.run([sys.executable, "-m", "tests.roadstar.busy_worker"], cwd=settings.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["tool"]["error"] == "unavailable" and "busy, try again" in out["tool"]["message"]
    assert (out["rest_status"], out["rest"]["error"], "busy, try again" in out["rest"]["message"],
            out["retry_after"]) == (503, "unavailable", True, "1")
    assert set(out["rest"]) == {"error", "message"}
    assert (out["page_status"], out["page_busy"]) == (503, True)  # an owner's page: the busy page, not a 500
    # Nothing of the refused writes was kept; once the lock is free the same write goes.
    assert (out["after_error"], out["contacts"], out["chat_messages"]) == (None, ["Dana Whitfield"], 0)
