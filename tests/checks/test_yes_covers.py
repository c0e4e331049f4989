"""A yes covers the action it answered, not its neighbours (issue 11, item 6), through use_tool as an agent runs it:
the owner's yes to one email to Dana lets that email go once; a different email to Dana, or the same one again,
asks again. The same for a change: a yes to one value is not a yes to another."""

from __future__ import annotations

import pytest

from checks import reasons
from checks.models import Ask, CheckDecision
from checks.services import ask_answer
from core.actors import Actor
from core.context import ToolContext
from integrations.local.models_mail import HeldEmail
from integrations.services import connection_create_local
from records.models import Contact
from tests.factories import AgentFactory, ContactFactory
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

THANKS = {"to": ["dana@juniperdental.test"], "subject": "Thank you",
          "text": "Hi Dana,\n\nThanks for sending Rosa our way.\n\nSam"}
QUOTE = {"to": ["dana@juniperdental.test"], "subject": "Your quote",
         "text": "Hi Dana,\n\nThe rebrand comes to $8,400, ready in five weeks.\n\nSam"}


@pytest.fixture
def ctx(org):
    org.check_enabled = True
    org.save(update_fields=["check_enabled"])
    connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    agent = AgentFactory(organization=org, name="Client desk")
    # The owner's words name no one: every send here needs an answered ask.
    words = [{"role": "owner", "text": "Go through today's mail and deal with what you can."}]
    return ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-3", conversation=lambda: words)


def yes_to_the_last_ask(org):
    ask = Ask.objects.filter(organization=org, state=Ask.State.WAITING).latest("created_at")
    ask_answer(org=org, ask_id=ask.id, yes=True, text="Yes, send it")
    return ask


def test_the_email_the_owner_said_yes_to_goes(ctx):
    assert "not_done_yet" in use_tool(ctx, "mail.send", THANKS)
    yes_to_the_last_ask(ctx.org)
    assert use_tool(ctx, "mail.send", THANKS)["held"]["to"] == ["dana@juniperdental.test"]


def test_a_yes_to_one_email_to_dana_does_not_let_a_different_one_go(ctx):
    use_tool(ctx, "mail.send", THANKS)
    yes_to_the_last_ask(ctx.org)
    out = use_tool(ctx, "mail.send", QUOTE)
    assert ("not_done_yet" in out, HeldEmail.objects.count()) == (True, 0)
    assert CheckDecision.objects.latest("created_at").reason == reasons.NOT_NAMED


@pytest.mark.parametrize("change", [{"subject": "Thanks again"}, {"text": "Hi Dana, thanks! The quote is $8,400."},
                                    {"cc": ["greg@juniperdental.test"]}],
                         ids=["subject", "text", "cc"])
def test_a_yes_does_not_cover_the_same_email_with_anything_changed(ctx, change):
    use_tool(ctx, "mail.send", THANKS)
    yes_to_the_last_ask(ctx.org)
    assert "not_done_yet" in use_tool(ctx, "mail.send", THANKS | change)


def test_a_yes_is_used_once(ctx):
    use_tool(ctx, "mail.send", THANKS)
    ask = yes_to_the_last_ask(ctx.org)
    use_tool(ctx, "mail.send", THANKS)
    again = use_tool(ctx, "mail.send", THANKS)
    ask.refresh_from_db()
    assert ("not_done_yet" in again, HeldEmail.objects.count(), ask.used_by.outcome) == (True, 1, "go")


def test_the_same_email_with_addresses_written_otherwise_is_the_same_action(ctx):
    use_tool(ctx, "mail.send", THANKS)
    yes_to_the_last_ask(ctx.org)
    out = use_tool(ctx, "mail.send", THANKS | {"to": ["Dana@JuniperDental.test"]})
    assert "held" in out, out


def test_a_yes_to_one_value_is_not_a_yes_to_another(ctx):
    dana = Contact.objects.get(name="Dana Whitfield")
    dana.phone = "503-555-0100"
    dana.save(update_fields=["phone"])
    assert "not_done_yet" in use_tool(ctx, "contacts.update", {"contactId": str(dana.id), "phone": "503-555-0101"})
    yes_to_the_last_ask(ctx.org)
    out = use_tool(ctx, "contacts.update", {"contactId": str(dana.id), "phone": "503-555-0199"})
    dana.refresh_from_db()
    assert ("not_done_yet" in out, dana.phone) == (True, "503-555-0100")


def test_an_id_written_in_capitals_is_the_same_change(ctx):
    dana = Contact.objects.get(name="Dana Whitfield")
    dana.phone = "503-555-0100"
    dana.save(update_fields=["phone"])
    use_tool(ctx, "contacts.update", {"contactId": str(dana.id), "phone": "503-555-0101"})
    yes_to_the_last_ask(ctx.org)
    out = use_tool(ctx, "contacts.update", {"contactId": str(dana.id).upper(), "phone": "503-555-0101"})
    dana.refresh_from_db()
    assert ("not_done_yet" not in out, dana.phone) == (True, "503-555-0101")
