"""What the worker's queue says about the work waiting in it, for background work that should step aside.

The embedded default runs one worker process (Q_WORKERS=1): a long background task (copying an account into search,
embedding it) holds that process, and an owner's chat message queued meanwhile waits for it to finish. Such tasks
work in short batches and, between two batches, ask `others_waiting()`: where it says yes they stop (what is left
goes on in their next run) and the message is served first.
"""

from __future__ import annotations

from django_q.conf import Conf
from django_q.models import OrmQ


def others_waiting() -> bool:
    """Whether, on a cluster of one worker, a task waits behind the one running now. The queue's rows are the
    running task's own (acknowledged only when it ends) and those not yet done, so more than one row means someone
    waits. With more workers another one is free to take the task, and the answer is no."""
    if Conf.WORKERS != 1 or Conf.SYNC:
        return False
    waiting: int = OrmQ.objects.using(Conf.ORM).filter(key=Conf.PREFIX)[:2].count()
    return waiting > 1
