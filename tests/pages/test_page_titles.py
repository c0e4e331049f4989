"""Every owner page is titled one way: what it shows, from the most to the least specific, then its section (a
name of the nav bar, so the tab says where in Roadstar it is), then Roadstar. "Juniper Dental · Companies ·
Roadstar"."""

import re

import pytest
from django.urls import reverse

from agents import services as agent_services

SECTIONS = ("Home", "Chats", "Contacts", "Companies", "Docs", "Agents", "Routines", "Workspace", "Research",
            "Newsfeed", "Tables", "Connections", "Help", "Settings")
PATTERN = re.compile(r"^(?:[^·<>{}]+ · )*(?:" + "|".join(SECTIONS) + r") · Roadstar$")


def title_of(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return re.search(r"<title>(.*?)</title>", response.content.decode(), re.S).group(1).strip()


@pytest.fixture
def thread(ws):
    return agent_services.thread_start(agent=ws.agent, title="Juniper signage")


def pages(ws, thread) -> dict[str, str]:
    """Each owner page, with the title it should have."""
    return {
        reverse("home"): "Home · Roadstar",
        reverse("model_settings"): "AI model · Settings · Roadstar",
        reverse("chat", args=[ws.agent.id]): "Client desk · Chats · Roadstar",
        reverse("thread", args=[ws.agent.id, thread.id]): "Juniper signage · Client desk · Chats · Roadstar",
        reverse("pages:contacts"): "Contacts · Roadstar",
        reverse("pages:contact", args=[ws.contact.id]): "Dana Whitfield · Contacts · Roadstar",
        reverse("pages:companies"): "Companies · Roadstar",
        reverse("pages:company", args=[ws.company.id]): "Dana Dental · Companies · Roadstar",
        reverse("pages:docs"): "Docs · Roadstar",
        reverse("pages:research_pages"): "Research · Roadstar",
        reverse("pages:docs") + f"?project={ws.project.id}": "Dana rebrand · Docs · Roadstar",
        reverse("pages:doc", args=[ws.doc.id]): "Dana rebrand quote · Docs · Roadstar",
        reverse("pages:agents"): "Agents · Roadstar",
        reverse("pages:routines"): "Routines · Roadstar",
        reverse("pages:workspace"): "Workspace · Roadstar",
        reverse("pages:newsfeed"): "Newsfeed · Roadstar",
        reverse("pages:tables"): "Tables · Roadstar",
        reverse("integrations:index"): "Connections · Roadstar",
        reverse("integrations:connect", args=["google"]): "Connect Gmail, Drive and Calendar · Connections · Roadstar",
        reverse("mcp_server:index"): "AI apps · Connections · Roadstar",
    }


def test_every_owner_page_has_its_title(owner, ws, thread):
    for url, expected in pages(ws, thread).items():
        assert title_of(owner, url) == expected, url


def test_every_title_follows_the_one_pattern(owner, ws, thread):
    for url in pages(ws, thread):
        title = title_of(owner, url)
        assert PATTERN.match(title), f"{url}: {title!r}"


def test_a_name_with_markup_stays_text_in_the_title(owner, ws):
    ws.company.name = "<b>Ortiz</b> & Sons"
    ws.company.save(update_fields=["name"])
    body = owner.get(reverse("pages:company", args=[ws.company.id])).content.decode()
    assert "<title>&lt;b&gt;Ortiz&lt;/b&gt; &amp; Sons · Companies · Roadstar</title>" in body
