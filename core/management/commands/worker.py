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
client among them) and `openai` (about a second to import): the cluster forks its workers from this process, so
each starts with them loaded, and the first turn of a worker is not a second slower than the rest.
"""

from __future__ import annotations

import signal
import time

from django.core.management.base import BaseCommand
from django.utils.module_loading import autodiscover_modules

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


class Command(BaseCommand):
    help = "Run the task worker (django-q2's cluster); SIGTERM or SIGINT stops it cleanly."

    def handle(self, *args, **options):
        from django_q.cluster import Cluster

        warm_up()
        cluster = Cluster()  # installs the main process's handlers, which stop the cluster in order
        before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        try:
            cluster.start()
        finally:
            # A signal that came while it started is delivered now, to the handler.
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        while cluster.sentinel.is_alive():
            time.sleep(0.2)
        cluster.sentinel.join()
