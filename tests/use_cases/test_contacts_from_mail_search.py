"""spec/use-cases/contacts-from-mail.md end to end where search is on, as the page tells it: one search.search over
Sam's sent mail from people gives counts.people, search.read reads the latest thread for a signature, and
contacts.add_many saves them."""

import datetime
import json

import pytest

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.scheduler import drain
from integrations.local.mailbox import Incoming, message_store
from integrations.services import connection_create_local, connection_search_set
from records.models import Contact
from search import sync
from tests.factories import ContactFactory
from tests.use_cases.staff_script import StaffScript

SAM = "Can you fill Contacts from my email? Just real people I work with, no newsletters."
SENT = [
    ("Dana Whitfield", "dana@juniperdental.test", "Rebrand quote", 3),
    ("Rosa Ortiz", "rosa@ortizbakery.test", "Menu boards", 2),
    ("Marco Ruiz", "marco@ruizprint.test", "Catalogue proofs", 1),
]


@pytest.fixture
def mailbox(org, settings, tmp_path):
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    day = datetime.datetime(2026, 10, 1, 14, 0, tzinfo=datetime.UTC)
    for name, address, subject, times in SENT:
        for i in range(times):
            message_store(connection, Incoming(sender="Sam Rivera <sam@fernhill.test>", to=[f"{name} <{address}>"],
                                               subject=f"{subject} {i}", text="Hi,\n\nSam",
                                               date=day + datetime.timedelta(days=i), box="sent",
                                               thread_key="menu" if address.startswith("rosa") else None))
    message_store(connection, Incoming(sender="Rosa Ortiz <rosa@ortizbakery.test>", to=["sam@fernhill.test"],
                                       subject="Re: Menu boards", date=day + datetime.timedelta(days=5), box="inbox",
                                       text="Lovely, thanks!\n\nRosa Ortiz\nOwner, Ortiz Bakery\n+1 555 0142",
                                       thread_key="menu"))
    # A newsletter Sam wrote back to once: bulk mail, left out.
    message_store(connection, Incoming(sender="Sam Rivera <sam@fernhill.test>", to=["news@printweekly.test"],
                                       subject="Unsubscribe me", text="Please", date=day, box="sent"))
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    sync.sweep()
    return connection


def test_filling_contacts_from_mail_through_search(org, mailbox):
    desk = Agent.objects.create(organization=org, name="Client desk", job="Answers new and current clients")
    ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    seen = {}

    def read_rosas_thread(request):
        seen["search"] = json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])
        return call("use_tool", {"name": "search.read", "input": {"id": f"mail:{mailbox.account_key}:t:menu"}})

    def save_them(request):
        seen["read"] = json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])
        return call("use_tool", {"name": "contacts.add_many", "input": {"people": [
            {"name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "labels": ["Client"]},
            {"name": "Rosa Ortiz", "emails": ["rosa@ortizbakery.test"], "jobTitle": "Owner", "phone": "+1 555 0142",
             "company": "Ortiz Bakery", "labels": ["Client"]},
            {"name": "Marco Ruiz", "emails": ["marco@ruizprint.test"], "company": "Ruiz Print Co.",
             "labels": ["Supplier"]},
        ]}})

    staff = StaffScript()
    staff.on("Client desk", "chat",
             call("start_thread", {"title": "Contacts from mail", "task": "Fill Contacts with the people Sam writes "
                                   "to, from Sam's sent mail. Real people only: no newsletters or automated mail."}),
             say("Started a thread to fill Contacts from your sent mail."))
    staff.on("Client desk", "Contacts from mail",
             call("use_tool", {"name": "search.search", "input": {"dir": "sent", "bulk": False,
                                                                   "after": "2026-05-01", "limit": 20}}),
             read_rosas_thread,
             save_them,
             say("Added 2 people to Contacts from your sent mail since May. Dana Whitfield was already there."))
    set_model(staff)
    try:
        agent_services.owner_message_send(org=org, agent=desk, text=SAM)
        drain(org_id=org.id)
    finally:
        set_model(None)

    # counts.people: who Sam writes to most, most first; the newsletter is not among them.
    assert list(seen["search"]["counts"]["people"].items()) == [(f"{n} <{a}>", k) for n, a, _, k in SENT]
    assert seen["search"]["total"] == 6
    # The thread read whole: Rosa's signature, with her phone.
    assert "+1 555 0142" in seen["read"]["text"] and "Menu boards 0" in seen["read"]["text"]
    thread = Conversation.objects.get(agent=desk, title="Contacts from mail")
    saved = json.loads(Message.objects.filter(conversation=thread, role="tool").last().text)
    assert [p["name"] for p in saved["added"]] == ["Rosa Ortiz", "Marco Ruiz"]
    assert Contact.objects.get(organization=org, name="Rosa Ortiz").phone == "+1 555 0142"
