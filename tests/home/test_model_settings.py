"""Settings, AI model: the owner connects a model without a terminal. The key is stored encrypted and never shown
back; the four names default sensibly; Test makes one real call (to a server this test starts) and says what
happened; a saved endpoint is what the agents' next turn uses, with no restart; the environment wins where set."""

import html

import pytest
from django.urls import reverse

from agents import services as agent_services
from agents.models import Message
from agents.runtime.model import get_model, model_connected, set_model
from agents.runtime.turn import drain
from core.model_endpoint import DEFAULT_NAMES, endpoint_for
from core.models import ModelEndpoint
from tests.fake_model_server import FakeModelServer

URL = "/settings/model/"
KEY = "sk-fernhill-0123456789"


@pytest.fixture
def no_env(settings):
    settings.OPENAI_API_KEY = None
    settings.OPENAI_BASE_URL = None
    settings.MODEL_CONFIGURED = False
    set_model(None)
    yield settings
    set_model(None)


@pytest.fixture
def owner(client, org, no_env):
    client.force_login(org.owner)
    return client


@pytest.fixture
def server():
    with FakeModelServer(key=KEY, models=("gpt-4.1", "gpt-4.1-mini", "acme-small")) as running:
        yield running


def page(client, response=None) -> str:
    return html.unescape((response or client.get(URL)).content.decode())


def form(base_url="", api_key="", action="save", **names):
    data = {"base_url": base_url, "api_key": api_key, "action": action}
    data.update({f"name_{model_id}": names.get(model_id.replace("-", "_").replace(".", "_"), "")
                 for model_id in DEFAULT_NAMES})
    return data


def test_the_page_says_no_model_is_connected_and_offers_the_defaults(owner):
    text = page(owner)
    assert "No model is connected yet." in text
    for name in DEFAULT_NAMES.values():
        assert f'value="{name}"' in text
    assert "OPENAI" not in text and "MODEL_GPT" not in text  # no variable names for the owner


def test_saving_stores_the_key_encrypted_and_never_shows_it(owner, org, server):
    response = owner.post(URL, form(server.url, KEY))
    assert response.status_code == 302
    saved = ModelEndpoint.objects.get(organization=org)
    assert KEY not in saved.api_key and saved.read_key() == KEY
    assert saved.names == DEFAULT_NAMES and saved.base_url == server.url
    text = page(owner)
    assert KEY not in text and "A key is saved" in text and "A model is connected." in text
    assert model_connected(org)


def test_an_empty_key_box_keeps_the_saved_key_and_remove_forgets_it(owner, org, server):
    owner.post(URL, form(server.url, KEY))
    owner.post(URL, form(server.url, ""))
    assert ModelEndpoint.objects.get(organization=org).read_key() == KEY
    owner.post(URL, form(server.url, "", action="forget"))
    assert ModelEndpoint.objects.get(organization=org).read_key() == ""


@pytest.mark.parametrize("data, says", [
    (form("ftp://models.example/v1", KEY), "Address: an http:// or https:// address"),
    (form("https://" + "a" * 500, KEY), "Address: at most 500 characters"),
    (form("", "sk-with a space"), "Key: a key has no spaces"),
    (form("", KEY, gpt_6_1_terra="x" * 101), "gpt-6.1-terra: a model name of at most 100 characters"),
])
def test_bad_input_is_named_and_nothing_is_saved(owner, org, data, says):
    response = owner.post(URL, data)
    assert response.status_code == 400
    assert says in page(owner, response)
    assert not ModelEndpoint.objects.filter(organization=org).exists()


def test_test_makes_one_real_call_and_says_it_works(owner, org, server):
    text = page(owner, owner.post(URL, form(server.url, KEY, action="test")))
    assert f"It works: “gpt-4.1” at {server.url} answered “OK”." in text
    assert len(server.requests) == 1 and server.requests[0]["body"]["model"] == "gpt-4.1"
    assert not ModelEndpoint.objects.filter(organization=org).exists()  # Test saves nothing


def test_test_says_a_wrong_key_a_missing_model_and_nothing_at_the_address(owner, server):
    assert "the key isn't right" in page(owner, owner.post(URL, form(server.url, "sk-wrong", action="test")))
    assert "no model named “gpt-9”" in page(owner, owner.post(URL, form(server.url, KEY, action="test",
                                                                         gpt_6_1_terra="gpt-9")))
    nothing = "http://127.0.0.1:9/v1"  # the discard port: nothing answers
    assert f"Roadstar couldn't reach {nothing}" in page(owner, owner.post(URL, form(nothing, KEY, action="test")))


