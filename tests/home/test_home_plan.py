"""Home's Your-work page reads its 50 lines through an index in the page's order, on SQLite: no temporary B-tree
sorting every Home line of the workspace (which made Home at 10,000 lines 1.8x slower than at 10). The plan is
checked, not the time."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection

from core.selectors import _lines

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite", reason="checks SQLite's query plan")


def plan(queryset) -> str:
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        return "\n".join(row[-1] for row in cursor.fetchall())


@pytest.mark.django_db
@pytest.mark.parametrize("before", [None, datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)])
def test_your_work_page_is_read_in_index_order(org, before):
    rows = _lines(org)
    if before is not None:
        rows = rows.filter(at__lt=before)
    text = plan(rows[:51])
    assert "USING INDEX change_home_order_idx" in text, text
    assert "TEMP B-TREE" not in text, text


def test_home_listings_are_the_models_own():
    from core.models import HOME_LISTING_VALUES, Change

    assert set(HOME_LISTING_VALUES) == {Change.Listing.HOME, Change.Listing.HOME_UNDO}
