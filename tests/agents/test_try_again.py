"""Work that can't finish because the model stays unavailable: a Try again card on Home, and Try again.

The first tests run the real client on a mocked endpoint (respx) that answers 500 until it is told to answer;
the rest use the scripted model, with a step that raises ModelUnavailable.
"""

import copy
import json

import httpx
import pytest
import respx

from agents import services
from agents.models import Conversation, Message, Run, ToolCall, Work
from agents.runtime.model import ModelUnavailable, OpenAIModel, call, say, set_model
from agents.runtime.turn import drain
from core.errors import ToolError
from core.models import Card

BASE_URL = "http://model.test/v1"


def completion(text: str) -> dict:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1767312000, "model": "acme-large-2",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 9, "total_tokens": 1209,
                  "prompt_tokens_details": {"cached_tokens": 0}},
    }


class Endpoint:
    """An OpenAI-compatible server that is down (500) until `up()`, then answers `text`."""

    def __init__(self, route):
        self.route = route
        self.answer = None
        route.side_effect = self.respond

    def respond(self, request):
        if self.answer is None:
            return httpx.Response(500, json={"error": {"message": "upstream overloaded", "type": "server_error"}})
        return httpx.Response(200, json=completion(self.answer))

    def up(self, text: str):
        self.answer = text


@pytest.fixture
def endpoint(settings):
    models = copy.deepcopy(settings.ROADSTAR_MODELS)
    models["gpt-6.1-terra"]["name"] = "acme-large-2"
    settings.ROADSTAR_MODELS = models
    with respx.mock(base_url=BASE_URL, assert_all_mocked=True) as router, httpx.Client() as http:
        set_model(OpenAIModel(api_key="sk-test", base_url=BASE_URL, sleep=lambda seconds: None, http_client=http))
        yield Endpoint(router.post("/chat/completions"))
        set_model(None)


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


def open_cards(org, kind="try_again"):
    return list(Card.objects.filter(organization=org, kind=kind, resolved_at__isnull=True))


def unavailable(request):
    raise ModelUnavailable("acme-large-2 did not answer: the first call and 5 tries again failed; the last with "
                           "InternalServerError: upstream overloaded")


@pytest.fixture
def failed(org, desk, endpoint):
    """Sam asked Client desk something while the model was down: every try failed."""
    services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
    drain(org_id=org.id)
    return services.chat_for(agent=desk)


# --- through the real client ---------------------------------------------------------------------------------


def test_the_model_was_tried_six_times_before_giving_up(failed, endpoint):
    assert endpoint.route.call_count == 6


def test_a_model_that_stays_unavailable_leaves_a_try_again_card_naming_the_agent(org, failed):
    [card] = open_cards(org)
    assert "Client desk" in card.title
    assert card.action_label == "Try again"
    assert card.data == {"conversation_id": str(failed.id)}


def test_the_work_that_could_not_finish_stays_open(failed):
    [work] = Work.objects.filter(conversation=failed)
    assert (work.state, work.answer) == (Work.State.OPEN, "")


def test_the_conversation_is_idle_after_the_failure_and_does_not_run_again_by_itself(org, failed, endpoint):
    failed.refresh_from_db()
    assert failed.state == Conversation.State.IDLE
    assert drain(org_id=org.id) == 0
    assert endpoint.route.call_count == 6


def test_the_failed_run_is_recorded_with_why(failed):
    [run] = Run.objects.filter(conversation=failed)
    assert run.outcome == Run.Outcome.FAILED
    assert "acme-large-2" in run.error


def test_nothing_is_said_in_the_chat_for_the_failure(failed):
    assert list(Message.objects.filter(conversation=failed).values_list("role", flat=True)) == [Message.Role.OWNER]


def test_try_again_resolves_the_card(org, failed):
    services.conversation_try_again(org=org, conversation_id=failed.id)
    assert open_cards(org) == []


def test_try_again_queues_the_conversation(org, failed):
    services.conversation_try_again(org=org, conversation_id=failed.id)
    failed.refresh_from_db()
    assert failed.state == Conversation.State.QUEUED


