"""An ask on Home says what it asks: the action itself (who an email goes to, its subject and text; the field with
its old and new value; the doc it would write over), and why it waits, said to the owner. The check's reason stays
word for word in what agents and the API read."""

from __future__ import annotations

import pytest
from django.urls import reverse

from agents import services as agent_services
from checks import reasons
from checks.models import Ask, CheckDecision
from home import ask_words
from records.models import ContactEmail
from tests.factories import AgentFactory, ContactFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk")


def held(org, agent, *, tool, input, replaces=None, reason=reasons.NOT_NAMED, fp="f"):
    thread = agent_services.thread_start(agent=agent, title=f"Thread {fp}")
    decision = CheckDecision.objects.create(
        organization=org, tool=tool, input=input, replaces=replaces, outcome="ask", reason=reason,
        decided_by="rules", fingerprint=fp, actor_kind="agent", actor_id=str(agent.id), conversation_id=str(thread.id),
    )
    return Ask.objects.create(organization=org, fingerprint=fp, decision=decision)


def home(client, org):
    client.force_login(org.owner)
    return client.get(reverse("home")).content.decode()


def test_a_held_email_shows_who_it_goes_to_its_subject_and_text(client, org, desk):
    held(org, desk, tool="mail.send", input={"to": ["rosa@ortizbakery.test"], "cc": ["li@ortizbakery.test"],
                                             "subject": "Our rates for 2027",
                                             "text": "Hi Rosa,\nOur new rates: $95/h."})
    html = home(client, org)
    assert all(part in html for part in (
        "Send this email", "rosa@ortizbakery.test", "li@ortizbakery.test", "Our rates for 2027", "<details>",
        "Our new rates: $95/h.",
    )), html


def test_it_speaks_to_the_owner_but_the_reason_stays_word_for_word_for_agents(client, org, desk):
    ask = held(org, desk, tool="mail.send", input={"to": ["rosa@ortizbakery.test"], "subject": "s", "text": "t"})
    html = home(client, org)
    assert "someone you haven&#x27;t named" in html and "the owner hasn" not in html
    assert Ask.objects.get(id=ask.id).decision.reason == "it goes to someone the owner hasn't named"


def test_a_quote_to_someone_the_owner_knows_isnt_explained_as_to_someone_they_havent_named(client, org, desk):
    dana = ContactFactory(organization=org, name="Dana Whitfield")
    ContactEmail.objects.create(organization=org, contact=dana, email="dana@juniperdental.test", position=0)
    held(org, desk, tool="mail.send", input={"to": ["Dana@juniperdental.test"], "subject": "Your quote",
                                             "text": "It's $8,400."}, fp="known")
    held(org, desk, tool="mail.send", input={"to": ["dana@juniperdental.test", "new@elsewhere.test"],
                                             "subject": "Both", "text": "t"}, fp="mixed")
    html = home(client, org)
    assert "It waits for your yes before it goes on: it is for Dana Whitfield, and you haven&#x27;t said yet " \
           "that it can go." in html
    assert html.count("before it goes on: it goes to someone you haven&#x27;t named") == 1  # it reaches a stranger


def test_a_change_shows_the_field_its_old_value_and_its_new_one(client, org, desk):
    held(org, desk, tool="contacts.update", input={"contactId": "c1", "phone": "+1 555 0199", "jobTitle": "Owner"},
         replaces={"name": "Dana Whitfield", "phone": "+1 555 0100"}, reason=reasons.REMOVES)
    html = home(client, org)
    assert all(part in html for part in (
        "Change a contact: Dana Whitfield", "Phone", "<s>+1 555 0100</s>", "+1 555 0199", "Job title", "Owner",
        "something you didn&#x27;t point to",
    )), html


def test_a_rewrite_names_what_it_writes_over_and_shows_before_and_after(client, org, desk):
    held(org, desk, tool="docs.write", input={"docId": "d1", "title": "Rates", "text": "New rates\n- $95/h"},
         replaces={"doc": "Rates 2026", "text": "Old rates\n- $80/h"}, reason=reasons.REMOVES)
    html = home(client, org)
    assert all(part in html for part in (
        "It would write over <strong>Rates 2026</strong>", "Old rates", "$80/h", "New rates", "$95/h",
    )), html


def test_context_shows_the_context_it_replaces():
    action = ask_words.describe(
        tool="contacts.context",
        input={"contactId": "c", "text": "Prefers calls", "why": "Said so"},
        replaces={"name": "Dana", "context": "Prefers email"},
    )
    assert [(r.label, r.old, r.new) for r in action.rows] == [
        ("Text", "Prefers email", "Prefers calls"), ("Why", "", "Said so"),
    ]


def test_every_reason_has_words_for_the_owner_and_none_says_the_owner():
    spoken = [ask_words.reason_for_owner(r) for r in reasons.PRIORITY]
    assert len(set(spoken)) == len(reasons.PRIORITY) and not any("the owner" in s for s in spoken)


def test_every_checked_tool_is_said_in_the_owners_words_never_by_its_tool_name():
    from tools import registry

    checked = {name for name, tool in registry.TOOLS.items() if tool.owners_yes != "No"}
    assert checked <= set(ask_words.WHAT), checked - set(ask_words.WHAT)
    action = ask_words.describe(tool="apps.crm_update", input={"name": "Dana"})
    assert action.what == "Do this" and "apps." not in action.what


def test_a_page_request_ask_reads_ask_for_a_research_page(client, org, desk):
    held(org, desk, tool="pages.request", input={"question": "How many coffee shops?"}, reason=reasons.UNDECIDED)
    html = home(client, org)
    assert "Ask for a research page" in html and "pages.request" not in html


def test_attachments_are_named_never_shown_as_raw_ids(client, org, desk):
    held(org, desk, tool="mail.send", input={
        "to": ["rosa@ortizbakery.test"], "subject": "Files", "text": "Attached.",
        "attach": [{"workspace": "out/quote-juniper.pdf"}, {"attachment": "7c41e2d0:1MWjq8Zx0"},
                   {"file": "1AbCdEf"}]})
    html = home(client, org)
    assert "quote-juniper.pdf, an attachment of the email it answers, a file from your Drive" in html
    assert "7c41e2d0" not in html and "1MWj" not in html and "1AbCdEf" not in html
