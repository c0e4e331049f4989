"""The worker (`manage.py worker`, django-q2's cluster) stops cleanly when its whole process group is signalled, as
honcho does when `make run` is stopped and a terminal does on Ctrl-C: it exits 0, and leaves no process behind,
running or defunct. Real processes, on a SQLite file of the test's own."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

STARTS = 180  # seconds a worker may take to start on a busy machine; a test that hangs fails instead


@pytest.fixture(scope="module")
def worker_env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("worker")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "Q_SYNC")}
    env.update({"SQLITE_PATH": str(folder / "roadstar.sqlite3"), "SECRET_KEY": "worker-test-key", "DEBUG": "0",
                "LOG_LEVEL": "INFO", "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}"})
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=settings.BASE_DIR,
                          env=env, capture_output=True, text=True, timeout=STARTS)
    assert done.returncode == 0, done.stderr[-2000:]
    return env, folder


def group_members(pgid: int) -> list[str]:
    """Every process still in the group, running or defunct: `<pid> <state>`."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            members.append(f"{stat.parent.name} {fields[0]}")
    return members


def wait_for(path: Path, words: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTS
    while time.monotonic() < deadline:
        if words in path.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.3)
    raise AssertionError(f"never saw {words!r}:\n{path.read_text(errors='replace')[-3000:]}")


def stopped(process: subprocess.Popen, pgid: int) -> int | None:
    """The exit code, or None when it didn't stop (then everything in the group is killed, so nothing is left)."""
    try:
        return process.wait(timeout=STARTS)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        process.wait()
        return None


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_the_workers_whole_group_stops_it_cleanly(worker_env, signum):
    env, folder = worker_env
    log = folder / f"worker-{signum}.log"
    with open(log, "w") as out:
        process = subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=settings.BASE_DIR, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    wait_for(log, "running", process)
    assert len(group_members(process.pid)) >= 4  # the main process, its sentinel, a worker, the pusher, the monitor
    os.killpg(process.pid, signum)
    code = stopped(process, process.pid)
    assert (code, group_members(process.pid)) == (0, []), log.read_text(errors="replace")[-3000:]
    assert "has stopped" in log.read_text()


def test_stopping_honcho_stops_the_procfiles_worker_before_it_has_to_kill_it(worker_env):
    """`make run` is honcho over the Procfile; Ctrl-C reaches honcho, which sends SIGTERM to each process's group
    and, 5 seconds later, SIGKILL to what is left."""
    env, folder = worker_env
    log = folder / "honcho.log"
    with open(log, "w") as out:
        honcho = subprocess.Popen([str(Path(sys.executable).parent / "honcho"), "start", "worker"],
                                  cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    wait_for(log, "running", honcho)
    worker_pid = int(re.search(r"worker\.1 started \(pid=(\d+)\)", log.read_text())[1])
    honcho.send_signal(signal.SIGINT)
    code = stopped(honcho, honcho.pid)
    if code is None:
        os.killpg(worker_pid, signal.SIGKILL)
    text = log.read_text(errors="replace")
    assert (code is not None, "sending SIGKILL" in text, "worker.1 stopped (rc=0)" in text) == (True, False, True), \
        text[-3000:]
    assert group_members(worker_pid) == []
