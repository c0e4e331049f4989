"""Chats and threads at work on the scripted model: routing, answers, steps, memory in the prompt."""

import pytest

from agents import services
from agents.models import Agent, Conversation, Message, Run, Work
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from records.models import Contact


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
    assert packet.startswith("[#") and "] [From Client desk's chat] Quote the rebrand " in packet
    assert packet.endswith("Notes: Two clinics")
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


def test_an_agent_paused_by_the_owner_mid_turn_stops_before_its_next_step(org, desk, model):
    def paused_meanwhile(request):
        Agent.objects.filter(id=desk.id).update(paused=True)  # the owner, from the Agents page, during the step
        return call("remember", {"note": "x"})

    model.add(paused_meanwhile)
    services.owner_message_send(org=org, agent=desk, text="Remember x")
    drain(org_id=org.id)
    assert (len(model.requests), Run.objects.get(conversation__agent=desk).outcome) == (1, Run.Outcome.PAUSED)


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
    assert "Connect one on Settings (AI model)" in chat_texts(desk)[-1][1]  # the owner's page, not a variable


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


# --- limits: steps on one piece of work, open threads, a closed thread reopened by a message ----------------------


def _unavailable(request):
    from agents.runtime.model import ModelUnavailable

    raise ModelUnavailable("down")


def _is_summary(request) -> bool:
    return request["messages"][0]["content"].startswith("You sum up")


class Steps:
    """The scripted model's steps, with memory's summaries (asked when a long thread's turn starts) answered on the
    side, so a test scripts only the steps. `requests` are the step requests."""

    def __init__(self, model):
        self.model, self.steps, self.requests = model, [], []
        model.add(self)

    def add(self, *steps):
        self.steps.extend(steps)

    def __call__(self, request):
        self.model.script.insert(0, self)
        if _is_summary(request):
            return say("Earlier steps on the work.")
        self.requests.append(request)
        step = self.steps.pop(0)
        return step(request) if callable(step) else step


def test_forty_steps_are_counted_on_the_piece_of_work_across_its_turns(org, desk, model):
    # spec/reference/limits.md: "Steps on one piece of work in a thread | 40". A turn that stops half-way (the model
    # went down) and is tried again goes on with what is left of the 40, not with 40 more.
    steps = Steps(model)
    steps.add(call("start_thread", {"title": "Long", "task": "work"}), say("Started."))
    steps.add(*[call("message_date", {"id": 0}) for _ in range(25)], _unavailable)
    services.owner_message_send(org=org, agent=desk, text="Long work")
    drain(org_id=org.id)
    thread = Conversation.objects.get(agent=desk, kind=Conversation.Kind.THREAD)
    assert Work.objects.get(conversation=thread).steps == 25
    before = len(steps.requests)
    steps.add(*[call("message_date", {"id": 0}) for _ in range(14)], say("Here is what I have."))
    services.conversation_try_again(org=org, conversation_id=thread.id)
    drain(org_id=org.id)
    second_turn = steps.requests[before:]
    assert len(second_turn) == 15 and second_turn[-1]["tool_choice"] == "none"
    assert all(r["tool_choice"] is None for r in second_turn[:-1])
    work = Work.objects.get(conversation=thread)
    assert (work.state, work.steps) == (Work.State.ANSWERED, 40)


def test_the_next_piece_of_work_in_the_same_thread_has_forty_steps_of_its_own(org, desk, model):
    steps = Steps(model)
    steps.add(call("start_thread", {"title": "Long", "task": "first"}), say("Started."))
    steps.add(*[call("message_date", {"id": 0}) for _ in range(39)], say("First, as far as I got."))
    services.owner_message_send(org=org, agent=desk, text="first")
    drain(org_id=org.id)
    before = len(steps.requests)
    steps.add(call("message_thread", {"thread": "Long", "task": "second"}), say("Sent."),
              call("message_date", {"id": 0}), say("Second done."))
    services.owner_message_send(org=org, agent=desk, text="second")
    drain(org_id=org.id)
    thread_requests = [r for r in steps.requests[before:] if "This thread: Long" in r["messages"][0]["content"]]
    assert [r["tool_choice"] for r in thread_requests] == [None, None]
    assert sorted(Work.objects.filter(conversation__title="Long").values_list("steps", flat=True)) == [2, 40]


