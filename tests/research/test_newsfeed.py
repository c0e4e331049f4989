"""The newsfeed on recorded feeds: RSS and Atom parsed by feedparser, malformed answers given a clear state,
stories kept once, the worker's sweep reading a due feed once with two workers, addresses inside the network
refused, and newsfeed.read as declared, scoped to the workspace."""

import datetime

import httpx
import pytest
import respx
from django.utils import timezone
from freezegun import freeze_time

from core.actors import Actor
from core.context import ToolContext
from core.errors import ToolError
from research import feeds, netguard, selectors, services, tasks
from research.models import Feed, Story
from tests.factories import AgentFactory, ProjectFactory
from tests.research.conftest import recorded
from tools.catalog import browse_description

RSS = "https://news.example.com/feed.xml"
ATOM = "https://wire.example.org/atom"
NOW = "2026-12-01T15:00:00Z"  # 10:00 in New York, the owner's zone


def _xml(name):
    return httpx.Response(200, content=recorded(name), headers={"content-type": "application/rss+xml"})


def _due(feed):
    Feed.objects.filter(id=feed.id).update(next_fetch_at=timezone.now() - datetime.timedelta(seconds=1))


# --- parsing ----------------------------------------------------------------------------------------------------


def test_rss_items_are_read_without_their_markup():
    read = feeds.parse(recorded("rss.xml"))
    assert read.state == "ok" and read.title == "Bakery Business Daily"
    first = read.items[0]
    assert first.headline == "Flour prices ease for a third month"
    assert first.summary == "Wholesale flour fell 2% in November, the third monthly drop."
    assert first.link == "https://news.example.com/2026/12/01/flour-prices-ease"
    assert first.published_at == datetime.datetime(2026, 12, 1, 12, 30, tzinfo=datetime.UTC)
    assert len({i.key for i in read.items}) == 3


def test_atom_is_read_too():
    read = feeds.parse(recorded("atom.xml"))
    assert read.state == "ok" and read.title == "Retail Wire"
    assert [i.headline for i in read.items] == ["Warehouse clubs report strong November",
                                                 "Flour prices ease for a third month"]


@pytest.mark.parametrize("name, words", [
    ("malformed.xml", "isn't a well-formed feed"),
    ("not_a_feed.html", "web page, not an RSS or Atom feed"),
])
def test_what_is_not_a_feed_is_malformed_with_why(name, words):
    read = feeds.parse(recorded(name))
    assert read.state == "malformed" and words in read.problem and not read.items


def test_an_items_key_is_its_guid_else_its_link():
    assert feeds.item_key({"id": "g1", "link": "https://a"}) != feeds.item_key({"link": "https://a"})
    assert feeds.item_key({"id": "g1", "link": "https://a"}) == feeds.item_key({"id": "g1", "link": "https://b"})
    assert feeds.item_key({"title": ""}) is None


# --- the worker's sweep ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_feed_read_twice_keeps_each_story_once(research_on, org):
    feed = services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        route = mock.get(RSS).mock(return_value=_xml("rss.xml"))
        assert tasks.feeds_sweep() == 1
        _due(feed)
        assert tasks.feeds_sweep() == 1
    assert route.call_count == 2
    assert Story.objects.filter(feed=feed).count() == 3
    feed.refresh_from_db()
    assert (feed.state, feed.title, feed.fetches) == (Feed.State.OK, "Bakery Business Daily", 2)


@pytest.mark.django_db
def test_a_feed_not_due_is_not_read(research_on, org):
    services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).mock(return_value=_xml("rss.xml"))
        tasks.feeds_sweep()
        assert tasks.feeds_sweep() == 0
        assert mock.calls.call_count == 1