def test_try_again_runs_the_turn_again_which_now_answers(org, desk, failed, endpoint):
    endpoint.up("Dana prefers a call, mornings.")
    services.conversation_try_again(org=org, conversation_id=failed.id)
    assert drain(org_id=org.id) == 1
    assert endpoint.route.call_count == 7
    last = Message.objects.filter(conversation=failed).last()
    assert (last.role, last.text) == (Message.Role.AGENT, "Dana prefers a call, mornings.")
    [work] = Work.objects.filter(conversation=failed)
    assert (work.state, work.answer) == (Work.State.ANSWERED, "Dana prefers a call, mornings.")


def test_the_turn_tried_again_is_sent_the_owners_words_once(org, failed, endpoint):

    endpoint.up("Dana prefers a call.")
    services.conversation_try_again(org=org, conversation_id=failed.id)
    drain(org_id=org.id)
    messages = json.loads(endpoint.route.calls[-1].request.content)["messages"]
    owner_lines = [m for m in messages if "How does Dana like to be reached?" in (m.get("content") or "")]
    assert len(owner_lines) == 1


def test_a_failure_while_a_card_is_open_does_not_add_a_second_card(org, desk, failed):
    services.owner_message_send(org=org, agent=desk, text="And her phone number?")
    drain(org_id=org.id)
    assert len(open_cards(org)) == 1


def test_failing_again_after_try_again_shows_a_new_card(org, failed):
    services.conversation_try_again(org=org, conversation_id=failed.id)
    drain(org_id=org.id)
    assert len(open_cards(org)) == 1
    assert Card.objects.filter(organization=org, kind="try_again").count() == 2


# --- on the scripted model -----------------------------------------------------------------------------------


def test_a_threads_card_names_the_agent_and_the_thread(org, desk, model):
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Quote the rebrand"}),
        say("Started a thread on Juniper Dental."),
        unavailable,
    )
    services.owner_message_send(org=org, agent=desk, text="Quote Juniper's rebrand")
    drain(org_id=org.id)
    [card] = open_cards(org)
    assert card.title == "Client desk couldn't finish: Juniper Dental"
    thread = Conversation.objects.get(agent=desk, kind=Conversation.Kind.THREAD)
    assert card.data == {"conversation_id": str(thread.id)}


def test_try_again_on_a_thread_delivers_its_answer_to_the_chat(org, desk, model):
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Quote the rebrand"}),
        say("Started a thread on Juniper Dental."),
        unavailable,
    )
    services.owner_message_send(org=org, agent=desk, text="Quote Juniper's rebrand")
    drain(org_id=org.id)
    thread = Conversation.objects.get(agent=desk, kind=Conversation.Kind.THREAD)
    model.add(say("Quoted $8,400."))
    services.conversation_try_again(org=org, conversation_id=thread.id)
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    last = Message.objects.filter(conversation=chat).last()
    assert last.text == "[Answer from Client desk · Juniper Dental] Quoted $8,400."
    assert not model.script


def test_try_again_goes_on_from_where_the_turn_stopped_and_a_tool_that_ran_does_not_run_again(org, desk, model):
    model.add(call("remember", {"note": "Dana prefers calls"}), unavailable)
    services.owner_message_send(org=org, agent=desk, text="Remember that Dana prefers calls")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    assert open_cards(org)
    model.add(say("Noted."))
    services.conversation_try_again(org=org, conversation_id=chat.id)
    drain(org_id=org.id)
    desk.refresh_from_db()
    assert desk.notes == ["Dana prefers calls"]
    assert ToolCall.objects.filter(conversation=chat, name="remember").count() == 1
    retried = model.requests[-1]["messages"]
    assert retried[-1]["role"] == "tool" and "Dana prefers calls" in retried[-1]["content"]
    assert Message.objects.filter(conversation=chat).last().text == "Noted."


