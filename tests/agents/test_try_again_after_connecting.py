"""Try again on work that couldn't start (no model was connected) reaches the model once one is; and a model that
refuses the call (a 400) leaves a card that says so, not that it was tried for a minute."""

import httpx
import pytest
import respx

from agents import services
from agents.models import Message, Work
from agents.runtime.model import ModelNotConfigured, OpenAIModel, ScriptedModel, say, set_model
from agents.runtime.turn import MODEL_REFUSED, drain
from core.models import Card


@pytest.fixture
def desk(staff):
    return staff["Client desk"]


@pytest.fixture
def no_model(settings):
    settings.MODEL_CONFIGURED = False
    set_model(None)
    yield
    set_model(None)


def test_try_again_after_a_model_is_connected_reaches_it(org, desk, no_model):
    services.owner_message_send(org=org, agent=desk, text="Write the morning summary.")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    last = Message.objects.filter(conversation=chat).last()
    assert last.role == Message.Role.AGENT and last.data.get("no_model") and "can't work yet" in last.text

    model = ScriptedModel([say("Good morning, Sam: nothing waits for you today.")])
    set_model(model)  # a model is connected
    services.conversation_try_again(org=org, conversation_id=chat.id)
    assert drain(org_id=org.id) == 1
    assert len(model.requests) == 1  # it reached the model
    prompt = model.requests[0]["messages"]
    assert not any("can't work yet" in str(m.get("content")) for m in prompt)  # Roadstar's words aren't the model's
    assert any("Write the morning summary." in str(m.get("content")) for m in prompt)
    last = Message.objects.filter(conversation=chat).last()
    assert (last.role, last.text) == (Message.Role.AGENT, "Good morning, Sam: nothing waits for you today.")
    [work] = Work.objects.filter(conversation=chat)
    assert work.state == Work.State.ANSWERED


def test_without_a_model_try_again_still_says_it_cannot_work(org, desk, no_model):
    services.owner_message_send(org=org, agent=desk, text="Write the morning summary.")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    services.conversation_try_again(org=org, conversation_id=chat.id)
    drain(org_id=org.id)
    with pytest.raises(ModelNotConfigured):
        from agents.runtime.model import get_model
        get_model()
    assert Message.objects.filter(conversation=chat, data__no_model=True).count() == 2
    assert Work.objects.get(conversation=chat).state == Work.State.OPEN


def test_a_refused_call_is_tried_once_and_the_card_says_it_was_turned_down(org, desk):
    with respx.mock(base_url="http://model.test/v1", assert_all_mocked=True) as router, httpx.Client() as http:
        route = router.post("/chat/completions").mock(return_value=httpx.Response(
            400, json={"error": {"message": "model 'gpt-6.1-terra' does not exist", "type": "invalid_request"}}))
        set_model(OpenAIModel(api_key="sk-test", base_url="http://model.test/v1", sleep=lambda s: None,
                              http_client=http))
        try:
            services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
            drain(org_id=org.id)
        finally:
            set_model(None)
    assert route.call_count == 1
    [card] = Card.objects.filter(organization=org, kind="try_again", resolved_at__isnull=True)
    assert card.body == MODEL_REFUSED
    assert "five times" not in card.body and "minute" not in card.body
