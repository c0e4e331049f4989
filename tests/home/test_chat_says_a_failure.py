"""A model call that failed on a chat's turn is said in the chat itself, with its Try again, not only on Home."""

import html

import httpx
import respx

from agents import services as agent_services
from agents.runtime.model import OpenAIModel, set_model
from agents.runtime.turn import MODEL_REFUSED, drain
from core.models import Card


def test_a_refused_call_is_said_in_the_chat_with_try_again(client, org, agent):
    with respx.mock(base_url="http://model.test/v1", assert_all_mocked=True) as router, httpx.Client() as http:
        router.post("/chat/completions").mock(return_value=httpx.Response(
            400, json={"error": {"message": "model 'x' does not exist", "type": "invalid_request"}}))
        set_model(OpenAIModel(api_key="sk-test", base_url="http://model.test/v1", sleep=lambda s: None,
                              http_client=http))
        try:
            agent_services.owner_message_send(org=org, agent=agent, text="How does Dana like to be reached?")
            drain(org_id=org.id)
        finally:
            set_model(None)
    client.force_login(org.owner)
    page = html.unescape(client.get(f"/chat/{agent.id}/").content.decode())
    assert f"{agent.name} couldn't finish" in page and MODEL_REFUSED in page
    card = Card.objects.get(organization=org, kind="try_again", resolved_at__isnull=True)
    assert f'action="/cards/{card.id}/try-again"' in page
    assert "is replying" not in page
