"""Hand-offs: the packet and its limits, where answers go, depth and loops, andThen."""

import json

import pytest
from django.utils import timezone

from agents import services
from agents.models import Message, Work
from agents.runtime.model import call, calls, say
from agents.runtime.scheduler import claim, drain
from agents.runtime.turn import run_turn
from core.owner_zone import zone_named


def chat_of(agent):
    return services.chat_for(agent=agent)


def messages(conversation):
    return list(Message.objects.filter(conversation=conversation).values_list("role", "text"))


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


@pytest.fixture
def writer(staff):
    return staff["Proposal writer"]


def test_the_packet_reaches_the_other_agents_chat_in_the_spec_format(org, desk, writer, model):
    model.add(
        call("hand_off", {
            "agent": "Proposal writer",
            "task": "Price a rebrand for Juniper Dental from the rate card: new logo, and signage for two clinics.",
            "notes": "Second clinic opens in March. Dana Whitfield, practice manager, signs off.",
            "links": ["mail:7c41e2d0:19a2c4e07d5b3f18", "contact:8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22"],
        }),
        say("Handed to Proposal writer."),
        say("Quote: $8,400."),
        say("Got it."),
    )
    services.owner_message_send(org=org, agent=desk, text="Get Juniper a quote")
    drain(org_id=org.id)
    packet = Message.objects.filter(conversation=chat_of(writer), role="handoff").get()
    asked = Message.objects.get(conversation=services.chat_for(agent=desk), role="owner").created_at
    said_at = timezone.localtime(asked, zone_named(org.time_zone))
    clock = f"{said_at.hour % 12 or 12}:{said_at:%M} {'AM' if said_at.hour < 12 else 'PM'}"
    # spec/use-cases/proposal-from-template.md: the task, the owner's words with their time, then notes and links.
    assert packet.text == (
        "[From Client desk] Price a rebrand for Juniper Dental from the rate card: new logo, and signage for two "
        f"clinics. {org.owner_first_name} said in Client desk's chat at {clock}: \"Get Juniper a quote\" Notes: "
        "Second clinic opens in March. Dana Whitfield, practice manager, signs off. Links: "
        "mail:7c41e2d0:19a2c4e07d5b3f18 contact:8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22"
    )


def test_the_packet_carries_the_owners_words_with_when_and_where(org, desk, writer, model):
    model.add(call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed."), say("Quoted."),
              say("ok"))
    services.owner_message_send(org=org, agent=desk, text="Juniper wants a quote by Friday")
    drain(org_id=org.id)
    packet = Message.objects.filter(conversation=chat_of(writer), role="handoff").get()
    assert packet.data["owner_words"][0]["text"] == "Juniper wants a quote by Friday"
    assert "in Client desk's chat at" in packet.text


def test_hand_off_returns_that_the_answer_comes_back(org, desk, writer, model):
    model.add(call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed."), say("Quoted."),
              say("ok"))
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    tool_result = Message.objects.filter(conversation=chat_of(desk), role="tool").get().text
    assert json.loads(tool_result) == {"handed": "Proposal writer", "answer": "comes back to you"}


def test_the_answer_comes_back_to_the_asker_and_wakes_it(org, desk, writer, model):
    model.add(
        call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed to Proposal writer."),
        say("$8,400, ready in five weeks."),  # Proposal writer's chat answers directly
        say("Proposal writer quotes $8,400."),  # Client desk's chat, woken by the answer
    )
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    desk_chat = messages(chat_of(desk))
    assert ("answer", "[Answer from Proposal writer] $8,400, ready in five weeks.") in desk_chat
    assert desk_chat[-1] == ("agent", "Proposal writer quotes $8,400.")


def test_whoever_asked_me_sends_the_answer_straight_to_the_original_asker(org, desk, writer, staff, model):
    keeper = staff["Bookkeeper"]
    model.add(
        call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed."),
        call("hand_off", {"agent": "Bookkeeper", "task": "Quote it", "answer": "whoever asked me"}), say("Passed on."),
        say("Bookkeeper's quote: $8,400."),  # Bookkeeper answers
        say("Got it: $8,400."),  # Client desk, woken
    )
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    assert ("answer", "[Answer from Bookkeeper] Bookkeeper's quote: $8,400.") in messages(chat_of(desk))
    assert not Message.objects.filter(conversation=chat_of(writer), role="answer").exists()
    assert Work.objects.filter(agent=keeper).get().requester == chat_of(desk)