def test_test_uses_the_saved_key_when_the_box_is_empty(owner, server):
    owner.post(URL, form(server.url, KEY))
    assert "It works" in page(owner, owner.post(URL, form(server.url, "", action="test")))
    assert server.requests[-1]["auth"] == f"Bearer {KEY}"


def test_the_next_turn_uses_what_was_saved_without_a_restart(owner, org, agent, server):
    agent_services.owner_message_send(org=org, agent=agent, text="Are you there?")
    drain(org_id=org.id)  # no model: it can't work yet
    chat = agent_services.chat_for(agent=agent)
    assert Message.objects.filter(conversation=chat, data__no_model=True).exists()
    server.answer = "I'm here, Sam."
    owner.post(URL, form(server.url, KEY, gpt_6_1_terra="acme-small"))
    agent_services.conversation_try_again(org=org, conversation_id=chat.id)
    drain(org_id=org.id)
    assert Message.objects.filter(conversation=chat).last().text == "I'm here, Sam."
    assert server.requests[-1]["body"]["model"] == "acme-small"


def test_the_environment_wins_where_set_and_the_page_says_so(owner, org, server, no_env):
    owner.post(URL, form("http://saved.example/v1", KEY, gpt_6_1_terra="acme-small"))
    no_env.OPENAI_BASE_URL = server.url
    endpoint = endpoint_for(org)
    assert endpoint.base_url == server.url and endpoint.api_key == KEY  # the address from the server, the key saved
    assert endpoint.name_of("gpt-6.1-terra") == "acme-small"
    text = page(owner)
    assert "set on the server" in text and server.url in text and 'name="base_url"' not in text
    assert get_model(org).names["gpt-6.1-terra"] == "acme-small"


def test_another_workspaces_endpoint_is_not_this_ones(org, other_org, no_env, server):
    from core.services import model_endpoint_set
    model_endpoint_set(org=other_org, base_url=server.url, api_key=KEY, names={})
    assert endpoint_for(org) is None and not model_connected(org)


def test_help_model_opens_settings(owner):
    assert owner.get("/help/model/")["Location"] == reverse("model_settings")


# ---------------------------------------------------------------------------------------------------- private addresses

@pytest.fixture
def public_only(no_env):
    no_env.ROADSTAR_LOCAL_MODELS = False  # as production runs it unless ROADSTAR_LOCAL_MODELS=1
    return no_env


@pytest.mark.parametrize("address", [
    "http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://10.0.0.7/v1", "http://192.168.1.20:8080/v1",
    "http://169.254.169.254/latest", "http://[::1]:9000/v1", "http://2130706433/v1",
])
def test_where_local_models_arent_allowed_test_refuses_a_private_address_without_calling_it(owner, public_only,
                                                                                             address):
    text = page(owner, owner.post(URL, form(base_url=address, api_key=KEY, action="test")))
    assert "This server takes only a public model address" in text
    assert "Roadstar couldn't reach" not in text  # refused before any call, not tried


def test_where_local_models_arent_allowed_a_private_address_isnt_saved(owner, org, public_only):
    response = owner.post(URL, form(base_url="http://10.1.2.3:8000/v1", api_key=KEY))
    assert response.status_code == 400
    assert "This server takes only a public model address" in page(owner, response)
    assert not ModelEndpoint.objects.filter(organization=org).exists()


def test_a_name_that_resolves_to_a_private_address_is_refused(owner, public_only, monkeypatch):
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["10.9.8.7"])
    text = page(owner, owner.post(URL, form(base_url="https://models.example.com/v1", api_key=KEY, action="test")))
    assert "models.example.com resolves to 10.9.8.7, an address on this machine or a private network" in text


def test_a_public_address_is_tried_where_local_models_arent_allowed(owner, public_only, monkeypatch):
    monkeypatch.setattr("core.web_addresses.resolver", lambda host, port: ["93.184.215.14"])
    monkeypatch.setattr("home.settings_views.endpoint_try", lambda **kw: (True, f"It works: {kw['base_url']}"))
    text = page(owner, owner.post(URL, form(base_url="https://models.example.com/v1", api_key=KEY, action="test")))
    assert "It works: https://models.example.com/v1" in text


def test_local_models_are_allowed_on_ones_own_machine_by_default(settings):
    assert settings.ROADSTAR_LOCAL_MODELS  # the development and test settings: a local Ollama is the common case
