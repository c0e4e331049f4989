"""core.memo: a kept read is read once inside a reads_kept() block, and every time outside one."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import memo
from research import services as research_services
from research.selectors import research_settings
from tools.catalog import browse_description

calls = []


@memo.kept
def read(*, org, n):
    calls.append((org, n))
    return len(calls)


@pytest.fixture(autouse=True)
def fresh():
    calls.clear()


class Row:
    def __init__(self, pk):
        self.pk = pk


def test_inside_a_block_the_same_read_is_read_once_and_another_is_read_again():
    with memo.reads_kept():
        first = [read(org=Row(1), n=1), read(org=Row(1), n=1)]  # two instances of one row: the same argument
        other = [read(org=Row(2), n=1), read(org=Row(1), n=2)]
        with memo.reads_kept():  # a block inside holds with the outer one
            again = read(org=Row(1), n=1)
    assert (first, other, again, len(calls)) == ([1, 1], [2, 3], 1, 3)


def test_outside_a_block_every_read_reads():
    with memo.reads_kept():
        read(org=Row(1), n=1)
    assert [read(org=Row(1), n=1), read(org=Row(1), n=1)] == [2, 3]


@pytest.mark.django_db
def test_browse_tools_description_reads_the_research_settings_once(org):
    research_services.research_settings_set(org=org, newsfeed=True)
    with CaptureQueriesContext(connection) as queries:
        description = browse_description(org)
    read = [q for q in queries.captured_queries if "research_researchsettings" in q["sql"]]
    assert ("- newsfeed: today's news (1)" in description, "- filings: public companies' filings (2; off here" in
            description, len(read)) == (True, True, 1)
    # and outside the description, a settings change is seen at once
    research_services.research_settings_set(org=org, newsfeed=False)
    assert research_settings(org=org).newsfeed_on is False
