"""What real models send, through the real client on a mocked endpoint (respx): the raw JSON of each reply as a
model writes it, parsed by the same code that reads a real provider's. Each gets the right result or an error
naming the fix in one line, and none loses the turn."""

import copy
import json

import httpx
import pytest
import respx

from agents import services
from agents.models import Message, Run, Work
from agents.runtime.model import OpenAIModel, set_model
from agents.runtime.replies import EMPTY_NOTE, PROMISE_NOTE, is_promise
from agents.runtime.scheduler import wake
from agents.runtime.turn import drain
from core.models import Card
from tests.factories import ContactFactory

BASE_URL = "http://model.test/v1"


def completion(text: str | None = None, calls: list[tuple[str, str]] = ()) -> dict:
    """A chat completion as a provider sends it; each call's arguments are the raw string the model wrote."""
    message: dict = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}_{name}", "type": "function",
                                  "function": {"name": name, "arguments": arguments}}
                                 for i, (name, arguments) in enumerate(calls)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1767312000, "model": "acme-large-2",
            "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": message}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 9, "total_tokens": 1209}}


class Replies:
    """The endpoint's answers, in order; every request it was sent is kept."""

    def __init__(self):
        self.script: list[dict] = []
        self.requests: list[dict] = []

    def add(self, *items: dict) -> "Replies":
        self.script.extend(items)
        return self

    def respond(self, request):
        self.requests.append(json.loads(request.content))
        if not self.script:
            raise AssertionError(f"the endpoint ran out of replies at request {len(self.requests)}")
        return httpx.Response(200, json=self.script.pop(0))


@pytest.fixture
def replies(settings):
    models = copy.deepcopy(settings.ROADSTAR_MODELS)
    models["gpt-6.1-terra"]["name"] = "acme-large-2"
    settings.ROADSTAR_MODELS = models
    script = Replies()
    with respx.mock(base_url=BASE_URL, assert_all_mocked=True) as router, httpx.Client() as http:
        router.post("/chat/completions").side_effect = script.respond
        set_model(OpenAIModel(api_key="sk-test", base_url=BASE_URL, sleep=lambda seconds: None, http_client=http))
        yield script
        set_model(None)


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


def ask_chat(org, desk, text="Remember that Dana prefers calls"):
    services.owner_message_send(org=org, agent=desk, text=text)
    drain(org_id=org.id)
    return services.chat_for(agent=desk)


def in_a_thread(org, desk, task="Look up Dana Whitfield"):
    thread = services.thread_start(agent=desk, title="Dana")
    services.message_append(conversation=thread, role=Message.Role.HANDOFF, text=task, data={"task": task})
    services.work_open(org=org, agent=desk, conversation=thread, task=task, requester=None)
    wake(conversation=thread)
    drain(org_id=org.id)
    return thread


def results(conversation) -> list[dict]:
    return [json.loads(m.text) for m in Message.objects.filter(conversation=conversation, role=Message.Role.TOOL)
            .order_by("seq")]


def last_answer(conversation) -> str:
    return Message.objects.filter(conversation=conversation, role=Message.Role.AGENT).order_by("-seq")[0].text


# --- arguments ---------------------------------------------------------------------------------------------------


def test_arguments_sent_as_a_json_string_of_the_object_run(org, desk, replies):
    replies.add(completion(calls=[("remember", json.dumps(json.dumps({"note": "Dana prefers calls"})))]),
                completion("Noted."))
    chat = ask_chat(org, desk)
    desk.refresh_from_db()
    assert "Dana prefers calls" in json.dumps(desk.notes)
    assert "error" not in results(chat)[0]


def test_a_trailing_comma_is_read(org, desk, replies):
    replies.add(completion(calls=[("remember", '{"note": "Dana prefers calls",}')]), completion("Noted."))
    chat = ask_chat(org, desk)
    desk.refresh_from_db()
    assert "Dana prefers calls" in json.dumps(desk.notes) and "error" not in results(chat)[0]


