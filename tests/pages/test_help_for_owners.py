"""Help for owners: a plain Getting started (no variable names, schedule lines or "judge model"), every section's
own address answers with its pages, and an agent's record link reaches the owner as a link to the record, never
as a `roadstar:contact/<id>` address."""

import html
import re

import pytest

from agents import services as agent_services
from agents.models import Message
from tools.help.library import SECTIONS, library


def test_getting_started_is_plain_words_for_the_owner(client, db):
    response = client.get("/help/getting-started/")
    assert response.status_code == 200
    text = html.unescape(response.content.decode())
    for heading in ("Connect an AI model", "Connect Google and QuickBooks", "What waits for you on Home",
                    "Your work, and Undo"):
        assert heading in text
    assert not re.search(r"\b[A-Z][A-Z0-9]+_[A-Z0-9_]+\b", text)  # no OPENAI_API_KEY-style names
    assert "judge" not in text.lower() and "cron" not in text.lower()
    assert not re.search(r"\d+ \d+ \* \* ", text)  # no schedule lines


def test_getting_started_is_listed_under_start_here(client, db):
    text = html.unescape(client.get("/help/").content.decode())
    assert 'href="/help/getting-started/"' in text


@pytest.mark.parametrize("section", [key for key in SECTIONS if key])
def test_every_sections_own_address_answers_with_its_pages(client, db, section):
    response = client.get(f"/help/{section}/")
    assert response.status_code == 200, section
    text = html.unescape(response.content.decode())
    for page in [p for p in library() if p.section == section][:5]:
        assert f'href="/help{page.address}"' in text
    assert client.get(f"/help/{section}.md").status_code == 200


def test_an_address_that_is_no_section_is_still_not_found(client, db):
    assert client.get("/help/nothing-here/").status_code == 404


def test_an_agents_record_link_is_a_link_to_the_record_in_the_chat(owner, org, agent):
    from tests.factories import ContactFactory

    dana = ContactFactory(organization=org, name="Dana Whitfield")
    chat = agent_services.chat_for(agent=agent)
    agent_services.message_append(
        conversation=chat, role=Message.Role.AGENT,
        text=f"I added [Dana Whitfield](roadstar:contact/{dana.id}) and noted roadstar:email/abc123 <b>x</b>.",
    )
    body = owner.get(f"/chat/{agent.id}/").content.decode()
    assert "roadstar:" not in body
    assert f'<a href="/contacts/{dana.id}/">Dana Whitfield</a>' in body
    assert "noted the email" in body and "&lt;b&gt;x&lt;/b&gt;" in body  # the rest escaped as before
