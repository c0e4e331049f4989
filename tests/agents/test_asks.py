"""An ask and the owner's yes, end to end: held back, asked in the reply, answered in the chat, run again."""

import json

import pytest

from agents import services
from agents.models import Conversation, Message
from agents.runtime.model import call, say
from agents.runtime.scheduler import drain
from checks.models import CheckDecision
from records.models import Contact
from tests.factories import ContactFactory

ASK = "Set Dana's Context to “Prefers a call to email”? She said so on the phone."


@pytest.mark.parametrize("yes", ["Yes, change her Context to prefers a call to email.", "Yes, do it."])
def test_held_back_then_asked_then_the_owners_yes_lets_the_same_action_go(org, staff, model, yes):
    desk = staff["Client desk"]
    dana = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"],
                          context="Email is fine for anything.")
    context = {"name": "contacts.context",
               "input": {"contactId": str(dana.id), "text": "Prefers a call to email", "why": "She said so."}}
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Keep Dana's record up to date"}),
        say("Started a thread on Juniper Dental."),
        call("use_tool", context),  # held back: nothing the owner said asks for it
        say(ASK),
    )
    services.owner_message_send(org=org, agent=desk, text="Keep Dana's record up to date.")
    drain(org_id=org.id)
    thread = Conversation.objects.get(kind="thread", title="Juniper Dental")
    held = json.loads(Message.objects.filter(conversation=thread, role="tool").last().text)
    assert held["not_done_yet"].startswith("Check with Sam first:")
    assert Contact.objects.get(id=dana.id).context == "Email is fine for anything."
    # The ask reaches Sam in Client desk's chat, as the thread's answer.
    chat = services.chat_for(agent=desk)
    assert Message.objects.filter(conversation=chat, role="answer").last().text.endswith(ASK)

    model.add(
        call("message_thread", {"thread": "Juniper Dental", "task": "Sam says yes: set Dana's Context as you asked."}),
        say("Sent Sam's yes to the Juniper Dental thread."),
        call("use_tool", context),  # the same action, run again
        say("Dana's Context now says she prefers a call."),
    )
    services.owner_message_send(org=org, agent=desk, text=yes)
    drain(org_id=org.id)
    assert Contact.objects.get(id=dana.id).context == "Prefers a call to email"
    decisions = list(CheckDecision.objects.filter(tool="contacts.context").order_by("created_at")
                     .values_list("outcome", flat=True))
    assert decisions == ["ask", "go"]


def test_a_no_keeps_the_action_held_back(org, staff, model):
    desk = staff["Client desk"]
    dana = ContactFactory(organization=org, name="Dana Whitfield", context="Email is fine for anything.")
    context = {"name": "contacts.context",
               "input": {"contactId": str(dana.id), "text": "Prefers a call to email", "why": "She said so."}}
    model.add(
        call("start_thread", {"title": "Juniper Dental", "task": "Keep Dana's record up to date"}), say("Started."),
        call("use_tool", context), say(ASK),
        call("message_thread", {"thread": "Juniper Dental", "task": "Sam says no."}), say("Passed on."),
        call("use_tool", context), say("Left it as it was."),
    )
    services.owner_message_send(org=org, agent=desk, text="Keep Dana's record up to date.")
    drain(org_id=org.id)
    services.owner_message_send(org=org, agent=desk, text="No, leave her Context as it is.")
    drain(org_id=org.id)
    assert Contact.objects.get(id=dana.id).context == "Email is fine for anything."
