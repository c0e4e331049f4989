"""What `manage.py worker` builds before its cluster forks, for every worker's turns: the model client and the tools'
schemas (agents.tasks.warm_up)."""

from __future__ import annotations

from agents import tasks
from agents.runtime import model
from tools import registry


def test_warm_up_builds_the_configured_model_client_and_every_tools_schema(settings, monkeypatch):
    settings.MODEL_CONFIGURED = True
    settings.OPENAI_API_KEY, settings.OPENAI_BASE_URL = "warm-up-key", "http://127.0.0.1:9/v1"
    monkeypatch.setattr(model, "_override", None)
    monkeypatch.setattr(registry, "_schemas", {})
    monkeypatch.setattr(registry, "_described", {})
    model._configured_model.cache_clear()
    try:
        tasks.warm_up()
        built = model._configured_model.cache_info()
        assert built.currsize == 1
        client = model.get_model()  # a turn's: the one built, not another
        assert model._configured_model.cache_info().hits == built.hits + 1
        assert client.client.base_url.host == "127.0.0.1"
    finally:
        model._configured_model.cache_clear()
    tools = [*registry.AGENT_TOOLS.values(), *registry.TOOLS.values()]
    assert tools and {tool.input for tool in tools} <= set(registry._schemas)
    assert {tool.name for tool in tools} <= set(registry._described)  # (with what each input is)


def test_warm_up_without_a_model_builds_no_client(settings, monkeypatch):
    settings.MODEL_CONFIGURED = False
    monkeypatch.setattr(model, "_override", None)
    model._configured_model.cache_clear()
    tasks.warm_up()
    assert model._configured_model.cache_info().currsize == 0
