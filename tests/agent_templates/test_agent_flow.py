"""An agent at work on the scripted model: it finds a template, reads it, and proposes it; nothing is added until
the owner's Add on Home. The agent's own words ("just add it") change nothing."""

import pytest
from django.urls import reverse

from agents import services
from agents.models import Agent, Message, ToolCall
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from core.models import Card, Change
from tests.agents.conftest import model  # noqa: F401  (the scripted model fixture)

SAM_ASKS = "Meetings are eating my week: every client call takes a dozen emails. Can someone take scheduling on?"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_roadstars_thread_finds_reads_and_proposes_then_the_owner_adds(org, model, client):  # noqa: F811
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    model.add(
        call("start_thread", {"title": "Scheduling", "task": "Find a setup that takes scheduling off Sam."}),
        say("I'm looking for a ready-made setup for your meetings."),
        call("find_tools", {"names": ["templates.search", "templates.read", "templates.propose_add"]}),
        call("use_tool", {"name": "templates.search", "input": {"query": "book meetings calendar"}}),
        call("use_tool", {"name": "templates.read", "input": {"id": "roadstar/scheduler"}}),
        call("use_tool", {"name": "templates.propose_add", "input": {
            "id": "roadstar/scheduler", "why": "Every client call takes you a dozen emails; this books them.",
            "answers": {"meeting_hours": {"value": "Weekdays 10-4", "found": "Sam's message today"}},
        }}),
        say("The Scheduler template waits on Home for you to add."),
        say("I found a Scheduler template; it waits on Home for you."),
    )
    services.owner_message_send(org=org, agent=roadstar, text=SAM_ASKS)
    drain(org_id=org.id)

    results = {c.name: c.result for c in ToolCall.objects.filter(name="use_tool").order_by("id")}
    searched = ToolCall.objects.filter(name="use_tool").order_by("id")[0].result
    assert searched[0]["id"] == "roadstar/scheduler"
    assert "asked" in results["use_tool"]
    # Asked, not added: the card waits and there is no Scheduler.
    assert not Agent.objects.filter(organization=org, name="Scheduler").exists()
    card = Card.objects.get(organization=org, kind=Card.Kind.TEMPLATE, resolved_at__isnull=True)
    assert card.data["agent_name"] == "Roadstar"
    assert Change.objects.get(organization=org, tool="templates.propose_add").actor_name == "Roadstar"

    client.force_login(org.owner)
    page = client.get(reverse("home")).content.decode()
    assert "Add the template “Scheduler”?" in page and 'value="Weekdays 10-4"' in page
    client.post(reverse("card_template_add", args=[card.id]),
                {"place": "Roadstar", "answer-meeting_hours": "Weekdays 10-4", "answer-buffer": "10 minutes"})
    scheduler = Agent.objects.get(organization=org, name="Scheduler")
    assert scheduler.reports_to == roadstar
    assert "Weekdays 10-4" in scheduler.skills.get().steps and "10 minutes" in scheduler.skills.get().steps
    note = Message.objects.filter(conversation=services.chat_for(agent=roadstar), role=Message.Role.SYSTEM).last()
    assert "added the template “Scheduler” you proposed" in note.text