@pytest.mark.parametrize("field,value,message", [
    ("task", "x" * 601, "task: 601 characters; a packet's task is at most 600"),
    ("notes", "x" * 2001, "notes: 2001 characters; a packet's notes are at most 2000"),
    ("links", [f"web:https://a.test/{i}" for i in range(21)], "links: 21 links; a packet holds at most 20"),
    ("links", ["https://a.test"],
     "links[0]: 'https://a.test' must start with one of mail:, file:, contact:, doc:, web:"),
])
def test_past_a_packet_limit_the_sender_is_asked_to_shorten_and_nothing_is_sent(
    org, desk, writer, model, field, value, message
):
    packet = {"agent": "Proposal writer", "task": "Quote it", field: value}
    # (a reply that only says what it will do is told to do it: agents/runtime/replies.py)
    model.add(call("hand_off", packet), say("I'll shorten it."), say("It was too long to send, so nothing went."))
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    result = Message.objects.filter(conversation=chat_of(desk), role="tool").get().text
    assert message in result and "nothing was sent" in result
    assert not Message.objects.filter(conversation=chat_of(writer)).exists()


def test_a_packet_at_its_limits_goes_whole(org, desk, writer, model):
    packet = {"agent": "Proposal writer", "task": "t" * 600, "notes": "n" * 2000,
              "links": [f"web:https://a.test/{i}" for i in range(20)]}
    model.add(call("hand_off", packet), say("Handed."), say("ok"), say("ok"))
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    received = Message.objects.filter(conversation=chat_of(writer), role="handoff").get()
    assert received.data["task"] == "t" * 600 and received.data["notes"] == "n" * 2000


def test_work_is_handed_on_three_deep_and_no_further(org, staff, model):
    from tests.factories import AgentFactory

    fourth = AgentFactory(organization=org, name="Studio manager", job="Runs the studio")
    chain = ["Proposal writer", "Bookkeeper", "Studio manager"]
    model.add(call("hand_off", {"agent": chain[0], "task": "pass it on"}), say("Handed."))
    model.add(call("hand_off", {"agent": chain[1], "task": "pass it on"}), say("Handed."))
    model.add(call("hand_off", {"agent": chain[2], "task": "pass it on"}), say("Handed."))
    model.add(call("hand_off", {"agent": "Roadstar", "task": "pass it on"}), say("I'll do it myself: done."))
    model.add(say("ok"), say("ok"), say("ok"))
    services.owner_message_send(org=org, agent=staff["Client desk"], text="go")
    drain(org_id=org.id)
    refused = Message.objects.filter(conversation=chat_of(fourth), role="tool").get().text
    assert "handed on 3 deep already" in refused


def test_handing_work_to_an_agent_already_on_it_further_up_is_refused(org, desk, writer, model):
    model.add(call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed."))
    model.add(call("hand_off", {"agent": "Client desk", "task": "back to you"}), say("I'll answer: $8,400."))
    model.add(say("ok"))
    services.owner_message_send(org=org, agent=desk, text="quote")
    drain(org_id=org.id)
    refused = Message.objects.filter(conversation=chat_of(writer), role="tool").get().text
    assert "Client desk is already working on this further up" in refused


def test_hand_off_to_an_unknown_agent_names_the_agents(org, desk, model):
    model.add(call("hand_off", {"agent": "Designer", "task": "x"}), say("No such agent."))
    services.owner_message_send(org=org, agent=desk, text="x")
    drain(org_id=org.id)
    result = Message.objects.filter(conversation=chat_of(desk), role="tool").get().text
    assert '"not_found"' in result and "Proposal writer" in result


def test_handed_work_shows_under_the_doing_agent_until_it_answers(org, desk, writer, model):
    model.add(call("hand_off", {"agent": "Proposal writer", "task": "Quote it"}), say("Handed."))
    services.owner_message_send(org=org, agent=desk, text="quote")
    [desk_chat] = claim(org_id=org.id)
    run_turn(str(desk_chat.id))
    assert Work.objects.get(agent=writer).state == "open"


def test_and_then_answers_once_when_the_last_thread_is_in(org, desk, model):
    model.add(
        calls([
            ("start_thread", {"title": "Juniper", "task": "price Juniper", "andThen": "compare the two"}),
            ("start_thread", {"title": "Ortiz", "task": "price Ortiz", "andThen": "compare the two"}),
        ]),
        say("Started two threads."),
        say("Juniper: $8,400."),
        say("Ortiz: $3,200."),
        say("Juniper is the bigger job."),
    )
    services.owner_message_send(org=org, agent=desk, text="Price both and compare")
    drain(org_id=org.id)
    chat = messages(chat_of(desk))
    joined = [text for role, text in chat if role == "answer"]
    assert len(joined) == 1 and "Juniper: $8,400." in joined[0] and "Now: compare the two" in joined[0]
    assert chat[-1] == ("agent", "Juniper is the bigger job.")
    assert Work.objects.filter(conversation=chat_of(desk)).get().answer == "Juniper is the bigger job."
