"""Pages lead where the owner goes next: Connections links the page for outside apps (MCP); an app this server
isn't set up for says so and how, without a Connect button leading to an error; each agent card links its chat
and routines."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_connections_links_the_mcp_page(owner, ws):
    html = owner.get(reverse("integrations:index")).content.decode()
    assert f'href="{reverse("mcp_server:index")}"' in html


def test_an_app_not_set_up_here_says_so_and_offers_no_connect(owner, ws, settings):
    settings.GOOGLE_CLIENT_ID = ""
    settings.GOOGLE_CLIENT_SECRET = ""
    html = owner.get(reverse("integrations:index")).content.decode()
    assert "Not set up on this server" in html
    assert f'href="{reverse("integrations:connect", args=["google"])}"' not in html


def test_each_agent_card_links_its_chat_and_routines(owner, ws):
    html = owner.get(reverse("pages:agents")).content.decode()
    assert f'href="{reverse("chat", args=[ws.agent.id])}"' in html
    assert f'href="{reverse("pages:routines")}#routines-{ws.agent.id}"' in html
