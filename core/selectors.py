"""Reads of core's own records that more than one app above shows: Your work's change lines and the open cards
(Home's page and the REST API's /home/ both read them here)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from core.models import HOME_LISTING_VALUES, Card, Change, Organization

# Home's filter on the listing, written with its values in the SQL rather than bound as parameters: SQLite uses a
# partial index only when the query's condition is the index's own (`listing IN ('home', 'home_undo')`), and a
# bound `IN (?, ?)` is not. Then Your work reads its page from change_home_order_idx in order and stops after 50,
# instead of sorting every Home line of the workspace in a temporary B-tree. The values are the code's constants.
_ON_HOME = RawSQL(
    f'"{Change._meta.db_table}"."listing" IN ({", ".join(f"'{value}'" for value in HOME_LISTING_VALUES)})',
    [], output_field=BooleanField(),
)
PAGE_SIZE = 50
# Stored times keep microseconds (SQLite and PostgreSQL alike), so one microsecond is the smallest step between two.
_TICK = datetime.timedelta(microseconds=1)


@dataclass(frozen=True)
class WorkPage:
    lines: list[Any]  # Changes; named rows of the `fields` asked for
    # The `before` of the next, older page (`at < next_before`); None on the last page.
    next_before: datetime.datetime | None


def home_cards(*, org: Organization) -> list[Card]:
    """The open cards, newest first. One open card per subject keeps this list short."""
    return list(Card.objects.filter(organization=org, resolved_at__isnull=True).order_by("-created_at", "-id"))


def _lines(org: Organization, fields: tuple[str, ...] = ()) -> QuerySet[Change, Any]:
    # Whole rows unless `fields` names what is read: a line reads `can_undo`, which reads `undo`. Actor names are
    # kept on the row, so no joins.
    rows = Change.objects.filter(_ON_HOME, organization=org).order_by("-at", "-id")
    return rows.values_list(*dict.fromkeys(("at", *fields)), named=True) if fields else rows


def home_work_lines(*, org: Organization, before: datetime.datetime | None = None, limit: int = PAGE_SIZE,
                    fields: tuple[str, ...] = ()) -> WorkPage:
    """Your work, newest first, `limit` lines older than `before` (keyset paging on `at`).

    A page never ends inside a group of lines made at the same instant: those would be skipped by the next
    page's `at < before`. So the page stops before such a group and the next one starts with it whole.

    `fields`: read only these columns (and `at`), each line a named row rather than a Change: Home's page reads
    what it shows, and a row costs a fraction of a model instance (the page's only cost that grows with its lines).
    """
    rows = _lines(org, fields)
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
    same = list(_lines(org, fields).filter(at=first_left.at))
    older = _lines(org).filter(at__lt=first_left.at).exists()
    return WorkPage(lines=same, next_before=first_left.at if older else None)
