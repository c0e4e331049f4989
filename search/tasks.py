"""The worker's search tasks: every minute, copy what is new in each account with search on (and finish or
resume a first sync), and drop the copies of accounts turned off; and embed what the copy holds that has no
embedding yet, where an embeddings endpoint is configured (search/embeddings.py)."""

from core import queue
from search import embeddings, sync

SCHEDULES = (("search.tasks.sweep", "search copies", 1), ("search.tasks.embed", "search embeddings", 1))


def sweep():
    sync.sweep()


def embed():
    # Well inside the task's time: what is left goes on in the next minute's run.
    embeddings.embed_pending(max_seconds=embeddings.SWEEP_SECONDS, yield_when=queue.others_waiting)
