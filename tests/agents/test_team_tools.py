"""remember, make_agent and change_agent, as the chats use them."""

import json

import pytest

from agents import services
from agents.models import Agent, Message
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from core.actors import Actor
from core.models import Change
from core.services import change_undo

PROPOSAL_WRITER = {
    "name": "Proposal writer",
    "job": "Prices and writes proposals and quotes from the rate card",
    "owns": "Every proposal and quote Fernhill Studio sends: scope, price and timeline.",
    "good": "Priced from the current rate card, in Sam's voice, one page where it can be, sent to Sam the same day "
            "it's asked for.",
    "works": "When a client asks for a price or another agent hands one over.",
    "asksFirst": "Anything off the rate card, discounts, and before any proposal goes to a client.",
    "reportsTo": "Client desk",
    "department": "Clients",
}


@pytest.fixture
def roadstar(org):
    return Agent.objects.get(organization=org, is_roadstar=True)


def last_tool_result(agent):
    chat = services.chat_for(agent=agent)
    return Message.objects.filter(conversation=chat, role="tool").order_by("-seq").first().text


def run_in_chat(org, agent, model, tool, arguments, owner_text="please"):
    model.add(call(tool, arguments), say("Done."))
    services.owner_message_send(org=org, agent=agent, text=owner_text)
    drain(org_id=org.id)
    return last_tool_result(agent)


def test_make_agent_returns_the_spec_answer(org, roadstar, staff, model):
    result = run_in_chat(org, roadstar, model, "make_agent", {**PROPOSAL_WRITER, "name": "Quote writer"})
    assert json.loads(result) == {"made": "Quote writer", "next": "Hand it the work with hand_off."}


def test_a_made_agent_is_what_its_work_made(org, roadstar, staff, model):
    run_in_chat(org, roadstar, model, "make_agent", {**PROPOSAL_WRITER, "name": "Quote writer"})
    made = Agent.objects.get(organization=org, name="Quote writer")
    assert Change.objects.filter(tool="make_agent", target_id=str(made.id), created=True).exists()


def test_a_made_agent_sits_under_who_it_reports_to(org, roadstar, staff, model):
    run_in_chat(org, roadstar, model, "make_agent", {**PROPOSAL_WRITER, "name": "Quote writer"})
    made = Agent.objects.get(organization=org, name="Quote writer")
    assert (made.reports_to.name, made.department, made.model) == ("Client desk", "Clients", "gpt-6.1-terra")


def test_a_made_agent_reports_to_roadstar_by_default(org, roadstar, model):
    spec = {k: v for k, v in PROPOSAL_WRITER.items() if k != "reportsTo"}
    run_in_chat(org, roadstar, model, "make_agent", spec)
    assert Agent.objects.get(organization=org, name="Proposal writer").reports_to == roadstar


def test_a_made_agent_shows_on_home_with_undo(org, roadstar, model):
    run_in_chat(org, roadstar, model, "make_agent", {k: v for k, v in PROPOSAL_WRITER.items() if k != "reportsTo"})
    change = Change.objects.get(tool="make_agent")
    assert (change.listing, change.can_undo) == ("home_undo", True)


def test_undo_of_make_agent_removes_an_agent_that_did_nothing_yet(org, roadstar, model):
    run_in_chat(org, roadstar, model, "make_agent", {k: v for k, v in PROPOSAL_WRITER.items() if k != "reportsTo"})
    change_undo(org=org, change_id=Change.objects.get(tool="make_agent").id, actor=Actor.for_user(org.owner))
    assert not Agent.objects.filter(organization=org, name="Proposal writer").exists()


def test_a_job_description_over_600_characters_is_refused_and_nothing_saved(org, roadstar, model):
    spec = {**PROPOSAL_WRITER, "owns": "o" * 300, "good": "g" * 301}
    spec.pop("reportsTo")
    result = run_in_chat(org, roadstar, model, "make_agent", spec)
    assert "600 is the most" in result and not Agent.objects.filter(name="Proposal writer").exists()


def test_no_more_than_forty_agents_besides_roadstar(org, roadstar, model):
    from tests.factories import AgentFactory

    for i in range(40):
        AgentFactory(organization=org, name=f"Helper {i}")
    spec = {k: v for k, v in PROPOSAL_WRITER.items() if k != "reportsTo"}
    result = run_in_chat(org, roadstar, model, "make_agent", spec)
    assert "up to 40 agents" in result