def test_cut_off_arguments_say_to_send_the_call_again_whole_and_the_turn_goes_on(org, desk, replies):
    replies.add(completion(calls=[("remember", '{"note": "Dana prefers ca')]),
                completion(calls=[("remember", '{"note": "Dana prefers calls"}')]),
                completion("Noted."))
    chat = ask_chat(org, desk)
    first, second = results(chat)
    assert first["error"] == "bad_input"
    assert "cut off before their end" in first["message"] and "send the call again whole" in first["message"]
    assert "\n" not in first["message"]  # one line
    assert "error" not in second and last_answer(chat) == "Noted."
    desk.refresh_from_db()
    assert "Dana prefers calls" in json.dumps(desk.notes)


def test_arguments_that_are_not_an_object_name_the_fix(org, desk, replies):
    replies.add(completion(calls=[("remember", '["Dana prefers calls"]')]), completion("I couldn't note it."))
    chat = ask_chat(org, desk)
    [result] = results(chat)
    assert "must be one JSON object of the tool's inputs" in result["message"] and "not a list" in result["message"]


def test_an_extra_input_close_to_a_real_one_is_named(org, desk, replies):
    replies.add(completion(calls=[("remember", '{"notes": "Dana prefers calls"}')]),
                completion(calls=[("remember", '{"note": "Dana prefers calls"}')]), completion("Noted."))
    chat = ask_chat(org, desk)
    first, second = results(chat)
    assert "did you mean note?" in first["message"] and "error" not in second


# --- tool names --------------------------------------------------------------------------------------------------


def test_a_name_that_can_only_mean_a_held_tool_runs_it(org, desk, replies):
    replies.add(completion(calls=[("functions.Remember", '{"note": "Dana prefers calls"}')]), completion("Noted."))
    chat = ask_chat(org, desk)
    desk.refresh_from_db()
    assert "error" not in results(chat)[0] and "Dana prefers calls" in json.dumps(desk.notes)


def test_a_misspelt_name_is_answered_with_the_one_it_means(org, desk, replies):
    replies.add(completion(calls=[("remembr", '{"note": "Dana prefers calls"}')]), completion("Sorry."))
    chat = ask_chat(org, desk)
    [result] = results(chat)
    assert result["error"] == "bad_input" and "Did you mean remember?" in result["message"]


def test_a_groups_tool_called_from_a_chat_says_a_chat_holds_none(org, desk, replies):
    replies.add(completion(calls=[("contacts_find", '{"email": "dana@juniperdental.test"}')]), completion("Sorry."))
    chat = ask_chat(org, desk, "What's Dana's number?")
    [result] = results(chat)
    assert "contacts.find is a group's tool, and a chat holds none" in result["message"]


def test_a_groups_tool_called_directly_in_a_thread_says_how_to_run_it(org, desk, replies):
    replies.add(completion(calls=[("contacts.find", '{"email": "dana@juniperdental.test"}')]), completion("Done."))
    thread = in_a_thread(org, desk)
    [result] = results(thread)
    assert 'run it with use_tool, {"name": "contacts.find", "input": {…}}' in result["message"]


def test_use_tool_takes_its_input_as_a_json_string_and_a_name_as_models_write_it(org, desk, replies):
    ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    replies.add(completion(calls=[("use_tool", json.dumps({"name": "Contacts.Find",
                                                           "input": '{"email": "dana@juniperdental.test",}'}))]),
                completion("Dana Whitfield is in Contacts."))
    thread = in_a_thread(org, desk)
    [result] = results(thread)
    assert result is not None and "error" not in result and result["name"] == "Dana Whitfield"


def test_use_tool_with_a_near_name_says_the_tool_it_means(org, desk, replies):
    replies.add(completion(calls=[("use_tool", '{"name": "contact.find", "input": {"email": "d@x.test"}}')]),
                completion("Couldn't."))
    thread = in_a_thread(org, desk)
    [result] = results(thread)
    assert "Did you mean contacts.find?" in result["message"]


# --- what a reply holds ------------------------------------------------------------------------------------------


def test_text_and_a_call_in_one_reply_run_the_call_and_keep_the_text(org, desk, replies):
    replies.add(completion("Noting that for everyone.", calls=[("remember", '{"note": "Dana prefers calls"}')]),
                completion("Noted: Dana prefers calls."))
    chat = ask_chat(org, desk)
    agent_texts = list(Message.objects.filter(conversation=chat, role=Message.Role.AGENT).order_by("seq")
                       .values_list("text", flat=True))
    assert agent_texts == ["Noting that for everyone.", "Noted: Dana prefers calls."]
    [work] = Work.objects.filter(conversation=chat)
    assert work.answer == "Noted: Dana prefers calls."


