"""Real threads on the database (tests/concurrency.py): the EDGAR budget and a due feed's claim hold when workers
race, on SQLite and on PostgreSQL."""

import pytest
import respx

from research import services, tasks
from research.models import Feed, RateWindow, Story
from research.ratelimit import RateBudgetSpent, SharedRateLimit
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import OrganizationFactory
from tests.research.conftest import recorded

RSS = "https://news.example.com/feed.xml"


def test_racing_processes_never_take_more_than_the_budget(transactional_db):
    """Four workers ask for 5 turns each in the same instant (a frozen clock, no waiting allowed): exactly 10 go."""
    frozen = 1_764_600_000.0

    def worker():
        limiter = SharedRateLimit(name="edgar", limit=10, per=1.0, clock=lambda: frozen,
                                  sleep=lambda s: None, max_wait=0.0)
        taken = 0
        for _ in range(5):
            try:
                limiter.acquire()
                taken += 1
            except RateBudgetSpent:
                pass
        return taken

    with threads_on_a_file():
        results = all_at_once([worker] * 4)
        row = in_a_thread(lambda: RateWindow.objects.get(name="edgar"))
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 10 and len(row.times) == 10


def test_two_workers_sweeping_at_once_read_a_due_feed_once(transactional_db):
    org = OrganizationFactory()
    services.research_settings_set(org=org, newsfeed=True)
    feed = services.feed_add(org=org, url=RSS)
    with threads_on_a_file(), respx.mock() as mock:
        route = mock.get(RSS).respond(200, content=recorded("rss.xml"))
        results = all_at_once([tasks.feeds_sweep, tasks.feeds_sweep])
        stories = in_a_thread(lambda: Story.objects.filter(feed_id=feed.id).count())
        fetches = in_a_thread(lambda: Feed.objects.get(id=feed.id).fetches)
    assert sorted(results) == [0, 1], results
    assert route.call_count == 1 and stories == 3 and fetches == 1


@pytest.fixture(autouse=True)
def _public_names(monkeypatch):
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["93.184.216.34"])