def test_only_roadstars_chat_holds_make_agent(org, staff, model):
    spec = {k: v for k, v in PROPOSAL_WRITER.items() if k != "reportsTo"}
    result = run_in_chat(org, staff["Client desk"], model, "make_agent", {**spec, "name": "X"})
    assert "You don't hold a tool 'make_agent' here" in result


def test_remember_keeps_a_note_and_returns_the_notes(org, staff, model):
    result = run_in_chat(
        org, staff["Proposal writer"], model, "remember", {"note": "Sam wants proposals as Google Docs."}
    )
    assert json.loads(result) == {"notes": ["Sam wants proposals as Google Docs."]}


def test_forget_drops_a_note_given_word_for_word(org, staff, model):
    writer = staff["Proposal writer"]
    writer.notes = ["Quotes in USD.", "One page."]
    writer.save()
    result = run_in_chat(org, writer, model, "remember", {"forget": "One page."})
    assert json.loads(result) == {"notes": ["Quotes in USD."]}


def test_forget_with_words_that_are_not_a_note_drops_nothing(org, staff, model):
    writer = staff["Proposal writer"]
    writer.notes = ["Quotes in USD."]
    writer.save()
    result = run_in_chat(org, writer, model, "remember", {"forget": "quotes in usd"})
    assert '"not_found"' in result
    writer.refresh_from_db()
    assert writer.notes == ["Quotes in USD."]


def test_only_roadstar_keeps_the_about(org, staff, model):
    result = run_in_chat(org, staff["Client desk"], model, "remember", {"about": "A studio."})
    assert "only Roadstar keeps the About" in result


def test_roadstar_saving_the_about_alone_says_saved(org, roadstar, model):
    result = run_in_chat(org, roadstar, model, "remember", {"about": "Fernhill Studio designs brands."})
    org.refresh_from_db()
    assert (json.loads(result), org.about) == ({"about": "saved"}, "Fernhill Studio designs brands.")


def test_notes_reach_the_agents_threads(org, staff, model):
    desk = staff["Client desk"]
    desk.notes = ["Quotes in USD, rounded to the nearest $100."]
    desk.save()
    model.add(call("start_thread", {"title": "T", "task": "x"}), say("Started."), say("Done."))
    services.owner_message_send(org=org, agent=desk, text="x")
    drain(org_id=org.id)
    assert "Quotes in USD, rounded to the nearest $100." in model.requests[2]["messages"][0]["content"]


def test_every_agent_knows_the_others_and_sees_who_is_paused(org, staff, model):
    staff["Bookkeeper"].paused = True
    staff["Bookkeeper"].save()
    model.add(say("ok"))
    services.owner_message_send(org=org, agent=staff["Client desk"], text="x")
    drain(org_id=org.id)
    system = model.requests[0]["messages"][0]["content"]
    assert "- Proposal writer: Prices and writes proposals" in system
    assert "- Bookkeeper (paused): Sends invoices on time" in system
    assert "- Roadstar:" in system


def test_change_agent_goes_past_the_check_and_waits_for_the_owners_word(org, roadstar, staff, model):
    result = run_in_chat(org, roadstar, model, "change_agent", {"agent": "Client desk", "job": "Answers the phone"},
                         owner_text="How are things?")
    staff["Client desk"].refresh_from_db()
    assert "not_done_yet" in result and staff["Client desk"].job.startswith("Answers new and current clients")


def test_change_agent_changes_what_the_owner_asked_for(org, roadstar, staff, model):
    result = run_in_chat(org, roadstar, model, "change_agent", {"agent": "Client desk", "model": "gpt-6.1-sol"},
                         owner_text="Change Client desk's model to gpt-6.1-sol.")
    staff["Client desk"].refresh_from_db()
    assert (json.loads(result), staff["Client desk"].model) == ({"changed": "Client desk"}, "gpt-6.1-sol")


def test_change_agent_keeps_the_job_description_within_600_characters(org, roadstar, staff, model):
    org.check_enabled = False
    org.save()
    result = run_in_chat(org, roadstar, model, "change_agent", {"agent": "Client desk", "owns": "o" * 601})
    assert "600 is the most" in result
