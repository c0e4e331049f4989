"""Where the owner types into a limited field (a doc note, an answer on Home, a chat message), the page shows the
limit, and a refusal keeps what was typed and says what was wrong. Nothing is ever cut."""

import html
import re

import pytest
from django.urls import reverse

from agents.models import Message
from core import limits
from core.actors import Actor
from core.models import Card
from docs import services as doc_services
from records.models import DocNote, Project
from tests.factories import AgentFactory


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk", job="Answers new and current clients")


@pytest.fixture
def owner(client, org):
    client.force_login(org.owner)
    return org.owner


@pytest.fixture
def doc(org, desk):
    project = Project.objects.create(organization=org, name="Juniper rebrand")
    version = doc_services.doc_write(org=org, actor=Actor.for_agent(desk), title="Juniper quote", text="## Scope\n",
                                     project=project)
    return version.doc


def box(page: str, field_id: str) -> str:
    """What a textarea holds, as the browser would show it."""
    found = re.search(rf'<textarea id="{field_id}"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, f"no textarea {field_id}"
    return html.unescape(found.group(1))


def test_the_doc_note_shows_its_limit_and_is_never_cut(client, owner, doc):
    page = client.get(reverse("pages:doc", args=[doc.id])).content.decode()
    assert 'data-limit="4000"' in page and "Up to 4,000 characters" in page and "maxlength" not in page


def test_a_note_too_long_comes_back_with_what_was_typed(client, owner, doc):
    typed = "Change the <logo> price & the date. " * 120  # 4,320 characters
    response = client.post(reverse("pages:doc_note", args=[doc.id]), {"note": typed.strip(), "on": "Scope"})
    page = response.content.decode()
    assert response.status_code == 400 and not DocNote.objects.exists()
    assert box(page, "note-text") == typed.strip()
    assert 'value="Scope"' in page and "Your note is 4,319 characters; a note holds up to 4,000." in page


def test_a_chat_message_too_long_comes_back_in_the_box(client, owner, desk):
    typed = "w" * (limits.MESSAGE + 5)
    response = client.post(reverse("chat", args=[desk.id]), {"text": typed})
    page = response.content.decode()
    assert response.status_code == 400 and box(page, "chat-text") == typed
    assert "That is 20,005 characters; a message here holds up to 20,000. Shorten it, or put the long part in a " \
           "doc; nothing was sent." in page
    assert not Message.objects.filter(role="owner").exists()


def test_a_chat_message_at_the_limit_is_kept_whole(client, owner, desk):
    typed = "w" * limits.MESSAGE
    client.post(reverse("chat", args=[desk.id]), {"text": typed})
    assert Message.objects.get(role="owner").text == typed


def test_the_web_chat_takes_what_the_api_takes(client, owner, desk):
    # One limit for a message, whichever way it comes: a long message the REST API and the service take (once
    # past the web's old 4,000) goes from the chat page too.
    typed = "Notes from the call: " + "w" * 6_000
    response = client.post(reverse("chat", args=[desk.id]), {"text": typed})
    assert response.status_code == 302 and Message.objects.get(role="owner").text == typed


def test_the_chat_box_shows_its_limit(client, owner, desk):
    page = client.get(reverse("chat", args=[desk.id])).content.decode()
    assert f'data-limit="{limits.MESSAGE}"' in page and "Up to 20,000 characters" in page
    assert 'id="chat-text-count"' in page and "/static/roadstar/limits.js" in page


def test_an_answer_on_a_card_too_long_comes_back_on_home(client, owner, org, desk):
    card = Card.objects.create(organization=org, kind=Card.Kind.ASK, subject="ask:1", title="Client desk asks",
                               data={"agent_id": str(desk.id)})
    typed = "Yes, but " + "x" * limits.MESSAGE
    response = client.post(reverse("card_answer", args=[card.id]), {"answer": typed, "next": "/"})
    page = response.content.decode()
    assert response.status_code == 400 and box(page, f"answer-{card.id}") == typed
    assert "a message here holds up to 20,000" in page and "nothing was sent" in page
    card.refresh_from_db()
    assert card.resolved_at is None and not Message.objects.exists()


def test_home_answers_show_their_limit(client, owner, org, desk):
    card = Card.objects.create(organization=org, kind=Card.Kind.ASK, subject="ask:1", title="Client desk asks",
                               data={"agent_id": str(desk.id)})
    page = client.get(reverse("home")).content.decode()
    assert f'id="answer-{card.id}-count"' in page and "Up to 20,000 characters" in page
