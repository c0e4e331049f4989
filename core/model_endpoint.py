"""Which AI model endpoint a workspace's agents reach: the server's environment where it sets one, else what the
owner set on Settings (core.models.ModelEndpoint), setting by setting. Read at each turn, so a change on the page
takes effect at the next one, without a restart.

Here, below everything that calls a model (the agents' turns, memory, routines, research), so each can ask with
the workspace it works for; the client itself is agents.runtime.model's."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from core.crypto import TokensUnreadable
from core.models import ModelEndpoint, Organization

# What the form offers for each Roadstar model id on an OpenAI endpoint: the cheap one for simple, repetitive work,
# the default, and two for harder judgement (spec/reference/models.md's "when to pick it"). Any endpoint's own names
# go in their place.
DEFAULT_NAMES = {
    "gpt-6-luna": "gpt-4.1-mini",
    "gpt-6.1-terra": "gpt-4.1",
    "gpt-6.1-sol": "o4-mini",
    "gpt-6-astra": "o3",
}
NAME_LIMIT = 100
URL_LIMIT = 500
KEY_LIMIT = 500


@dataclass(frozen=True)
class Endpoint:
    base_url: str | None
    api_key: str | None
    names: tuple[tuple[str, str], ...]  # (Roadstar id, the endpoint's name), hashable for the client's cache

    def name_of(self, model_id: str) -> str:
        return dict(self.names).get(model_id) or settings.ROADSTAR_MODELS[model_id]["name"]


@dataclass(frozen=True)
class FromEnvironment:
    """What the server's environment sets: the page shows these fields as set there, and doesn't change them."""

    base_url: bool
    api_key: bool
    names: frozenset[str]


def from_environment() -> FromEnvironment:
    return FromEnvironment(
        base_url=bool(settings.OPENAI_BASE_URL), api_key=bool(settings.OPENAI_API_KEY),
        names=frozenset(i for i, c in settings.ROADSTAR_MODELS.items() if c.get("from_env")),
    )


def saved_endpoint(org: Organization | None) -> ModelEndpoint | None:
    if org is None:
        return None
    return ModelEndpoint.objects.filter(organization_id=getattr(org, "id", org)).first()


def endpoint_for(org: Organization | None) -> Endpoint | None:
    """The endpoint the workspace's model calls go to; None: no model is connected (neither the environment nor
    the owner set one). With no workspace (a command run for the server), the environment's only."""
    saved = saved_endpoint(org)
    key = settings.OPENAI_API_KEY
    if not key and saved is not None:
        try:
            key = saved.read_key() or None
        except TokensUnreadable:  # the server's secret changed: as if no key were saved, and the page says so
            key = None
    base_url = settings.OPENAI_BASE_URL or (saved.base_url if saved is not None else "") or None
    if not (key or base_url):
        return None
    names = {} if saved is None else dict(saved.names or {})
    mapped = tuple(
        (model_id, config["name"] if config.get("from_env") else (names.get(model_id) or config["name"]))
        for model_id, config in settings.ROADSTAR_MODELS.items()
    )
    return Endpoint(base_url=base_url, api_key=key, names=mapped)