def test_several_calls_in_one_reply_all_run_in_order(org, desk, replies):
    replies.add(completion(calls=[("remember", '{"note": "Dana prefers calls"}'),
                                  ("remember", '{"note": "Juniper pays on the 1st"}')]),
                completion("Noted both."))
    chat = ask_chat(org, desk)
    desk.refresh_from_db()
    assert [("error" in r) for r in results(chat)] == [False, False]
    assert "Dana prefers calls" in json.dumps(desk.notes) and "Juniper pays on the 1st" in json.dumps(desk.notes)
    assert last_answer(chat) == "Noted both."


def test_an_empty_reply_gets_a_note_and_another_step(org, desk, replies):
    replies.add(completion(""), completion("Dana prefers calls."))
    chat = ask_chat(org, desk, "How does Dana like to be reached?")
    notes = Message.objects.filter(conversation=chat, role=Message.Role.SYSTEM).values_list("text", flat=True)
    assert list(notes) == [EMPTY_NOTE]
    [work] = Work.objects.filter(conversation=chat)
    assert (work.state, work.answer) == (Work.State.ANSWERED, "Dana prefers calls.")
    assert not Message.objects.filter(conversation=chat, role=Message.Role.AGENT, text="").exists()


def test_a_model_that_keeps_answering_nothing_stops_with_try_again_and_loses_nothing(org, desk, replies):
    replies.add(completion(""), completion(None), completion("  "))
    chat = ask_chat(org, desk, "How does Dana like to be reached?")
    [work] = Work.objects.filter(conversation=chat)
    assert (work.state, work.answer) == (Work.State.OPEN, "")
    assert Run.objects.get(conversation=chat).outcome == Run.Outcome.FAILED
    assert Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True).count() == 1


def test_a_reply_that_only_says_what_it_will_do_is_told_to_do_it(org, desk, replies):
    replies.add(completion("I'll note that now."),
                completion(calls=[("remember", '{"note": "Dana prefers calls"}')]),
                completion("Noted."))
    chat = ask_chat(org, desk)
    desk.refresh_from_db()
    assert "Dana prefers calls" in json.dumps(desk.notes)
    assert list(Message.objects.filter(conversation=chat, role=Message.Role.SYSTEM)
                .values_list("text", flat=True)) == [PROMISE_NOTE]
    [work] = Work.objects.filter(conversation=chat)
    assert work.answer == "Noted."
    # The note reached the model as the next step's last message.
    assert replies.requests[1]["messages"][-1]["content"].endswith(PROMISE_NOTE)


def test_a_promise_said_twice_stands_as_the_answer(org, desk, replies):
    replies.add(completion("I'll let Dana know."), completion("I'll let Dana know once you say so."))
    chat = ask_chat(org, desk, "Tell Dana we're closed Friday")
    [work] = Work.objects.filter(conversation=chat)
    assert (work.state, work.answer) == (Work.State.ANSWERED, "I'll let Dana know once you say so.")


@pytest.mark.parametrize(("text", "promise"), [
    ("I'll look that up now.", True),
    ("Let me check your mail.", True),
    ("OK, I'm going to draft the reply.", True),
    ("Let me know if you want it sent.", False),
    ("I'll answer: $8,400.", False),
    ("I'll do it myself: done.", False),
    ("I'll send it at 9 tomorrow.", False),
    ("I'll look into it. The invoice went out Tuesday and Dana has it.", False),
    ("Shall I send it?", False),
    ("Dana prefers calls. I'll remember that for next time, and the Bookkeeper has the invoice; it went out on "
     "Tuesday with the rate card attached, so nothing else is waiting on you this week. " * 2, False),
])
def test_what_counts_as_only_a_promise(text, promise):
    assert is_promise(text) is promise


def test_a_promise_after_the_turn_did_something_is_its_answer(org, desk, replies):
    replies.add(completion(calls=[("remember", '{"note": "Dana prefers calls"}')]),
                completion("I'll keep that in mind for everyone."))
    chat = ask_chat(org, desk)
    assert not Message.objects.filter(conversation=chat, role=Message.Role.SYSTEM).exists()
    [work] = Work.objects.filter(conversation=chat)
    assert work.answer == "I'll keep that in mind for everyone."
