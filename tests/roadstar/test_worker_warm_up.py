"""The worker loads what a turn needs before its cluster forks the workers, so no worker's first turn pays for
importing the model client and `openai` (about a second)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from django.conf import settings
from django.db import close_old_connections, connection, connections
from django_q.signals import post_spawn

from core.management.commands import worker


def assert_passes_in_a_fresh_interpreter(code: str) -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "roadstar.settings")}
    done = subprocess.run([sys.executable, "-c", code], cwd=settings.BASE_DIR, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_warm_up_imports_the_model_client_and_openai():
    # A fresh interpreter: this test process may have imported openai already. django.setup() may load
    # agents.runtime.model (a light module that services import at their top); the OpenAI SDK itself, what a
    # cold first turn paid for, must wait for the warm-up.
    code = (
        "import sys, django; django.setup()\n"
        "from core.management.commands.worker import warm_up\n"
        "assert 'openai' not in sys.modules, 'loaded too early'\n"
        "warm_up()\n"
        "missing = [m for m in ('openai', 'openai.resources.chat.completions', 'agents.runtime.model',"
        " 'agents.tasks') if m not in sys.modules]\n"
        "assert not missing, missing\n"
    )
    assert_passes_in_a_fresh_interpreter(code)


def test_worker_warms_up_before_the_cluster_forks(monkeypatch):
    happened = []

    class Sentinel:
        def is_alive(self):
            return False

        def join(self):
            happened.append("joined")

    class FakeCluster:
        def __init__(self):
            self.sentinel = Sentinel()

        def start(self):
            happened.append("start")

    monkeypatch.setattr(worker, "keep_connections", lambda: happened.append("keep_connections"))
    monkeypatch.setattr(worker, "warm_up", lambda: happened.append("warm_up"))
    monkeypatch.setattr(worker, "freeze_what_is_loaded", lambda: happened.append("freeze"))
    monkeypatch.setattr("django_q.cluster.Cluster", FakeCluster)
    try:
        worker.Command().handle()
        # Each worker process connects as it is spawned, before its first task.
        assert worker.connect_at_start in [entry[1]() for entry in post_spawn.receivers]
    finally:
        post_spawn.disconnect(dispatch_uid="roadstar.worker.connect_at_start")
    assert happened == ["keep_connections", "warm_up", "freeze", "start", "joined"]


@pytest.mark.django_db
def test_the_clusters_processes_keep_their_connections(monkeypatch):
    for alias in connections:  # put back after the test: the suite's own connections close as usual
        for key in ("CONN_MAX_AGE", "CONN_HEALTH_CHECKS"):
            monkeypatch.setitem(connections.settings[alias], key, connections.settings[alias][key])
        monkeypatch.setitem(connections.settings[alias], "OPTIONS", dict(connections.settings[alias]["OPTIONS"]))
    worker.keep_connections()
    kept = connections.create_connection("default")
    try:
        kept.connect()
        assert "pool" not in kept.settings_dict["OPTIONS"]  # the web's PostgreSQL pool: a worker keeps its own
        assert kept.close_at is None  # no age at which it is closed
        kept.close_if_unusable_or_obsolete()  # what django-q2 runs before each task and each look at the queue
        assert kept.connection is not None
        assert kept.health_check_enabled  # the next use tries it first, and opens it again if it was dropped
    finally:
        kept.close()



def test_what_the_worker_loaded_is_frozen_before_the_cluster_forks():
    # In a fresh interpreter (freezing this one would keep the suite's garbage): after the warm-up, the loaded
    # modules' objects are out of the collector's sight, so a forked worker's collections don't copy their pages.
    code = (
        "import gc, django; django.setup()\n"
        "from core.management.commands.worker import freeze_what_is_loaded, warm_up\n"
        "warm_up()\n"
        "before = gc.get_freeze_count()\n"
        "freeze_what_is_loaded()\n"
        "assert gc.get_freeze_count() > before + 100_000, (before, gc.get_freeze_count())\n"
        "assert sum(gc.get_count()) < 1_000, gc.get_count()\n"
    )
    assert_passes_in_a_fresh_interpreter(code)


@pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                    reason="the pool is PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_each_requests_thread_takes_a_pooled_connection_and_gives_it_back():
    # The ASGI server runs each request's view in a thread of its own, and Django keeps a connection per thread:
    # what a request does with the database, in a thread, ended as a request ends (close_old_connections).
    pool = connection.pool
    assert pool is not None and pool.max_size >= 8 and pool.min_size >= 1
    before = pool.get_stats()

    def request():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        close_old_connections()

    for _ in range(5):
        thread = threading.Thread(target=request)
        thread.start()
        thread.join()
    after = pool.get_stats()
    # Five requests, each given a connection the pool already held: none was opened for them.
    assert after["requests_num"] - before.get("requests_num", 0) == 5
    assert after.get("connections_num", 0) - before.get("connections_num", 0) == 0
    assert after["pool_size"] <= pool.max_size
