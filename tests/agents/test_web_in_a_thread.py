"""A thread reads the open web in a real turn: the page is fetched with no transaction open (the turn's record of
the call commits after), and the result the model reads is the page's text and its link.
Real transactions (transaction=True), so `connection.in_atomic_block` says what the code under test opened."""

import json

import httpx
import pytest
import respx
from django.db import connection

from agents import services
from agents.models import Message, ToolCall
from agents.runtime import scheduler
from agents.runtime.model import ScriptedModel, call, say, set_model
from agents.runtime.turn import drain
from core import web_addresses as addresses
from integrations.web import fetch
from tests.factories import AgentFactory
from tests.integrations.web_fakes import HOURS_PAGE, FakeSite, recorded

pytestmark = pytest.mark.django_db(transaction=True)
SEARX = "http://searx.internal.test:8888"


@pytest.fixture(autouse=True)
def turns_run_here(monkeypatch):
    monkeypatch.setattr(scheduler, "dispatch", lambda **kwargs: [])


@pytest.fixture
def scripted():
    model = ScriptedModel()
    set_model(model)
    yield model
    set_model(None)


@pytest.fixture
def desk(org, settings):
    settings.SEARXNG_URL = SEARX
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    return AgentFactory(organization=org, name="Client desk")


@pytest.fixture
def watched_site(monkeypatch):
    """The fake council site, and whether a transaction was open at each fetch."""
    site = FakeSite()
    site.page("/central", HOURS_PAGE)
    open_at_fetch = []
    real_fetch = fetch.fetch_page

    def watched(target):
        open_at_fetch.append(connection.in_atomic_block)
        return real_fetch(target)

    monkeypatch.setattr("integrations.web.services.fetch_page", watched)
    with addresses.allowing_for_tests("127.0.0.1"):
        yield site, open_at_fetch
    site.close()


def _tool_results() -> list[dict]:
    return [json.loads(m.text) for m in Message.objects.filter(role=Message.Role.TOOL, data__name="use_tool")
            .order_by("created_at")]


def test_a_thread_searches_then_reads_a_page_with_no_transaction_open(org, desk, scripted, watched_site):
    site, open_at_fetch = watched_site
    url = site.url("/central")
    scripted.add(
        call("start_thread", {"title": "Library hours", "task": "When is the library open on Saturday?"}),
        say("On it."),
        call("use_tool", {"name": "web.search", "input": {"objective": "Central library Saturday opening hours",
                                                          "queries": ["harbor library opening hours"]}}),
        call("use_tool", {"name": "web.read", "input": {"urls": [url], "objective": "Saturday opening hours"}}),
        say(f"Saturdays 10am to 4pm ({url})."),
    )
    with respx.mock(assert_all_called=True) as router:
        router.get(f"{SEARX}/search").mock(return_value=httpx.Response(200, json=recorded(
            "searxng_library_hours.json")))
        router.route(host="127.0.0.1").pass_through()  # the page itself comes from the fake site
        services.owner_message_send(org=org, agent=desk, text="When is the central library open on Saturday?")
        drain(org_id=org.id)
    searched, read = _tool_results()
    assert "https://www.harborcouncil.test/libraries/central" in [r["url"] for r in searched["results"]]
    assert read["failed"] == [] and read["pages"][0]["url"] == url
    assert "On Saturdays it opens at 10am and closes at 4pm" in read["pages"][0]["text"]
    assert open_at_fetch == [False]
    assert all(c.done_at is not None for c in ToolCall.objects.filter(name="use_tool"))
