"""Chats and threads at work on the scripted model: routing, answers, steps, memory in the prompt."""

import pytest

from agents import services
from agents.models import Conversation, Message, Work
from agents.runtime.model import call, say
from agents.runtime.scheduler import drain
from contacts.models import Contact


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


def chat_texts(agent):
    chat = services.chat_for(agent=agent)
    return [(m.role, m.text) for m in Message.objects.filter(conversation=chat)]


def test_a_chat_answers_from_what_it_knows(org, desk, model):
    model.add(say("Dana prefers a call."))
    services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
    drain(org_id=org.id)
    assert chat_texts(desk)[-1] == ("agent", "Dana prefers a call.")


def test_the_owners_work_answered_in_the_chat_is_answered_once(org, desk, model):
    model.add(say("Done."))
    services.owner_message_send(org=org, agent=desk, text="Hello")
    drain(org_id=org.id)
    assert list(Work.objects.values_list("state", "answer")) == [("answered", "Done.")]


def test_a_chat_starts_a_thread_whose_answer_reaches_the_owner_in_the_chat(org, desk, model):
    org.check_enabled = False
    org.save()
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Add Dana Whitfield to Contacts"}),
        say("I've started a thread on Juniper Dental."),
        call("use_tool", {"name": "contacts.create", "input": {"name": "Dana Whitfield"}}),
        say("Added Dana Whitfield."),
    )
    services.owner_message_send(org=org, agent=desk, text="Add Dana Whitfield to contacts")
    drain(org_id=org.id)
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").exists()
    assert chat_texts(desk)[-1] == ("answer", "[Answer from Client desk · Juniper Dental] Added Dana Whitfield.")


def test_a_thread_is_sent_the_packet_with_the_owners_words(org, desk, model):
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Quote the rebrand", "notes": "Two clinics"}),
        say("Started."),
        say("Quoted."),
    )
    services.owner_message_send(org=org, agent=desk, text="Quote Juniper's rebrand")
    drain(org_id=org.id)
    thread_prompt = model.requests[2]["messages"]
    packet = thread_prompt[-1]["content"]
    assert "[From Client desk's chat] Quote the rebrand Notes: Two clinics" in packet
    assert 'Quote Juniper\'s rebrand' in packet


def test_a_chat_holds_only_chat_tools(org, desk, model):
    model.add(say("Hi"))
    services.owner_message_send(org=org, agent=desk, text="Hi")
    drain(org_id=org.id)
    names = {t["name"] for t in model.requests[0]["tools"]}
    assert names == {"hand_off", "remember", "start_thread", "message_thread", "read_thread", "close_thread",
                     "zoom_memory", "message_date", "skills", "triggers"}


def test_roadstars_chat_also_makes_and_changes_agents(org, model):
    from agents.models import Agent

    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    model.add(say("Hi"))
    services.owner_message_send(org=org, agent=roadstar, text="Hi")
    drain(org_id=org.id)
    names = {t["name"] for t in model.requests[0]["tools"]}
    assert {"make_agent", "change_agent"} <= names


def test_a_thread_holds_browse_find_use_and_no_thread_tools(org, desk, model):
    model.add(call("start_thread", {"title": "T", "task": "x"}), say("ok"), say("done"))
    services.owner_message_send(org=org, agent=desk, text="Do x")
    drain(org_id=org.id)
    names = {t["name"] for t in model.requests[2]["tools"]}
    assert names == {"browse_tools", "find_tools", "use_tool", "hand_off", "remember", "zoom_memory", "message_date",
                     "skills"}


def test_a_chat_turn_takes_at_most_four_steps(org, desk, model):
    for _ in range(3):
        model.add(call("remember", {"note": "x"}))
    model.add(say("Stopped at the limit."))
    services.owner_message_send(org=org, agent=desk, text="Loop")
    drain(org_id=org.id)
    assert (len(model.requests), model.requests[3]["tool_choice"]) == (4, "none")


