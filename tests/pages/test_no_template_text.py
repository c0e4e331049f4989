"""No owner page shows template text: every page, with records, a held email, an ask, a card and a chat in it,
renders without a `{#`, `{%` or `{{` left over (a multi-line `{# #}` is not a Django comment and shows as is)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from agents import services as agent_services
from agents.models import Message
from checks.models import Ask, CheckDecision
from core.actors import Actor
from core.context import ToolContext
from core.models import Card
from integrations.services import connection_create_local
from tests.pages.conftest import run

pytestmark = pytest.mark.django_db

LEFT_OVER = re.compile(r"\{[#%{]")


@pytest.fixture
def full(ws, settings, tmp_path):
    """ws, plus what Home and the chats show: a held email, an ask, a card, a chat with a note and a reply."""
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    org, agent = ws.org, ws.agent
    connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-mail")
    run(ctx, "mail.send", to=["dana@juniperdental.test"], subject="Your quote", text="Hi Dana,\n\nThe quote.")
    thread = agent_services.thread_start(agent=agent, title="Dana's record")
    decision = CheckDecision.objects.create(
        organization=org, tool="contacts.context", outcome="ask", reason="it goes to someone the owner hasn't named",
        decided_by="rules", fingerprint="f1", actor_kind="agent", actor_id=str(agent.id),
        conversation_id=str(thread.id),
    )
    Ask.objects.create(organization=org, fingerprint="f1", decision=decision)
    Card.objects.create(organization=org, kind="connect", title="Connect your mail", subject="app:mail")
    chat = agent_services.chat_for(agent=agent)
    agent_services.message_append(conversation=chat, role=Message.Role.OWNER, text="How is Dana's quote going?")
    agent_services.message_append(conversation=chat, role=Message.Role.AGENT, text="Sent; she replies Friday.")
    return ws


def owner_pages(ws) -> list[str]:
    return [
        reverse("home"),
        reverse("home_live"),
        reverse("chat", args=[ws.agent.id]),
        reverse("chat_live", args=[ws.agent.id]),
        reverse("pages:contacts"),
        reverse("pages:contact", args=[ws.contact.id]),
        reverse("pages:companies"),
        reverse("pages:company", args=[ws.company.id]),
        reverse("pages:docs"),
        reverse("pages:doc", args=[ws.doc.id]),
        reverse("pages:doc_version", args=[ws.doc.id, 1]),
        reverse("pages:agents"),
        reverse("pages:routines"),
        reverse("pages:newsfeed"),
        reverse("integrations:index"),
        reverse("integrations:connect", args=["google"]),
        reverse("mcp_server:index"),
    ]


def test_no_owner_page_shows_template_text(owner, full):
    leftovers = {}
    for url in owner_pages(full):
        response = owner.get(url)
        assert response.status_code == 200, url
        found = LEFT_OVER.findall(response.content.decode())
        if found:
            leftovers[url] = found
    assert leftovers == {}


def test_home_shows_the_held_email_without_its_comment(owner, full):
    html = owner.get(reverse("home")).content.decode()
    assert "Client desk is sending Dana Whitfield" in html and "Something that waits" not in html
