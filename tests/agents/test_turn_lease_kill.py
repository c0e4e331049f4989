"""A worker killed with SIGKILL mid-turn: another worker cluster takes the turn over by its lapsed lease.

Two real worker clusters (`manage.py worker`) on PostgreSQL against a loopback model server whose threads take a
few seconds a step. The owner's message starts a thread; while the thread's model call is in flight, the first
cluster's whole process group is killed with SIGKILL. The second cluster's lease watch finds the lapsed lease and
claims the thread again: the work is answered exactly once, the killed turn's run ends `interrupted`, and every
conversation is idle. The broker alone would have handed the task out after Q_CLUSTER's retry (660 s); the test
gives up long before that (a hang guard, not a timing). Needs PostgreSQL (SQLite runs one worker): skipped elsewhere.
"""

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection

from agents import services
from agents.models import Conversation, Message, Run, Work
from tests.agents.fake_model_server import FakeModelServer
from tests.factories import AgentFactory

pytestmark = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="the kill test runs real worker clusters, which need PostgreSQL (SQLite runs one worker process)",
)

HANG_GUARD = 120  # seconds: far below the broker's 660 s retry, so only the lease can have handed the turn on


def start_worker(env, log_path):
    return subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=settings.BASE_DIR, env=env,
                            stdout=open(log_path, "w"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(worker) -> None:
    if worker.poll() is not None:
        return
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def wait_for(condition, what: str):
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting: {what}")


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_turn_is_replaced_by_its_lapsed_lease(org, tmp_path):
    agent = AgentFactory(organization=org, name="Client desk")
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
    with FakeModelServer(delay=4) as server:
        env = {**os.environ, "DATABASE_URL": url, "Q_WORKERS": "2", "OPENAI_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "test", "SECRET_KEY": settings.SECRET_KEY, "ROADSTAR_TURN_LEASE_SECONDS": "6",
               "Q_POLL": "0.2"}
        env.pop("Q_SYNC", None)
        first = start_worker(env, tmp_path / "first.log")
        second = None
        try:
            services.owner_message_send(org=org, agent=agent, text="Add Dana Whitfield")
            # The thread's turn is in its model call (the server holds it for 4 s) on the first cluster.
            wait_for(lambda: Run.objects.filter(conversation__kind="thread", outcome="running").exists()
                     and server.calls >= 2, "the thread's turn to start")
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
            second = start_worker(env, tmp_path / "second.log")
            wait_for(lambda: Work.objects.filter(conversation__kind="thread", state="answered").exists()
                     and set(Conversation.objects.values_list("state", flat=True)) == {"idle"},
                     "the thread's work to be answered")
        finally:
            stop(first)
            if second is not None:
                stop(second)
    thread_runs = list(Run.objects.filter(conversation__kind="thread").order_by("started_at"))
    assert [r.outcome for r in thread_runs] == [Run.Outcome.INTERRUPTED, Run.Outcome.ANSWERED]
    assert "lease" in thread_runs[0].error
    [work] = Work.objects.filter(conversation__kind="thread")
    assert work.answer.startswith("Done: ") and "Add Dana Whitfield" in work.answer  # the thread echoes its packet
    answers = Counter(m.data.get("work_id") for m in Message.objects.filter(role="answer"))
    assert answers == Counter({str(work.id): 1})
    assert Work.objects.get(conversation__kind="chat").state == Work.State.PASSED
    thread = Conversation.objects.get(kind="thread")
    assert thread.messages.filter(role=Message.Role.AGENT).count() == 1
    assert "Traceback" not in (tmp_path / "second.log").read_text()
