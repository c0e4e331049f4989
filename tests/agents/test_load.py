"""The run limits under real workers on PostgreSQL: 20 pieces of work across 4 agents, 6 worker processes.

No more than 3 threads of one agent and 8 in all ever run at once, and every piece of work is answered, its
answer delivered exactly once. Needs PostgreSQL (SQLite runs one worker process): skipped elsewhere.
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
    reason="the load test needs PostgreSQL and several worker processes",
)


def max_overlap(intervals):
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals],
                    key=lambda e: (e[0], e[1]))
    current = peak = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


@pytest.mark.django_db(transaction=True)
def test_twenty_pieces_of_work_on_six_workers_keep_the_limits(org):
    agents = [AgentFactory(organization=org, name=f"Agent {i}") for i in range(4)]
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
    with FakeModelServer(delay=0.6) as server:
        env = {**os.environ, "DATABASE_URL": url, "Q_WORKERS": "6", "OPENAI_BASE_URL": server.base_url,
               "OPENAI_API_KEY": "test", "SECRET_KEY": settings.SECRET_KEY}
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "worker"], cwd=settings.BASE_DIR, env=env,
            stdout=open("/tmp/qcluster.log", "w"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            for i in range(20):
                services.owner_message_send(org=org, agent=agents[i % 4], text=f"Job number {i}")
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                threads_done = Work.objects.filter(conversation__kind="thread", state="answered").count()
                if threads_done == 20:
                    break
                time.sleep(0.5)
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
    thread_works = Work.objects.filter(conversation__kind="thread")
    assert thread_works.count() == 20 and set(thread_works.values_list("state", flat=True)) == {"answered"}
    runs = Run.objects.filter(conversation__kind="thread").exclude(finished_at=None).select_related("agent")
    intervals = [(r.started_at, r.finished_at) for r in runs]
    per_agent = {a.id: max_overlap([(r.started_at, r.finished_at) for r in runs if r.agent_id == a.id]) for a in agents}
    assert max_overlap(intervals) <= 8 and max(per_agent.values()) <= 3
    assert max_overlap(intervals) >= 4, "the workers never ran threads side by side: the test proves nothing"
    answers = Counter(
        m.data.get("work_id") for m in Message.objects.filter(role="answer", conversation__kind="chat")
    )
    assert set(answers.values()) == {1} and len(answers) == 20
    assert set(Conversation.objects.values_list("state", flat=True)) == {"idle"}