@pytest.mark.django_db
def test_the_sweep_reads_a_due_feed_once_with_two_workers(research_on, org):
    """Worker A's read is in flight when worker B sweeps: B's claim loses (a conditional write), so the feed is read
    once and its stories stored once."""
    feed = services.feed_add(org=org, url=RSS)
    second_worker = []

    def answer(request):
        second_worker.append(tasks.feeds_sweep())  # B sweeps while A is reading
        return _xml("rss.xml")

    with respx.mock() as mock:
        route = mock.get(RSS).mock(side_effect=answer)
        assert tasks.feeds_sweep() == 1
    assert second_worker == [0] and route.call_count == 1
    assert Story.objects.filter(feed=feed).count() == 3


@pytest.mark.django_db
def test_two_claims_on_one_due_feed_one_wins(research_on, org):
    feed = services.feed_add(org=org, url=RSS)
    now = timezone.now()
    assert [services.feed_claim(feed_id=feed.id, now=now) for _ in range(2)] == [True, False]
    # A worker killed mid-read leaves its claim; once it lapses the feed is read again.
    assert services.feed_claim(feed_id=feed.id, now=now + services.FEED_CLAIM + datetime.timedelta(seconds=1))


@pytest.mark.django_db
def test_the_sweep_skips_workspaces_with_the_newsfeed_off(org):
    services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        assert tasks.feeds_sweep() == 0
    assert not mock.calls


@pytest.mark.django_db
@pytest.mark.parametrize("answer, state, words", [
    (httpx.Response(200, content=recorded("malformed.xml")), Feed.State.MALFORMED, "well-formed"),
    (httpx.Response(200, content=recorded("not_a_feed.html"), headers={"content-type": "text/html"}),
     Feed.State.MALFORMED, "web page"),
    (httpx.Response(404), Feed.State.UNREACHABLE, "nothing at this address"),
    (httpx.Response(500), Feed.State.UNREACHABLE, "HTTP 500"),
    (httpx.ConnectTimeout("slow"), Feed.State.UNREACHABLE, "in time"),
])
def test_a_feed_that_fails_has_a_clear_state_and_keeps_its_stories(research_on, org, answer, state, words):
    feed = services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).mock(return_value=_xml("rss.xml"))
        tasks.feeds_sweep()
        _due(feed)
        route = mock.get(RSS)
        if isinstance(answer, Exception):
            route.mock(side_effect=answer)
        else:
            route.mock(return_value=answer)
        tasks.feeds_sweep()
    feed.refresh_from_db()
    assert feed.state == state and words in feed.problem
    assert Story.objects.filter(feed=feed).count() == 3
    assert feed.next_fetch_at > timezone.now()  # tried again on its schedule, not every minute


@pytest.mark.django_db
def test_unchanged_feed_answers_304_and_keeps_its_state(research_on, org):
    feed = services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).mock(
            return_value=httpx.Response(
                200,
                content=recorded("rss.xml"),
                headers={"etag": '"v1"', "last-modified": "Tue, 01 Dec 2026 13:05:00 GMT"},
            )
        )
        tasks.feeds_sweep()
        _due(feed)
        route = mock.get(RSS).mock(return_value=httpx.Response(304))
        tasks.feeds_sweep()
    assert route.calls.last.request.headers["if-none-match"] == '"v1"'
    feed.refresh_from_db()
    assert feed.state == Feed.State.OK and Story.objects.filter(feed=feed).count() == 3


# --- addresses inside the network -----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url", [
    "http://127.0.0.1/feed", "http://localhost:8000/feed", "http://[::1]/feed", "http://169.254.169.254/latest/",
    "http://10.1.2.3/rss", "http://192.168.0.1/", "http://sneaky.example.com/rss", "http://rebind.example.com/rss",
    "http://metadata.google.internal/computeMetadata/v1/", "file:///etc/passwd", "http://[::ffff:127.0.0.1]/",
    "http://0.0.0.0/", "http://100.64.0.1/", "http://user:pw@news.example.com/feed.xml",
])
def test_addresses_inside_the_network_are_refused_when_added(research_on, org, url):
    with pytest.raises(ToolError) as raised:
        services.feed_add(org=org, url=url)
    assert raised.value.kind == "bad_input" and raised.value.message.startswith("url:")
    assert not Feed.objects.exists()


