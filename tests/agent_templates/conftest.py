import pytest

from agent_templates import services
from core.actors import Actor


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def propose(org, agent):
    """An agent's propose_add, as the tool makes it: the card waiting on Home."""

    def make(template_id, *, answers=None, under=None, to=None, why="It fits the work you described."):
        card, _ = services.template_propose_add(
            org=org, actor=Actor.for_agent(agent), template_id=template_id,
            answers={k: {"value": v, "found": "the owner's signature"} for k, v in (answers or {}).items()},
            under=under, to=to, why=why,
        )
        return card

    return make
