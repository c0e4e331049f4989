"""Reads for Home: the cards waiting for the owner and the Your-work lines, a fixed number of queries a page."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import QuerySet

from roadstar.models import Card, Change, Organization

HOME_LISTINGS = (Change.Listing.HOME, Change.Listing.HOME_UNDO)
PAGE_SIZE = 50
# Stored times keep microseconds (SQLite and PostgreSQL alike), so one microsecond is the smallest step between two.
_TICK = datetime.timedelta(microseconds=1)


@dataclass(frozen=True)
class WorkPage:
    lines: list[Change]
    # The `before` of the next, older page (`at < next_before`); None on the last page.
    next_before: datetime.datetime | None


def home_cards(*, org: Organization) -> list[Card]:
    """The open cards, newest first. One open card per subject keeps this list short."""
    return list(Card.objects.filter(organization=org, resolved_at__isnull=True).order_by("-created_at", "-id"))


def _lines(org: Organization) -> QuerySet:
    # Whole rows: a line reads `can_undo`, which reads `undo`. Actor names are kept on the row, so no joins.
    return Change.objects.filter(organization=org, listing__in=HOME_LISTINGS).order_by("-at", "-id")


def home_work_lines(*, org: Organization, before: datetime.datetime | None = None, limit: int = PAGE_SIZE) -> WorkPage:
    """Your work, newest first, `limit` lines older than `before` (keyset paging on `at`).

    A page never ends inside a group of lines made at the same instant: those would be skipped by the next
    page's `at < before`. So the page stops before such a group and the next one starts with it whole.
    """
    rows = _lines(org)
    if before is not None:
        rows = rows.filter(at__lt=before)
    fetched = list(rows[: limit + 1])
    if len(fetched) <= limit:
        return WorkPage(lines=fetched, next_before=None)
    page, first_left = fetched[:limit], fetched[limit]
    if page[-1].at != first_left.at:
        return WorkPage(lines=page, next_before=page[-1].at)
    whole = [line for line in page if line.at != first_left.at]
    if whole:
        return WorkPage(lines=whole, next_before=first_left.at + _TICK)
    # A whole page made at one instant (a bulk import): show every line of that instant on this page.
    same = list(_lines(org).filter(at=first_left.at))
    older = _lines(org).filter(at__lt=first_left.at).exists()
    return WorkPage(lines=same, next_before=first_left.at if older else None)