def test_try_again_for_another_workspaces_conversation_is_refused(org, other_org, desk, model):
    model.add(unavailable)
    services.owner_message_send(org=org, agent=desk, text="Hello")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    with pytest.raises(ToolError) as refused:
        services.conversation_try_again(org=other_org, conversation_id=chat.id)
    assert refused.value.kind == "not_found"
    assert len(open_cards(org)) == 1
    chat.refresh_from_db()
    assert chat.state == Conversation.State.IDLE


def test_try_again_for_a_paused_agent_waits_for_the_budget(org, desk, model):
    model.add(unavailable)
    services.owner_message_send(org=org, agent=desk, text="Hello")
    drain(org_id=org.id)
    desk.paused = True
    desk.save(update_fields=["paused"])
    chat = services.chat_for(agent=desk)
    services.conversation_try_again(org=org, conversation_id=chat.id)
    assert drain(org_id=org.id) == 0
    chat.refresh_from_db()
    assert chat.state == Conversation.State.QUEUED


def test_try_again_hands_the_turn_to_a_worker(org, failed, monkeypatch, django_capture_on_commit_callbacks):
    handed = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: handed.append((func, args)))
    with django_capture_on_commit_callbacks(execute=True):
        services.conversation_try_again(org=org, conversation_id=failed.id)
    lease = str(Conversation.objects.get(id=failed.id).lease_token)  # the claim's token, which the task carries
    assert handed == [("agents.tasks.run_turn", (str(failed.id), lease))]


# --- what the owner reads ----------------------------------------------------------------------------------------


def test_the_card_speaks_to_the_owner_and_keeps_the_technical_detail_for_the_log_and_the_admin(org, failed, caplog):
    [card] = open_cards(org)
    assert card.body == ("The AI model Roadstar works with didn't answer, even after trying again five times over "
                         "about a minute. Nothing is lost: Try again picks the work up where it stopped.")
    assert "Error code" not in card.body and "500" not in card.body
    [run] = Run.objects.filter(conversation=failed)
    assert "upstream overloaded" in run.error  # the admin's Runs show what the model said


def test_a_200_with_a_garbage_body_is_tried_again_then_leaves_the_try_again_card(org, desk, endpoint):
    endpoint.route.side_effect = lambda request: httpx.Response(
        200, text="<html>upstream reset</html>", headers={"content-type": "text/html"})
    services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
    drain(org_id=org.id)
    assert endpoint.route.call_count == 6
    [card] = open_cards(org)
    assert card.action_label == "Try again" and "upstream reset" not in card.body
    [run] = Run.objects.filter(conversation=services.chat_for(agent=desk))
    assert run.outcome == Run.Outcome.FAILED and "MalformedAnswer" in run.error


def test_a_turn_that_breaks_on_a_bug_still_leaves_the_try_again_card(org, desk, model, monkeypatch):
    from agents.runtime import turn

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(turn.Turn, "prompt", broken)
    services.owner_message_send(org=org, agent=desk, text="Hello")
    with pytest.raises(RuntimeError):
        drain(org_id=org.id)
    [card] = open_cards(org)
    assert card.title == "Client desk couldn't finish" and "a bug" not in card.body
    assert card.data == {"conversation_id": str(services.chat_for(agent=desk).id)}


def test_broken_json_arguments_come_back_saying_they_werent_valid_json(org, desk, model):
    from agents.runtime.model import ModelResponse, ToolCallRequest

    broken = '{"note": "Dana prefers calls'
    model.add(
        ModelResponse(
            text="",
            tool_calls=[
                ToolCallRequest(id="c1", name="remember", arguments={"_unparsed": broken}, raw_arguments=broken)
            ],
        ),
        say("Noted."),
    )
    services.owner_message_send(org=org, agent=desk, text="Remember that Dana prefers calls")
    drain(org_id=org.id)
    result = Message.objects.get(conversation=services.chat_for(agent=desk), role=Message.Role.TOOL)
    assert "_unparsed" not in result.text
    assert result.text.startswith('{"error":"bad_input","message":"Your arguments to remember weren\'t valid JSON')
    assert broken in json.loads(result.text)["message"]
    desk.refresh_from_db()
    assert desk.notes == []
