"""The owner's Newsfeed page: turning the research groups on and off, following and removing feeds, refusals in
words, and nothing of another workspace's feeds."""

import html
from pathlib import Path

import httpx
import pytest
import respx
from django.conf import settings
from django.urls import reverse

from research import services, tasks
from research.models import Feed, ResearchSettings
from tests.factories import OrganizationFactory, ProjectFactory

RSS = "https://news.example.com/feed.xml"
EVIL_RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Evil</title>
<item><title>Click me</title><link>javascript:alert(document.cookie)</link><guid>e1</guid></item>
<item><title>&lt;script&gt;alert(1)&lt;/script&gt;</title><link>https://news.example.com/x</link><guid>e2</guid></item>
</channel></rss>"""


@pytest.fixture(autouse=True)
def names_without_dns(monkeypatch):
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["93.184.216.34"])


def test_the_owner_turns_the_research_tools_on_and_off(owner, org):
    page = owner.get(reverse("pages:newsfeed")).content.decode()
    assert "Research tools" in page and "checked" not in page
    owner.post(reverse("pages:research_groups"), {"newsfeed": "1", "filings": "1"})
    settings = ResearchSettings.objects.get(organization=org)
    assert settings.newsfeed_on and settings.filings_on
    response = owner.post(reverse("pages:research_groups"), {"newsfeed": "1"}, follow=True)
    settings.refresh_from_db()
    assert settings.newsfeed_on and not settings.filings_on
    assert "Your agents now have: Newsfeed." in response.content.decode()


def test_the_owner_follows_a_feed_for_a_project_and_removes_it(owner, org):
    project = ProjectFactory(organization=org, name="Bakery expansion")
    response = owner.post(reverse("pages:feed_add"), {"url": RSS, "project": str(project.id)}, follow=True)
    feed = Feed.objects.get(organization=org)
    assert feed.project == project
    page = response.content.decode()
    assert "Following https://news.example.com/feed.xml for Bakery expansion" in page
    assert "Not read yet" in page
    owner.post(reverse("pages:feed_remove", args=[feed.id]))
    assert not Feed.objects.exists()


@pytest.mark.parametrize("url, words", [
    ("http://127.0.0.1:5432/", "Roadstar doesn't read this address"),
    ("not a link", "Give the feed's web address"),
])
def test_a_refused_address_is_told_in_words(owner, org, url, words, monkeypatch):
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["127.0.0.1"])
    response = owner.post(reverse("pages:feed_add"), {"url": url}, follow=True)
    assert words in html.unescape(response.content.decode())
    assert not Feed.objects.exists()


def test_a_malformed_feed_shows_why(owner, org):
    services.research_settings_set(org=org, newsfeed=True)
    services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).respond(200, text="<html><body>Our news</body></html>", headers={"content-type": "text/html"})
        tasks.feeds_sweep()
    page = html.unescape(owner.get(reverse("pages:newsfeed")).content.decode())
    assert "Roadstar can't read it as a feed." in page and "It is a web page, not an RSS or Atom feed" in page


def test_a_storys_script_link_and_markup_never_reach_the_page(owner, org):
    services.research_settings_set(org=org, newsfeed=True)
    services.feed_add(org=org, url=RSS)
    with respx.mock() as mock:
        mock.get(RSS).mock(return_value=httpx.Response(200, content=EVIL_RSS))
        tasks.feeds_sweep()
    page = owner.get(reverse("pages:newsfeed")).content.decode()
    assert "Click me" in page and "javascript:" not in page and "<script>alert(1)" not in page


def test_another_workspaces_feed_is_404_and_stays(owner, org):
    other = OrganizationFactory(name="Other Studio")
    theirs = services.feed_add(org=other, url=RSS)
    response = owner.post(reverse("pages:feed_remove", args=[theirs.id]))
    assert response.status_code == 404 and Feed.objects.filter(id=theirs.id).exists()
    assert RSS not in owner.get(reverse("pages:newsfeed")).content.decode()
    other_project = ProjectFactory(organization=other)
    owner.post(reverse("pages:feed_add"), {"url": RSS, "project": str(other_project.id)})
    assert not Feed.objects.filter(organization=org).exists()


def test_signed_out_the_page_asks_to_sign_in(client):
    response = client.get(reverse("pages:newsfeed"))
    assert response.status_code == 302 and "login" in response["location"]


def test_the_page_lays_out_its_parts_with_the_projects_css(owner, org):
    """Each part is a spaced section (no heading against the text above it); the Follow form is the feed form,
    whose address field takes the room there is and whose menu is styled (not the budget form's 6.5 rem box)."""
    body = owner.get(reverse("pages:newsfeed")).content.decode()
    for part in ('id="research-groups"', 'id="feeds"'):
        assert f'<section class="section" {part}' in body
    assert 'class="feed-form"' in body and "budget-form" not in body and "style=" not in body
    css = (Path(settings.BASE_DIR) / "static/roadstar/roadstar.css").read_text()
    rules = css.split(".feed-form input, .feed-form select {", 1)[1].split("}", 1)[0]
    assert "border" in rules and "max-width: 100%" in rules
    assert ".feed-form { display: flex; flex-wrap: wrap;" in css


def test_todays_brief_shows_each_project_in_words_or_why_there_is_none(owner, org):
    from django.utils import timezone

    from core.owner_zone import owner_today
    from research.models import NewsfeedBrief

    services.research_settings_set(org=org, filings=False, newsfeed=True, tables=False, pages=False)
    page = owner.get(reverse("pages:newsfeed")).content.decode()
    assert "Today's brief" in page and "No brief yet today" in page

    brief = NewsfeedBrief.objects.create(organization=org, day=owner_today(org), problem="No AI model is connected.")
    page = owner.get(reverse("pages:newsfeed")).content.decode()
    assert "No AI model is connected." in page

    kitchen = ProjectFactory(organization=org, name="Kitchen remodel")
    brief.projects = [{"projectId": str(kitchen.id), "effect": "direct", "text": "Lumber prices rose 8% this week."}]
    brief.written_at, brief.problem = timezone.now(), ""
    brief.save()
    page = owner.get(reverse("pages:newsfeed")).content.decode()
    assert "Kitchen remodel" in page and "Bears on it directly" in page and "Lumber prices rose 8% this week." in page
    assert str(kitchen.id) not in page.split("Today's brief")[1].split("</section>")[0]  # names, not ids
