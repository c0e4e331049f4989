"""A research page that couldn't be written is said where it was asked for: in the chat whose pages.request made
it, and on Home (a card that opens the page), not only on /research/. The notice is news for the agent, not its
reply: what the owner wrote before it still waits for an answer."""

import html
import json

import pytest

from agents import research_writer
from agents import services as agent_services
from agents.models import Message
from agents.runtime.messages import PromptMessages
from agents.runtime.model import ModelResponse
from agents.runtime.sql_storage import has_new_input
from core.actors import Actor
from core.context import ToolContext
from core.models import Card
from research.models import ResearchPage
from tests.factories import ProjectFactory
from tests.research_pages.conftest import PLAN
from tools.pipeline import use_tool


@pytest.fixture
def asked_in_chat(pages_on, agent):
    pages_on.check_enabled = False
    pages_on.save(update_fields=["check_enabled"])
    chat = agent_services.chat_for(agent=agent)
    project = ProjectFactory(organization=pages_on, name="Market research")
    ctx = ToolContext(org=pages_on, actor=Actor.for_agent(agent), conversation_id=str(chat.id))
    result = use_tool(ctx, "pages.request", {"question": "How many coffee shops does the UK have?",
                                              "projectId": str(project.id)})
    return chat, ResearchPage.objects.get(id=result["pageId"])


def test_a_failed_page_is_said_in_the_chat_that_asked_and_on_home(asked_in_chat, web, model, client, pages_on):
    chat, page = asked_in_chat
    web.hits = web.hits[2:]  # only the 404: nothing readable
    model.add(ModelResponse(text=json.dumps(PLAN)))
    assert research_writer.run(str(page.id)) == "failed"

    said = Message.objects.filter(conversation=chat, role=Message.Role.AGENT).last()
    assert said.text.startswith("The research page “How many coffee shops does the UK have?” couldn't be written.")
    assert "Nothing the web search found could be read" in said.text
    [card] = Card.objects.filter(organization=pages_on, subject=f"page_failed:{page.id}", resolved_at__isnull=True)
    assert card.action_url == f"/research/{page.id}/"

    client.force_login(pages_on.owner)
    home = html.unescape(client.get("/").content.decode())
    assert "couldn't be written" in home and f'href="/research/{page.id}/"' in home
    chat_page = html.unescape(client.get(f"/chat/{chat.agent_id}/").content.decode())
    assert "couldn't be written" in chat_page


def test_the_notice_is_news_for_the_agent_not_its_reply(asked_in_chat, web, model):
    chat, page = asked_in_chat
    agent_services.message_append(conversation=chat, role=Message.Role.OWNER, text="And the price of a flat white?")
    web.hits = web.hits[2:]
    model.add(ModelResponse(text=json.dumps(PLAN)))
    research_writer.run(str(page.id))
    assert has_new_input(chat)  # the owner's question still waits
    fed = PromptMessages(owner="Sam")
    fed.feed(Message.objects.filter(conversation=chat).order_by("seq"))
    prompt = fed.messages()
    assert prompt[-1]["role"] == "user" and "Roadstar: The research page" in prompt[-1]["content"]


def test_a_page_that_fails_twice_is_reported_once(asked_in_chat, web, model, pages_on):
    chat, page = asked_in_chat
    web.hits = web.hits[2:]
    model.add(ModelResponse(text=json.dumps(PLAN)))
    research_writer.run(str(page.id))
    assert research_writer.run(str(page.id)) == "not claimed"  # it failed: nothing runs it again
    assert Message.objects.filter(conversation=chat, data__page_failed=str(page.id)).count() == 1
    assert Card.objects.filter(organization=pages_on, subject=f"page_failed:{page.id}").count() == 1
