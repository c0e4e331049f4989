"""`manage.py worker`: the task worker, django-q2's cluster, stopping cleanly on SIGTERM and SIGINT.

`qcluster` stops well when only its main process is signalled. A signal sent to its whole process group (honcho
stopping `make run`, a terminal's Ctrl-C, `kill -- -PGID`) also reaches the sentinel and the processes under it,
which die at once: the sentinel can die holding the lock of the stop event, so the main process, setting that event,
waits forever, and the dead stay defunct. Here the signals are blocked while the cluster starts, so the processes
it forks keep them blocked (a blocked signal is never delivered, whatever handler is set later) and only the main
process gets them. It stops the rest in order: the pusher stops taking tasks, each worker finishes the task it
runs, the monitor saves the results, and each parent reaps its children. A task cut short by a SIGKILL is handed
out again by the broker after `retry` (tasks are idempotent).

Before the cluster starts, `warm_up` imports every app's `tasks` module (the turn's whole runtime with the model
client among them) and `openai` (about a second to import), and runs each app's `tasks.warm_up` (agents: the model
client and the tools' schemas): the cluster forks its workers from this process, so each starts with them loaded,
and the first turn of a worker is not slower than the rest. Each worker process then opens its database connection
as it starts (`connect_at_start`), and keeps it (`keep_connections`).
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
import time
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand
from django.db import DatabaseError, connections
from django.utils.module_loading import autodiscover_modules

logger = logging.getLogger(__name__)

STOPPING = {signal.SIGTERM, signal.SIGINT}


def warm_up() -> None:
    """Load what a turn needs, once, in the process the workers are forked from."""
    import openai
    from openai.resources.chat import completions  # noqa: F401  (loaded lazily on a client's first call)

    # Every installed app's tasks.py, found by name, so core (the bottom layer) names no app above it: agents'
    # brings the turn's whole runtime (scheduler, turn, model client, tools).
    autodiscover_modules("tasks")

    # Building a client loads the SDK's HTTP layer; it holds no connection until a call is made.
    openai.OpenAI(api_key="warm-up", max_retries=0).chat.completions  # noqa: B018

    # What Django works out on a model's first query (its fields, its relations), for every model at once.
    for model in apps.get_models():
        model._meta.get_fields()

    # What each app's tasks build once per process and keep (agents: the configured model client, the schemas the
    # tools are offered with): built here, every worker inherits them.
    for app in apps.get_app_configs():
        warm = getattr(sys.modules.get(f"{app.name}.tasks"), "warm_up", None)
        if callable(warm):
            warm()


def freeze_what_is_loaded() -> None:
    """Move every object loaded so far out of the garbage collector's sight, just before the cluster forks.

    A forked worker shares the parent's memory until it writes to it, and a full collection writes to every object
    it looks at (its reference count for the pass): each worker's first full collection touched the whole loaded
    project, Django and the OpenAI SDK, and copied their pages, about 200 ms in the middle of its first turn on
    PostgreSQL (bench/PERFORMANCE.md, pickup). Frozen (the way Python's gc.freeze documents for a pre-fork server),
    the modules, models and clients loaded here are never collected or visited; what the turns make still is.
    """
    gc.collect()
    gc.freeze()


def keep_connections() -> None:
    """The cluster's processes keep their database connections for their life, checked before each use.

    django-q2 closes a connection older than CONN_MAX_AGE before each task (the worker) and each look at the queue
    (the pusher), as a request's end would. With SQLite's 0 that reopened the database file, and read its schema
    again, for every task and every look (about 5 ms of CPU each, twice a chat message); with PostgreSQL's 60 s,
    the first message after a quiet minute waited for two new connections (a server process each). These processes
    serve no request, so nothing else would close them: they are kept, and CONN_HEALTH_CHECKS tries one before its
    first use after each task (a dropped connection is opened again, so a restarted database costs no task).

    PostgreSQL's pool (the web's, roadstar/settings/base.py) is left out here, before any connection is made: a
    process keeping one connection has no use for it, Django refuses a pool with persistent connections, and the
    cluster forks its workers from this process, where a pool's threads would not follow.
    """
    for alias in connections:
        connections.settings[alias].update(CONN_MAX_AGE=None, CONN_HEALTH_CHECKS=True)
        connections.settings[alias].get("OPTIONS", {}).pop("pool", None)


def connect_at_start(**kwargs: Any) -> None:
    """In each worker process as it starts (django-q2's post_spawn): open the connection its turns will keep and
    read through it (SQLite reads the schema on a connection's first query), so its first turn doesn't wait for it."""
    from django_q.conf import Conf
    from django_q.models import OrmQ

    try:
        OrmQ.objects.using(Conf.ORM).exists()
    except DatabaseError:
        logger.warning("worker: no database connection at start; the first task opens one", exc_info=True)


def watches() -> list[tuple[Any, ...]]:
    """Each app's `tasks.watch` with how often it runs (`tasks.watch_seconds()`): looks the main process takes more
    often than the minute's schedules can (agents: conversations whose worker died, by their lapsed lease)."""
    found = []
    for app in apps.get_app_configs():
        module = sys.modules.get(f"{app.name}.tasks")
        if callable(getattr(module, "watch", None)) and callable(getattr(module, "watch_seconds", None)):
            found.append((module.watch, module.watch_seconds()))  # type: ignore[union-attr]
    return found


def keep_watch(stop: threading.Event) -> None:
    """The watches, in a thread of the main process started after the cluster forked its sentinel: this thread's
    database connection is its own, opened after every fork. A failing look is logged and tried at the next."""
    due = dict.fromkeys(range(len(found := watches())), 0.0)
    try:
        while not stop.wait(1):
            now = time.monotonic()
            for i, (look, every) in enumerate(found):
                if now >= due[i]:
                    due[i] = now + every
                    try:
                        look()
                    except Exception:
                        logger.warning("worker: a watch failed; it looks again", exc_info=True)
    finally:
        connections.close_all()


class Command(BaseCommand):
    help = "Run the task worker (django-q2's cluster); SIGTERM or SIGINT stops it cleanly."

    def handle(self, *args: Any, **options: Any) -> None:
        from django_q.cluster import Cluster
        from django_q.signals import post_spawn

        keep_connections()
        warm_up()
        freeze_what_is_loaded()
        post_spawn.connect(connect_at_start, dispatch_uid="roadstar.worker.connect_at_start")
        cluster = Cluster()  # installs the main process's handlers, which stop the cluster in order
        before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        try:
            cluster.start()
        finally:
            # A signal that came while it started is delivered now, to the handler.
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        stop = threading.Event()
        watcher = threading.Thread(target=keep_watch, args=(stop,), name="watch", daemon=True)
        watcher.start()
        while cluster.sentinel.is_alive():
            time.sleep(0.2)
        stop.set()
        watcher.join(timeout=10)
        cluster.sentinel.join()
