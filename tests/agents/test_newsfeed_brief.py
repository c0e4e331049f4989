"""The newsfeed's brief: the model reads the owner's day of stories and says how they bear on each project the feed
follows, paid from Roadstar's budget (a Usage of purpose "brief"), kept for the day and written again only over
new stories, at most every few hours; without a model or budget it isn't written, and the newsfeed says why."""

import datetime
import json
from decimal import Decimal

import pytest
from django.utils import timezone
from freezegun import freeze_time

from agents import newsfeed_brief
from agents.models import Agent, Usage
from agents.runtime.model import ModelResponse, ModelUsage, set_model
from research import services
from research.models import Feed, NewsfeedBrief, Story
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 15, 0, tzinfo=datetime.UTC)  # 10:00 in New York, the owner's zone


@pytest.fixture
def day(org):
    """A workspace with the newsfeed on, two projects' feeds and a workspace-wide one, and three stories today."""
    services.research_settings_set(org=org, newsfeed=True)
    bakery = ProjectFactory(organization=org, name="Bakery expansion")
    cafe = ProjectFactory(organization=org, name="Cafe fit-out")
    feeds = {
        "bakery": Feed.objects.create(organization=org, project=bakery, url="https://news.example.com/bakery.xml",
                                      title="Bakery Daily", next_fetch_at=NOW),
        "cafe": Feed.objects.create(organization=org, project=cafe, url="https://news.example.com/cafe.xml",
                                    title="Cafe Trade", next_fetch_at=NOW),
        "all": Feed.objects.create(organization=org, url="https://wire.example.org/feed.xml", title="Retail Wire",
                                   next_fetch_at=NOW),
    }
    for n, (feed, headline) in enumerate([("bakery", "Flour prices ease for a third month"),
                                          ("all", "City opens grants for small food businesses")]):
        _story(org, feeds[feed], headline, NOW - datetime.timedelta(hours=n + 1))
    return {"bakery": bakery, "cafe": cafe, "feeds": feeds}


def _story(org, feed, headline, at):
    return Story.objects.create(organization=org, feed=feed, key=headline[:64], link=f"https://x.test/{feed.id}/"
                                f"{len(headline)}", headline=headline, summary=f"{headline}, the story says.",
                                published_at=at)


def answer(*items) -> ModelResponse:
    return ModelResponse(text=json.dumps({"projects": [dict(zip(("project", "effect", "text"), item, strict=True))
                                                       for item in items]}),
                         usage=ModelUsage(input_tokens=900, output_tokens=120))


BAKERY = ("p1", "direct", "Flour is cheaper again [1], which helps the new ovens' first months.")


def test_the_model_writes_the_brief_over_the_days_stories_paid_by_roadstar(org, day, model, use):
    # It names the bakery, leaves the cafe out, and names a project it wasn't given.
    model.add(answer(BAKERY, ("p9", "direct", "Not a project of theirs.")))
    with freeze_time(NOW):
        assert newsfeed_brief.write(org) == "written"
        brief = use("newsfeed.read")["brief"]
    sent = model.requests[0]["messages"][1]["content"]
    assert "p1: Bakery expansion" in sent and "p2: Cafe fit-out" in sent
    assert "[1] Flour prices ease for a third month (from the feed of p1)" in sent
    assert "[2] City opens grants for small food businesses (a feed of the whole workspace)" in sent
    assert model.requests[0]["json_schema"]["name"] == "newsfeed_brief"
    assert brief == {"writtenAt": "2026-12-01T15:00:00Z", "projects": [
        {"projectId": str(day["bakery"].id), "effect": "direct", "text": BAKERY[2]},
        {"projectId": str(day["cafe"].id), "effect": "quiet", "text": "No story today bears on it."},
    ]}
    usage = Usage.objects.get(organization=org)
    assert (usage.purpose, usage.agent.is_roadstar, usage.input_tokens) == ("brief", True, 900)


