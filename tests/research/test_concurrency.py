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


# --- research tables: claims and the cap under racing workers -------------------------------------------------------


def _table_run(org, *, rows: int, cap_micros: int = 10_000_000):
    from research.models import Dataset, DatasetRow, DatasetRun
    from tests.research.table_fakes import BAKERIES, PLAN

    dataset = Dataset.objects.create(organization=org, name="Harbor bakeries", question="Bakeries in Harbor",
                                     plan=PLAN, model="gpt-6-luna")
    run = DatasetRun.objects.create(organization=org, dataset=dataset, kind="build", status="running",
                                    estimate_micros=1, cap_micros=cap_micros, rows_total=rows, rows_found=True)
    DatasetRow.objects.bulk_create([
        DatasetRow(dataset=dataset, key=b["slug"], position=i, identity={"name": b["name"]},
                   values={"name": b["name"]}, sources={"name": {"status": "filled"}}, state="pending", run=run)
        for i, b in enumerate(BAKERIES[:rows])
    ])
    return run


def test_racing_workers_claim_each_row_once_within_the_run_and_workspace_limits(transactional_db):
    from research import table_run

    org = OrganizationFactory()
    runs = [_table_run(org, rows=6) for _ in range(3)]
    with threads_on_a_file():
        claims = all_at_once([lambda r=r: table_run.row_claim(r.id) for r in runs for _ in range(5)])
    assert not [c for c in claims if isinstance(c, Exception)], claims
    taken = [c for c in claims if c is not None]
    assert len(taken) == 8  # the workspace's eight at once
    assert len({c.row.id for c in taken}) == 8  # no row claimed twice
    per_run = [sum(1 for c in taken if c.row.run_id == r.id) for r in runs]
    assert max(per_run) <= 3


def test_racing_reservations_never_pass_the_cap(transactional_db):
    from research import table_run
    from research.models import DatasetRun

    run = _table_run(OrganizationFactory(), rows=1, cap_micros=4_000)
    with threads_on_a_file():
        results = all_at_once([lambda: table_run._reserve(run.id, 1_000)] * 10)
        reserved = in_a_thread(lambda: DatasetRun.objects.get(id=run.id).reserved_micros)
    assert results.count(True) == 4 and reserved == 4_000


def test_three_workers_research_a_run_in_parallel_each_row_once(transactional_db, monkeypatch):
    """Three workers on one run at once (the web read from a stub, the model scripted): every row researched once,
    the spend within the cap, the run done."""
    from agents.runtime.model import ScriptedModel, set_model
    from research import table_run
    from research.models import DatasetRow, DatasetRun
    from tests.research.table_fakes import BAKERIES, bakery_page, cells_answer

    class Web:
        @staticmethod
        def web_search(*, objective, queries, limit):
            name = queries[0]
            return {"results": [{"url": f"https://harbor.example/{name}", "title": name, "excerpts": []}]}

        @staticmethod
        def web_read(*, urls, objective):
            import re

            name = urls[0].rsplit("/", 1)[1]
            bakery = next(b for b in BAKERIES if b["name"] == name)
            text = re.sub(r"<[^>]+>", " ", bakery_page(bakery))
            return {"pages": [{"url": urls[0], "title": name, "text": " ".join(text.split())}], "failed": []}

    monkeypatch.setattr(table_run, "_web", lambda: Web)
    org = OrganizationFactory()
    run = _table_run(org, rows=9)
    model = ScriptedModel([cells_answer] * 9)
    set_model(model)
    try:
        with threads_on_a_file():
            results = all_at_once([lambda: table_run.run_work(run.id)] * 3)
            rows = in_a_thread(lambda: list(DatasetRow.objects.filter(run_id=run.id)))
            done = in_a_thread(lambda: DatasetRun.objects.get(id=run.id))
    finally:
        set_model(None)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert [r.researched for r in rows] == [1] * 9 and all(r.sources["founded"]["status"] for r in rows)
    assert (done.status, done.rows_done, done.reserved_micros) == ("done", 9, 0)
    assert 0 < done.spent_micros <= done.cap_micros and len(model.requests) == 9