@pytest.mark.django_db
def test_a_name_that_later_points_inside_is_refused_when_read(research_on, org, monkeypatch):
    feed = services.feed_add(org=org, url="https://feeds.example.net/rss")
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["127.0.0.1"])
    with respx.mock() as mock:
        tasks.feeds_sweep()
    assert not mock.calls
    feed.refresh_from_db()
    assert feed.state == Feed.State.REFUSED and "127.0.0.1 is a loopback address" in feed.problem


@pytest.mark.django_db
def test_a_redirect_inside_the_network_is_not_followed(research_on, org):
    feed = services.feed_add(org=org, url=RSS)
    with respx.mock(assert_all_called=False) as mock:
        mock.get(RSS).respond(302, headers={"location": "http://169.254.169.254/latest/meta-data/"})
        metadata = mock.get("http://169.254.169.254/latest/meta-data/").respond(200, text="secret")
        tasks.feeds_sweep()
    assert not metadata.called
    feed.refresh_from_db()
    assert feed.state == Feed.State.REFUSED


@pytest.mark.django_db
def test_a_redirect_to_a_public_feed_is_followed(research_on, org):
    feed = services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).respond(301, headers={"location": ATOM})
        mock.get(ATOM).mock(return_value=_xml("atom.xml"))
        tasks.feeds_sweep()
    feed.refresh_from_db()
    assert feed.state == Feed.State.OK and feed.title == "Retail Wire"


def test_an_endless_answer_stops_at_the_size_limit():
    with respx.mock() as mock:
        mock.get(RSS).respond(200, content=b"<rss>" + b"x" * (feeds.MAX_FEED_BYTES + 10))
        read = feeds.read(RSS)
    assert read.state == "malformed" and "larger than a feed" in read.problem


def test_the_check_alone():
    netguard.check_url("https://news.example.com/feed.xml")
    with pytest.raises(netguard.AddressRefused):
        netguard.check_url("http://nowhere.example/")  # a name that doesn't resolve


# --- newsfeed.read --------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_read_gives_todays_stories_once_with_what_it_follows(research_on, org, use):
    bakery = ProjectFactory(organization=org, name="Bakery expansion")
    with freeze_time(NOW), respx.mock() as mock:
        services.feed_add(org=org, url=RSS, project=bakery)
        services.feed_add(org=org, url=ATOM)
        mock.get(RSS).mock(return_value=_xml("rss.xml"))
        mock.get(ATOM).mock(return_value=_xml("atom.xml"))
        tasks.feeds_sweep()
        result = use("newsfeed.read")
    headlines = [s["headline"] for s in result["stories"]]
    # Today's, newest first; the year-old item is not today's news; the flour story (in both feeds) shows once.
    assert headlines == ["Warehouse clubs report strong November", "Flour prices ease for a third month",
                         "City opens grants for small food businesses"]
    flour = result["stories"][1]
    assert flour["projectIds"] == [str(bakery.id)] and flour["kind"] == "web"
    assert flour["sources"] == [{"url": "https://news.example.com/2026/12/01/flour-prices-ease",
                                 "title": "Retail Wire"}]
    assert flour["happenedAt"] == "2026-12-01T12:40:00Z"
    assert result["projects"] == [{"id": str(bakery.id), "name": "Bakery expansion"}]
    assert {"label": "Bakery Business Daily", "projectIds": [str(bakery.id)]} in result["topics"]
    assert {"label": "Retail Wire", "projectIds": []} in result["topics"]
    assert result["today"] == {"counts": [{"kind": "news", "read": 5, "kept": 3}], "stories": 3}
    assert result["publishers"] == ["Bakery Business Daily", "Retail Wire"]
    assert result["checkedAt"] == "2026-12-01T15:00:00Z"
    assert set(result) == {"stories", "projects", "topics", "accounts", "market", "brief", "actions", "today",
                           "strip", "pricedAt", "moves", "publishers", "checkedAt"}