def test_it_is_kept_for_the_day_and_written_again_only_over_new_stories_hours_later(org, day, model, use):
    model.add(answer(BAKERY))
    with freeze_time(NOW):
        newsfeed_brief.write(org)
    # Nothing new: not asked again (the scripted model has no answer left: a call would fail the test).
    with freeze_time(NOW + datetime.timedelta(hours=4)):
        assert newsfeed_brief.write(org) == "not due"
    # A new story an hour later: the brief waits a few hours before it is written again over it.
    _story(org, day["feeds"]["cafe"], "Espresso machine makers raise prices", NOW + datetime.timedelta(hours=1))
    with freeze_time(NOW + datetime.timedelta(hours=2)):
        assert newsfeed_brief.write(org) == "not due"
    model.add(answer(BAKERY, ("p2", "indirect", "Machines cost more [1].")))
    with freeze_time(NOW + datetime.timedelta(hours=3)):
        assert newsfeed_brief.write(org) == "written"
        assert use("newsfeed.read")["brief"]["projects"][1]["effect"] == "indirect"
    assert NewsfeedBrief.objects.get(organization=org).rewrites == 1
    assert Usage.objects.filter(organization=org, purpose="brief").count() == 2
    # The next day starts with no brief.
    with freeze_time(NOW + datetime.timedelta(days=1)):
        assert use("newsfeed.read")["brief"] is None


def test_without_a_model_there_is_no_brief_and_the_newsfeed_says_why(org, day, ctx, use):
    from tools.catalog import find_tools

    set_model(None)
    with freeze_time(NOW):
        assert newsfeed_brief.write(org) == "failed"
        assert use("newsfeed.read")["brief"] is None
        how = find_tools(ctx, ["newsfeed.read"])
    assert newsfeed_brief.NO_MODEL in how["howTo"]["newsfeed"]
    assert not Usage.objects.filter(organization=org).exists()


def test_with_roadstars_budget_spent_the_model_isnt_asked(org, day, model):
    Agent.objects.filter(organization=org, is_roadstar=True).update(monthly_budget=Decimal("1"), paused=True)
    with freeze_time(NOW):
        assert newsfeed_brief.write(org) == "failed"
    assert model.requests == []
    assert NewsfeedBrief.objects.get(organization=org).problem == newsfeed_brief.NO_BUDGET


def test_an_answer_not_in_the_shape_keeps_no_brief_and_is_tried_again(org, day, model):
    model.add(ModelResponse(text="Here is your brief!"), answer(BAKERY))
    with freeze_time(NOW):
        assert newsfeed_brief.write(org) == "failed"
        assert NewsfeedBrief.objects.get(organization=org).problem == newsfeed_brief.BAD_ANSWER
    with freeze_time(NOW + datetime.timedelta(minutes=10)):
        assert newsfeed_brief.write(org) == "written"
    assert NewsfeedBrief.objects.get(organization=org).problem == ""


def test_a_day_without_stories_or_projects_asks_nothing(org, model):
    services.research_settings_set(org=org, newsfeed=True)
    with freeze_time(NOW):
        assert newsfeed_brief.write(org) == "nothing"
    assert not NewsfeedBrief.objects.exists()


def test_the_sweep_writes_each_workspace_with_the_newsfeed_on_and_claims_it_once(org, other_org, day, model):
    model.add(answer(BAKERY))
    with freeze_time(NOW):
        assert newsfeed_brief.sweep() == 1
        assert newsfeed_brief.sweep() == 0
        # A brief a worker holds isn't taken by another.
        held = NewsfeedBrief.objects.get(organization=org)
        NewsfeedBrief.objects.filter(id=held.id).update(written_at=None, claimed_until=timezone.now()
                                                        + datetime.timedelta(minutes=1))
        assert services.brief_claim(org=org, story_ids=["new"]) is None
    assert not NewsfeedBrief.objects.filter(organization=other_org).exists()


def test_schedule_ticks_makes_the_brief_sweep():
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("schedule_ticks", stdout=open("/dev/null", "w"))
    sweep = Schedule.objects.get(name="newsfeed briefs")
    assert (sweep.func, sweep.minutes) == ("agents.newsfeed_brief.sweep", 10)
