"""`manage.py worker`: the task worker, django-q2's cluster, stopping cleanly on SIGTERM and SIGINT.

`qcluster` stops well when only its main process is signalled. A signal sent to its whole process group (honcho
stopping `make run`, a terminal's Ctrl-C, `kill -- -PGID`) also reaches the sentinel and the processes under it,
which die at once: the sentinel can die holding the lock of the stop event, so the main process, setting that event,
waits forever, and the dead stay defunct. Here the signals are blocked while the cluster starts, so the processes
it forks keep them blocked (a blocked signal is never delivered, whatever handler is set later) and only the main
process gets them. It stops the rest in order: the pusher stops taking tasks, each worker finishes the task it
runs, the monitor saves the results, and each parent reaps its children. A task cut short by a SIGKILL is handed
out again by the broker after `retry` (tasks are idempotent).
"""

from __future__ import annotations

import signal
import time

from django.core.management.base import BaseCommand

STOPPING = {signal.SIGTERM, signal.SIGINT}


class Command(BaseCommand):
    help = "Run the task worker (django-q2's cluster); SIGTERM or SIGINT stops it cleanly."

    def handle(self, *args, **options):
        from django_q.cluster import Cluster

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
