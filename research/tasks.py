"""The worker's research tasks. Each is safe to run twice and in several workers at once (claims are conditional
writes), so django-q's at-least-once delivery never reads a feed or fetches a filing twice."""

from __future__ import annotations

import logging

from django.utils import timezone

from research import services

logger = logging.getLogger(__name__)

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes a django-q schedule of each.
SCHEDULES = (("research.tasks.feeds_sweep", "newsfeed sweep", 1),)


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
