"""The worker's research tasks. Each is safe to run twice and in several workers at once (claims are conditional
writes), so django-q's at-least-once delivery never reads a feed or fetches a filing twice."""

from __future__ import annotations

import logging

from django.utils import timezone

from research import services, table_run
from research.models import DatasetPlanDraft
from research.services import DRAFT_KEPT

logger = logging.getLogger(__name__)

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes a django-q schedule of each.
SCHEDULES = (("research.tasks.feeds_sweep", "newsfeed sweep", 1), ("research.tasks.tables_sweep", "tables sweep", 1))


def feeds_sweep() -> int:
    """Read every feed that is due (each feed once, however many workers sweep). Returns how many were read."""
    now = timezone.now()
    read = 0
    for feed_id in services.feeds_due(now=now):
        try:
            if services.feed_refresh(feed_id=feed_id) is not None:
                read += 1
        except Exception:
            logger.exception("newsfeed: reading feed %s failed", feed_id)
    return read


def fetch_filing(accession: str) -> str:
    return services.filing_fetch(accession=accession)


def table_work(run_id: str) -> str:
    """Work on a research table's run (find its rows, research rows) for a few minutes; queue another task when
    rows are left. Several run at once for one run, within the limits (research/table_run.py)."""
    if table_run.run_work(run_id) == "more":
        table_run.dispatch(run_id, tasks=1)
    return run_id


def tables_sweep() -> int:
    """Pick up the table runs a worker should be on: rows waiting, a dead worker's lapsed claims, a build whose
    rows nobody is finding. Each is only queued here; the task's claims keep the work from being done twice."""
    from django.db import transaction

    # Plans nobody said yes to, once they are too old to be used.
    DatasetPlanDraft.objects.filter(used_by__isnull=True, created_at__lt=timezone.now() - DRAFT_KEPT).delete()
    runs = table_run.runs_to_resume()
    with transaction.atomic():
        for run_id in runs:
            table_run.dispatch(run_id, tasks=1)
    return len(runs)