def test_a_thread_title_open_already_is_refused_in_any_letter_case_and_a_closed_or_routines_one_is_not(org, desk):
    from core.errors import ToolError

    services.thread_start(agent=desk, title="Juniper Dental")
    with pytest.raises(ToolError, match="a thread called JUNIPER dental is open already; send it work with "
                                        "message_thread"):
        services.thread_start(agent=desk, title="  JUNIPER dental ")
    services.thread_start(agent=desk, title="Juniper Dental", routine_id="7")  # a routine's own thread
    services.thread_close(thread=Conversation.objects.get(title="Juniper Dental", routine_id=""))
    again = services.thread_start(agent=desk, title="juniper dental")
    assert again.title == "juniper dental" and services.open_threads(agent=desk) == 1


def test_an_agent_keeps_at_most_thirty_open_threads_and_a_closed_one_makes_room(org, desk, model):
    for i in range(30):
        services.thread_start(agent=desk, title=f"Client {i}")
    services.thread_start(agent=desk, title="A routine's own", routine_id="7")  # routine threads don't count
    model.add(call("start_thread", {"title": "One too many", "task": "work"}), say("Too many open."))
    services.owner_message_send(org=org, agent=desk, text="Start one more")
    drain(org_id=org.id)
    result = Message.objects.filter(conversation=services.chat_for(agent=desk), role=Message.Role.TOOL).last()
    assert result.text.startswith('{"error":"bad_input","message":"Client desk has 30 open threads, the most it keeps')
    assert not Conversation.objects.filter(title="One too many").exists()
    model.add(call("close_thread", {"thread": "Client 0"}), call("start_thread", {"title": "One too many",
                                                                                   "task": "work"}),
              say("Closed one and started it."), say("Done."))
    services.owner_message_send(org=org, agent=desk, text="Close Client 0 and start it")
    drain(org_id=org.id)
    assert Conversation.objects.filter(title="One too many", closed_at__isnull=True).exists()
    assert services.open_threads(agent=desk) == 30


def test_a_message_reopens_a_closed_thread_which_goes_on_with_all_it_did(org, desk, model):
    model.add(call("start_thread", {"title": "Juniper", "task": "Quote the rebrand"}), say("Started."),
              say("Quoted $8,400."))
    services.owner_message_send(org=org, agent=desk, text="Quote Juniper")
    drain(org_id=org.id)
    model.add(call("close_thread", {"thread": "Juniper"}), say("Closed."))
    services.owner_message_send(org=org, agent=desk, text="Juniper is done, close it")
    drain(org_id=org.id)
    thread = Conversation.objects.get(agent=desk, title="Juniper")
    assert thread.closed_at is not None
    model.add(call("message_thread", {"thread": "Juniper", "task": "Dana wants the signage in blue"}), say("Sent."),
              say("Noted: signage in blue."))
    services.owner_message_send(org=org, agent=desk, text="Dana wants the signage in blue")
    drain(org_id=org.id)
    thread.refresh_from_db()
    assert thread.closed_at is None
    contents = [m.get("content") or "" for m in model.requests[-1]["messages"]]
    assert any("Quote the rebrand" in c for c in contents) and any("signage in blue" in c for c in contents)
    assert chat_texts(desk)[-1] == ("answer", "[Answer from Client desk · Juniper] Noted: signage in blue.")


def test_a_closed_thread_is_not_reopened_past_thirty_open(org, desk, model):
    closed = services.thread_start(agent=desk, title="Juniper")
    services.thread_close(thread=closed)
    for i in range(30):
        services.thread_start(agent=desk, title=f"Client {i}")
    model.add(call("message_thread", {"thread": "Juniper", "task": "More"}), say("Can't."))
    services.owner_message_send(org=org, agent=desk, text="More for Juniper")
    drain(org_id=org.id)
    result = Message.objects.filter(conversation=services.chat_for(agent=desk), role=Message.Role.TOOL).last()
    assert "would pass 30 open threads" in result.text
    closed.refresh_from_db()
    assert closed.closed_at is not None and not Work.objects.filter(conversation=closed).exists()


def test_a_message_goes_to_the_open_thread_when_a_closed_one_has_the_same_title(org, desk, model):
    old = services.thread_start(agent=desk, title="Juniper")
    services.thread_close(thread=old)
    current = services.thread_start(agent=desk, title="Juniper")
    assert services.thread_by_title(agent=desk, title="juniper") == current
    services.thread_close(thread=current)
    assert services.thread_by_title(agent=desk, title="Juniper") == current  # the last one closed
