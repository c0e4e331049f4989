"""spec/use-cases/new-client-enquiry.md end to end, on the local mailbox and the scripted model: what Sam sees."""

import datetime
import json

import pytest
from django.utils import timezone

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.scheduler import drain
from companies.models import Company, TimelineEntry
from contacts.models import Contact
from docs.models import Doc
from integrations import mail_hold
from integrations.local.mailbox import Incoming, message_store
from integrations.local.models_mail import LocalMailMessage
from integrations.services import connection_create_local
from core.models import Change
from routines import engine
from routines.models import Event, Routine
from agents.runtime.turn import check_turns
from core.actors import Actor
from tests.factories import ProjectFactory
from core.context import ToolContext
from tools.pipeline import use_tool
from tests.use_cases.staff_script import StaffScript

SAM = "When a new client writes in, answer the same day. Quotes come from the rate card in Drive, and I see every quote before it goes out."
NOTE = "Answer the same day. Quotes come from the rate card in Drive, and Sam sees every quote before it goes out."
ENQUIRY = ("Hi Sam,\n\nWe're opening our second clinic in March and would love a new logo, plus signage for both "
           "locations. Could you send us a quote?\n\nThanks,\nDana Whitfield\nPractice manager, Juniper Dental")
QUOTE = ("## Scope\n\n- Logo and a one-page brand guide\n- Signage for two clinics\n\n## Price\n\n| Item | Price |\n"
         "| --- | ---: |\n| Logo and brand guide | $4,800 |\n| Signage design, two clinics | $3,600 |\n"
         "| **Total** | **$8,400** |\n\nReady in five weeks from a signed quote.")
ASK = "Send Dana the Juniper Dental quote for $8,400? Logo, brand guide and signage for both clinics, ready in five weeks."
REPLY = ("Hi Dana,\n\nThanks for thinking of us. For a new logo with a one-page brand guide, and signage for both "
         "clinics, the price is $8,400, ready five weeks after you sign. Happy to walk through it on a call.\n\nSam")


@pytest.fixture
def mail_root(settings, tmp_path):
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"


def _last_result(request):
    return json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])


