"""spec/use-cases/contacts-from-mail.md end to end on a local mailbox (search is not built, so mail.search does
the job, as the page says it can): what Sam sees."""

import datetime
import json

import pytest

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.scheduler import drain
from core.models import Change
from integrations.local.mailbox import Incoming, message_store
from integrations.services import connection_create_local
from records.models import Company, Contact
from tests.factories import ContactFactory
from tests.use_cases.staff_script import StaffScript

SAM = "Can you fill Contacts from my email? Just real people I work with, no newsletters."
SENT = [
    ("dana@juniperdental.test", "Rebrand quote", 3),
    ("rosa@ortizbakery.test", "Menu boards", 2),
    ("marco@ruizprint.test", "Catalogue proofs", 1),
]


@pytest.fixture
def mailbox(org, settings, tmp_path):
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    day = datetime.datetime(2026, 10, 1, 14, 0, tzinfo=datetime.UTC)
    for address, subject, times in SENT:
        for i in range(times):
            message_store(connection, Incoming(sender="Sam Rivera <sam@fernhill.test>", to=[address],
                                               subject=f"{subject} {i}", text="Hi,\n\nSam",
                                               date=day + datetime.timedelta(days=i), box="sent"))
    message_store(connection, Incoming(sender="Rosa Ortiz <rosa@ortizbakery.test>", to=["sam@fernhill.test"],
                                       subject="Re: Menu boards", date=day + datetime.timedelta(days=5), box="inbox",
                                       text="Lovely, thanks!\n\nRosa Ortiz\nOwner, Ortiz Bakery\n+1 555 0142"))
    return connection


def test_filling_contacts_from_mail_end_to_end(org, mailbox):
    desk = Agent.objects.create(organization=org, name="Client desk", job="Answers new and current clients")
    ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    found = {}

    def save_them(request):
        search = json.loads([m for m in request["messages"] if m["role"] == "tool"][0]["content"])
        found["search"] = search
        return call("use_tool", {"name": "contacts.add_many", "input": {"people": [
            {"name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "jobTitle": "Practice manager",
             "company": "Juniper Dental", "labels": ["Client"]},
            {"name": "Rosa Ortiz", "emails": ["rosa@ortizbakery.test"], "jobTitle": "Owner", "phone": "+1 555 0142",
             "company": "Ortiz Bakery", "labels": ["Client"]},
            {"name": "Marco Ruiz", "emails": ["marco@ruizprint.test"], "jobTitle": "Print manager",
             "company": "Ruiz Print Co.", "labels": ["Supplier"]},
        ]}})

    staff = StaffScript()
    staff.on("Client desk", "chat",
             call("start_thread", {"title": "Contacts from mail", "task": "Fill Contacts with the people Sam writes "
                                   "to, from Sam's sent mail. Real people only: no newsletters or automated mail."}),
             say("Started a thread to fill Contacts from your sent mail."))
    staff.on("Client desk", "Contacts from mail",
             call("use_tool", {"name": "mail.search", "input": {"query": "in:sent", "after": "2026-05-01",
                                                                 "limit": 20}}),
             call("use_tool", {"name": "mail.search", "input": {"query": "from:rosa@ortizbakery.test"}}),
             save_them,
             say("Added 2 people to Contacts from your sent mail since May. Dana Whitfield was already there."))
    set_model(staff)
    try:
        agent_services.owner_message_send(org=org, agent=desk, text=SAM)
        drain(org_id=org.id)
    finally:
        set_model(None)

    # counts.people says who Sam writes to most, most first.
    assert list(found["search"]["counts"]["people"].items()) == [(a, n) for a, _, n in SENT]
    thread = Conversation.objects.get(agent=desk, title="Contacts from mail")
    saved = json.loads(Message.objects.filter(conversation=thread, role="tool").last().text)
    assert [p["name"] for p in saved["added"]] == ["Rosa Ortiz", "Marco Ruiz"]
    assert [p["email"] for p in saved["existing"]] == ["dana@juniperdental.test"]
    # What Sam sees: the new people and their companies, on Home, and the thread's answer.
    assert Contact.objects.get(organization=org, name="Rosa Ortiz").phone == "+1 555 0142"
    assert {"Ortiz Bakery", "Ruiz Print Co."} <= set(
        Company.objects.filter(organization=org).values_list("name", flat=True)
    )
    # The page's answer says the added contacts show "on Home with Undo"; the tools page, the reference, lists
    # contacts.add_many "listed on Home", without Undo (tests/tools/test_registry.py holds the declaration to it).
    # The build follows the tools page: the line is on Home, and no Undo is offered for it.
    added = Change.objects.get(tool="contacts.add_many")
    assert (added.listing, added.undo, added.can_undo) == ("home", None, False)
    chat = agent_services.chat_for(agent=desk)
    assert (
        Message.objects.filter(conversation=chat, role="answer")
        .last()
        .text.endswith("Dana Whitfield was already there.")
    )


def test_home_lists_the_contacts_added_from_mail_without_undo(org, client):
    from core.actors import Actor
    from core.context import ToolContext
    from tools import registry
    from tools.pipeline import use_tool

    desk = Agent.objects.create(organization=org, name="Client desk", job="Answers new and current clients")
    assert registry.get_tool("contacts.add_many").describe()["your_work"] == "listed on Home"
    use_tool(ToolContext(org=org, actor=Actor.for_agent(desk)), "contacts.add_many", {"people": [
        {"name": "Rosa Ortiz", "emails": ["rosa@ortizbakery.test"], "company": "Ortiz Bakery"}]})
    change = Change.objects.get(tool="contacts.add_many")
    client.force_login(org.owner)
    page = client.get("/").content.decode()
    assert f'data-key="change-{change.id}"' in page and f"/changes/{change.id}/undo" not in page