def test_a_thread_answers_with_what_it_has_after_forty_steps(org, desk, model):
    model.add(call("start_thread", {"title": "Long", "task": "work"}), say("Started."))
    model.add(*[call("message_date", {"id": 0}) for _ in range(39)])
    model.add(say("Here is what I have."))
    services.owner_message_send(org=org, agent=desk, text="Long work")
    drain(org_id=org.id)
    thread_requests = model.requests[2:]
    assert len(thread_requests) == 40 and thread_requests[-1]["tool_choice"] == "none"


def test_a_message_to_an_idle_thread_starts_it_with_all_it_did_before(org, desk, model):
    model.add(call("start_thread", {"title": "Juniper", "task": "first"}), say("Started."), say("First done."))
    services.owner_message_send(org=org, agent=desk, text="first")
    drain(org_id=org.id)
    model.add(call("message_thread", {"thread": "Juniper", "task": "second"}), say("Sent."), say("Second done."))
    services.owner_message_send(org=org, agent=desk, text="second")
    drain(org_id=org.id)
    contents = [m.get("content") or "" for m in model.requests[-1]["messages"]]
    assert any("first" in c for c in contents) and any("second" in c for c in contents)


def test_each_model_call_records_tokens_and_cost(org, desk, model):
    from agents.models import Usage

    model.add(say("ok"))
    services.owner_message_send(org=org, agent=desk, text="hi")
    drain(org_id=org.id)
    usage = Usage.objects.get()
    assert usage.input_tokens > 0 and usage.cost > 0 and usage.model == desk.model


def test_without_a_model_the_chat_says_how_to_connect_one_and_home_has_a_card(org, desk, settings):
    from core.models import Card

    settings.MODEL_CONFIGURED = False
    services.owner_message_send(org=org, agent=desk, text="hi")
    drain(org_id=org.id)
    assert Card.objects.get(organization=org).kind == "model"
    assert "OPENAI_API_KEY" in chat_texts(desk)[-1][1]


def test_a_conversation_ends_its_turn_idle(org, desk, model):
    model.add(say("ok"))
    services.owner_message_send(org=org, agent=desk, text="hi")
    drain(org_id=org.id)
    assert set(Conversation.objects.values_list("state", flat=True)) == {"idle"}


def test_a_tool_whose_result_may_be_null_answers_null_through_use_tool_not_done(org, desk, model):
    # spec/use-cases/new-client-enquiry.md: "contacts.find returns null: Juniper Dental is new."
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Is Dana in Contacts?"}),
        say("Started."),
        call("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}),
        say("Dana is new."),
    )
    services.owner_message_send(org=org, agent=desk, text="Is Dana in Contacts?")
    drain(org_id=org.id)
    thread = Conversation.objects.get(agent=desk, kind=Conversation.Kind.THREAD)
    [result] = Message.objects.filter(conversation=thread, role=Message.Role.TOOL)
    assert result.text == "null"
    assert model.requests[3]["messages"][-1] == {"role": "tool", "tool_call_id": model.requests[3]["messages"][-2][
        "tool_calls"][0]["id"], "content": "null"}


def test_use_tool_passes_a_tools_null_through(org, desk):
    from agents.runtime.agent_tools import run_agent_tool

    class Host:
        place = "thread"

        def tool_context(self):
            from core.actors import Actor
            from core.context import ToolContext

            return ToolContext(org=org, actor=Actor.for_agent(desk))

    assert run_agent_tool(Host(), "use_tool", {"name": "contacts.find", "input": {"email": "x@y.test"}}) is None


def test_an_agents_skills_are_named_in_its_instructions_in_chat_and_thread(org, desk, model):
    # spec/how-it-works/routines-and-skills.md: "Agents read their skills' names in their instructions".
    from routines.services import skill_add

    skill_add(org=org, agent=desk, name="Onboard a client", about="A new client signs", steps="1. Welcome them.")
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Onboard Juniper Dental"}),
        say("Started."),
        say("Onboarded."),
    )
    services.owner_message_send(org=org, agent=desk, text="Onboard Juniper Dental")
    drain(org_id=org.id)
    for request in (model.requests[0], model.requests[2]):
        system = request["messages"][0]["content"]
        assert "Your skills (read one in full with skills before doing that work): Onboard a client (id " \
               "onboard-a-client)" in system