def test_a_new_client_enquiry_end_to_end(org, mail_root):
    desk = Agent.objects.create(organization=org, name="Client desk",
                                job="Answers new and current clients, and keeps Contacts and Companies up to date")
    Agent.objects.create(organization=org, name="Proposal writer",
                                  job="Prices and writes proposals and quotes from the rate card")
    project = ProjectFactory(organization=org, name="Juniper Dental rebrand")
    mailbox = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    staff = StaffScript()
    set_model(staff)
    try:
        # What Sam said, and the routine Client desk's chat set from it.
        staff.on("Client desk", "chat", call("triggers", {
            "action": "add", "name": "New client enquiries",
            "when": {"ask": "a new client asking about a project or a quote"}, "note": NOTE,
        }), say("I'll answer new clients the same day, and you'll see every quote first."))
        agent_services.owner_message_send(org=org, agent=desk, text=SAM)
        drain(org_id=org.id)

        # 1. Dana writes; the email matches the routine's words and the run goes to its own thread.
        message_store(mailbox, Incoming(
            sender="Dana Whitfield <dana@juniperdental.test>", to=["sam@fernhill.test"],
            subject="Rebrand for our second clinic", text=ENQUIRY,
            date=datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC), box="inbox"))
        def is_the_enquiry(request):
            # The matching model is offered the workspace's ask routines and names the one the email is for.
            prompt = request["messages"][1]["content"]
            routine = Routine.objects.get(organization=org, name="New client enquiries")
            assert f"{routine.id}: a new client asking about a project or a quote" in prompt
            return say(json.dumps({"matches": [routine.id]}))

        staff.on("*", "summaries", is_the_enquiry)
        event = Event.objects.create(organization=org, kind="mail.received",
                                     keys=["kind:mail.received", "from:dana@juniperdental.test"],
                                     text=f"From: Dana Whitfield\nSubject: Rebrand for our second clinic\n{ENQUIRY}")
        [run] = engine.match_event(event)

        # 2–3. The thread reads the email, records the client, and hands the pricing to Proposal writer.
        def read_mail(request):
            search = _last_result(request)
            return call("use_tool", {"name": "mail.read", "input": {"id": search["hits"][0]["id"]}})

        staff.on("Client desk", "New client enquiries",
                 call("use_tool", {"name": "mail.search", "input": {"query": "from:dana@juniperdental.test"}}),
                 read_mail,
                 call("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}),
                 call("use_tool", {"name": "companies.create", "input": {
                     "name": "Juniper Dental", "domains": ["juniperdental.test"], "labels": ["Lead"]}}),
                 lambda r: call("use_tool", {"name": "contacts.create", "input": {
                     "name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "jobTitle": "Practice manager",
                     "labels": ["Lead"], "companyIds": [_last_result(r)["id"]]}}),
                 lambda r: call("use_tool", {"name": "companies.record", "input": {
                     "companyId": _last_result(r)["companies"][0]["id"], "kind": "mail",
                     "title": "Rebrand quote request",
                     "summary": "Dana asked for a new logo and signage before the second clinic opens in March.",
                     "at": "2026-11-10T10:12:00-05:00", "people": ["dana@juniperdental.test"], "state": "waiting_you"}}),
                 call("hand_off", {"agent": "Proposal writer",
                                   "task": "Price a rebrand for Juniper Dental from the rate card: new logo, and "
                                           "signage for two clinics.",
                                   "notes": "Second clinic opens in March. Dana Whitfield, practice manager, signs off."}),
                 say("Handed the pricing to Proposal writer."),
                 # 5. The answer wakes it; Sam's rule says Sam sees every quote first, so it asks.
                 say(ASK))
        # 4. Proposal writer's chat starts a thread, which writes the quote as a doc.
        staff.on("Proposal writer", "chat",
                 call("start_thread", {"title": "Juniper Dental",
                                       "task": "Price a rebrand for Juniper Dental from the rate card."}),
                 say("Started a thread on Juniper Dental."))
        staff.on("Proposal writer", "Juniper Dental",
                 call("use_tool", {"name": "docs.write", "input": {
                     "projectId": str(project.id), "title": "Juniper Dental rebrand quote", "text": QUOTE,
                     "lines": ["Priced from the 2026 rate card: logo $4,800, signage $3,600."]}}),
                 say("The quote is written: $8,400, ready in five weeks."))
        drain(org_id=org.id)

        enquiries = Conversation.objects.get(agent=desk, kind="thread", title="New client enquiries")
        chat = agent_services.chat_for(agent=desk)
        assert Message.objects.filter(conversation=chat, role="answer").last().text.endswith(ASK)
        assert not LocalMailMessage.objects.filter(connection=mailbox, box="sent").exists()

        # Had the thread sent before asking, the check would have read Sam's rule and held it back.
        early = use_tool(ToolContext(org=org, actor=Actor.for_agent(desk), conversation_id=str(enquiries.id),
                                     conversation=lambda: check_turns(enquiries)),
                         "mail.send", {"to": ["dana@juniperdental.test"], "subject": "Quote", "text": REPLY})
        # (Which reason needs the model judge, which this test runs without: then it asks as unreachable.)
        assert early["not_done_yet"].startswith("Check with Sam first:")
        # 5. Sam answers "Yes, send it" in Client desk's chat; the chat passes it to the thread, which sends.
        staff.on("Client desk", "chat",
                 call("message_thread", {"thread": "New client enquiries",
                                         "task": "Sam says yes: send Dana the Juniper Dental quote as written."}),
                 say("Sending it now."))
        staff.on("Client desk", "New client enquiries",
                 call("use_tool", {"name": "mail.send", "input": {
                     "to": ["dana@juniperdental.test"], "subject": "Re: Rebrand for our second clinic",
                     "text": REPLY}}),
                 say("Sent Dana the quote; it goes after the two-minute Undo."))
        agent_services.owner_message_send(org=org, agent=desk, text="Yes, send it")
        drain(org_id=org.id)
    finally:
        set_model(None)

    sent_result = json.loads(Message.objects.filter(conversation=enquiries, role="tool").last().text)
    assert "held" in sent_result, sent_result
    # What Sam sees: the sent email on Home with Undo for two minutes …
    held_change = Change.objects.get(tool="mail.send")
    assert (held_change.listing, held_change.can_undo) == ("home_undo", True)
    assert not LocalMailMessage.objects.filter(connection=mailbox, box="sent").exists()
    # … then it leaves, once.
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(minutes=3))
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(minutes=4))
    assert LocalMailMessage.objects.filter(connection=mailbox, box="sent").count() == 1
    # Juniper Dental under Companies, with Dana and the conversation on its timeline …
    juniper = Company.objects.get(organization=org, name="Juniper Dental")
    assert Contact.objects.get(organization=org, name="Dana Whitfield").company_links.get().company == juniper
    assert TimelineEntry.objects.get(company=juniper).title == "Rebrand quote request"
    # … and the quote under Docs.
    assert "$8,400" in Doc.objects.get(organization=org, title="Juniper Dental rebrand quote").text
    assert run.routine.name == "New client enquiries"