@pytest.mark.django_db
def test_another_workspaces_feeds_and_stories_are_invisible(research_on, org, other_org, use):
    services.research_settings_set(org=other_org, newsfeed=True)
    with freeze_time(NOW), respx.mock() as mock:
        services.feed_add(org=other_org, url=RSS)
        mock.get(RSS).mock(return_value=_xml("rss.xml"))
        tasks.feeds_sweep()
        result = use("newsfeed.read")
        theirs = ToolContext(org=other_org, actor=Actor.for_agent(AgentFactory(organization=other_org)))
        their_result = use("newsfeed.read", _ctx=theirs)
    assert result["stories"] == [] and result["topics"] == [] and result["checkedAt"] is None
    assert len(their_result["stories"]) == 2
    with pytest.raises(ToolError):
        selectors.feed_get(org=org, feed_id=Feed.objects.get().id)


@pytest.mark.django_db
def test_a_feed_is_followed_once_per_place(research_on, org):
    services.feed_add(org=org, url=RSS)
    with pytest.raises(ToolError, match="follows this feed already"):
        services.feed_add(org=org, url=RSS)
    project = ProjectFactory(organization=org)
    services.feed_add(org=org, url=RSS, project=project)  # the same feed for a project is another place


@pytest.mark.django_db
def test_off_the_newsfeed_is_listed_as_off(ctx, org, use):
    assert "- newsfeed: today's news (1; off here: the owner turns it on, on the Newsfeed page)" in browse_description(
        org)
    assert use("newsfeed.read")["error"] == "unsupported"
    services.research_settings_set(org=org, newsfeed=True)
    assert "- newsfeed: today's news (1)" in browse_description(org)
    assert use("newsfeed.read")["stories"] == []


@pytest.mark.django_db
def test_schedule_ticks_makes_the_newsfeed_sweep_every_minute():
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("schedule_ticks", stdout=open("/dev/null", "w"))
    call_command("schedule_ticks", stdout=open("/dev/null", "w"))  # again: still one schedule
    sweep = Schedule.objects.get(name="newsfeed sweep")
    assert (sweep.func, sweep.schedule_type, sweep.minutes) == ("research.tasks.feeds_sweep", Schedule.MINUTES, 1)


@pytest.mark.django_db
def test_the_schedule_fires_the_sweep_through_django_q(research_on, org, monkeypatch):
    """django-q's scheduler turns the due schedule into a task (run inline here), which reads the due feed."""
    from django.core.management import call_command
    from django_q.models import Schedule
    from django_q.scheduler import scheduler

    services.feed_add(org=org, url=RSS)
    call_command("schedule_ticks", stdout=open("/dev/null", "w"))
    Schedule.objects.exclude(name="newsfeed sweep").delete()
    Schedule.objects.filter(name="newsfeed sweep").update(next_run=timezone.now() - datetime.timedelta(seconds=1))
    ran = []
    monkeypatch.setattr("django_q.scheduler.async_task", lambda func, *a, **kw: ran.append(func) or "task-id")
    # The scheduler closes connections it finds in a transaction (a worker's would be stale); here that is the test
    # case's own wrapping transaction, which PostgreSQL would lose with every row of the test.
    monkeypatch.setattr("django_q.scheduler.close_old_django_connections", lambda: None)
    with respx.mock() as mock:
        mock.get(RSS).mock(return_value=_xml("rss.xml"))
        scheduler()
        for func in ran:
            assert func == "research.tasks.feeds_sweep"
            tasks.feeds_sweep()
    assert ran == ["research.tasks.feeds_sweep"]
    assert Story.objects.filter(organization=org).count() == 3


def test_the_how_to_says_plainly_what_this_roadstar_has_no_source_for(research_on, ctx):
    from tools.catalog import find_tools

    how = find_tools(ctx, ["newsfeed.read"])["howTo"]["newsfeed"]
    assert how.startswith("The workspace's newsfeed: stories it follows for the workspace's projects. ")
    assert "follows no social accounts" in how and "no market prices" in how
    assert "The brief is written by the model a few times a day" in how
