"""spec/use-cases/new-client-enquiry.md end to end, on the local mailbox and the scripted model: what Sam sees."""

import datetime
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.turn import drain
from checks.models import Ask, CheckDecision
from core.models import Change
from home.selectors import home_asks
from integrations import mail_hold
from integrations.local.mailbox import Incoming, message_store
from integrations.local.models_mail import LocalMailMessage
from integrations.services import connection_create_local
from records.models import Company, Contact, Doc, TimelineEntry
from routines import engine
from routines.models import Event, Routine
from tests.factories import ProjectFactory
from tests.use_cases.staff_script import StaffScript

SAM = ("When a new client writes in, answer the same day. Quotes come from the rate card in Drive, and I see every "
       "quote before it goes out.")
NOTE = "Answer the same day. Quotes come from the rate card in Drive, and Sam sees every quote before it goes out."
ENQUIRY = ("Hi Sam,\n\nWe're opening our second clinic in March and would love a new logo, plus signage for both "
           "locations. Could you send us a quote?\n\nThanks,\nDana Whitfield\nPractice manager, Juniper Dental")
QUOTE = ("## Scope\n\n- Logo and a one-page brand guide\n- Signage for two clinics\n\n## Price\n\n| Item | Price |\n"
         "| --- | ---: |\n| Logo and brand guide | $4,800 |\n| Signage design, two clinics | $3,600 |\n"
         "| **Total** | **$8,400** |\n\nReady in five weeks from a signed quote.")
ASK = ("Send Dana the Juniper Dental quote for $8,400? Logo, brand guide and signage for both clinics, ready in five "
       "weeks.")
REPLY = ("Hi Dana,\n\nThanks for thinking of us. For a new logo with a one-page brand guide, and signage for both "
         "clinics, the price is $8,400, ready five weeks after you sign. Happy to walk through it on a call.\n\nSam")


@pytest.fixture
def mail_root(settings, tmp_path):
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"


def _last_result(request):
    return json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])


SECOND = ("Hi Dana,\n\nOne more thing: with vehicle signage for your van added, the price comes to $9,200, ready six "
          "weeks after you sign.\n\nSam")


def test_a_new_client_enquiry_end_to_end(org, mail_root, client, settings):
    """With the check on and no judge: the quote is held until Sam has seen it (an ask on Home showing the quote),
    goes after the yes, and a second, different email to Dana is asked about again."""
    settings.CHECK_JUDGE = False
    client.force_login(org.owner)
    desk = Agent.objects.create(organization=org, name="Client desk",
                                job="Answers new and current clients, and keeps Contacts and Companies up to date")
    Agent.objects.create(organization=org, name="Proposal writer",
                                  job="Prices and writes proposals and quotes from the rate card")
    project = ProjectFactory(organization=org, name="Juniper Dental rebrand")
    mailbox = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    staff = StaffScript()
    set_model(staff)
    quote_send = {"to": ["dana@juniperdental.test"], "subject": "Re: Rebrand for our second clinic", "text": REPLY}
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

        held = {}

        def ask_after_the_check(request):
            # The check's answer to the early send, then the thread asks Sam in its reply, showing the quote.
            held["early"] = _last_result(request)
            return say(ASK)

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
                     "at": "2026-11-10T10:12:00-05:00", "people": ["dana@juniperdental.test"],
                     "state": "waiting_you"}}),
                 call("hand_off", {"agent": "Proposal writer",
                                   "task": "Price a rebrand for Juniper Dental from the rate card: new logo, and "
                                           "signage for two clinics.",
                                   "notes": "Second clinic opens in March. Dana Whitfield, practice manager, "
                                            "signs off."}),
                 say("Handed the pricing to Proposal writer."),
                 # 5. The answer wakes it. Had it sent before asking, the check reads Sam's rule and holds it back.
                 call("use_tool", {"name": "mail.send", "input": quote_send}),
                 ask_after_the_check)
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

        # The enquiry was worked on in its own thread.
        assert Conversation.objects.filter(agent=desk, kind="thread", title="New client enquiries").exists()
        chat = agent_services.chat_for(agent=desk)
        assert Message.objects.filter(conversation=chat, role="answer").last().text.endswith(ASK)
        assert not LocalMailMessage.objects.filter(connection=mailbox, box="sent").exists()

        # The check held the quote by its rules alone, no judge: Sam sees every quote, and no answer of Sam's
        # showed this one.
        assert held["early"] == {"not_done_yet": (
            "Check with Sam first: it goes to someone the owner hasn't named. Ask in your reply, saying what you "
            "would do. Once they say yes, do it again.")}
        early = CheckDecision.objects.get(organization=org, tool="mail.send")
        assert (early.outcome, early.decided_by, early.judge_used) == ("ask", "rules", False)
        assert NOTE in early.relied_on

        # On Home, Sam sees Client desk's ask with the quote, where the work is.
        [home_ask] = home_asks(org=org)
        assert (home_ask.agent_name, home_ask.where, home_ask.question) == ("Client desk", "New client enquiries", ASK)
        page = client.get(reverse("home")).content.decode()
        assert "Client desk asks" in page and "$8,400" in page

        # 5. Sam presses Yes on Home; the chat passes the answer to the thread, which sends the quote as asked.
        # Then the thread tries a second, different email to Dana: a revised quote Sam hasn't seen.
        def route_the_yes(request):
            assert "Yes, go ahead." in json.dumps(request["messages"])
            return call("message_thread", {"thread": "New client enquiries",
                                           "task": "Sam says yes: send Dana the Juniper Dental quote as written."})

        second = {}
        staff.on("Client desk", "chat", route_the_yes, say("Sent Sam's yes to the thread."))
        staff.on("Client desk", "New client enquiries",
                 call("use_tool", {"name": "mail.send", "input": quote_send}),
                 lambda r: (second.setdefault("sent", _last_result(r)), call("use_tool", {
                     "name": "mail.send", "input": {"to": ["dana@juniperdental.test"],
                                                    "subject": "Re: Rebrand for our second clinic",
                                                    "text": SECOND}}))[1],
                 lambda r: (second.setdefault("revised", _last_result(r)), say(
                     "Sent Dana the quote; it goes after the two-minute Undo. Dana also asked about van signage: "
                     "send her the revised quote for $9,200?"))[1])
        response = client.post(reverse("ask_answer", args=[home_ask.id]), {"yes": "1", "answer": ""})
        assert response.status_code == 302
        drain(org_id=org.id)
    finally:
        set_model(None)

    assert "held" in second["sent"], second["sent"]
    assert second["revised"] == held["early"]  # the same ask again: Sam's yes covered the quote it answered
    # What Sam sees: the sent email on Home with Undo for two minutes …
    held_change = Change.objects.get(tool="mail.send")
    assert (held_change.listing, held_change.can_undo) == ("home_undo", True)
    assert not LocalMailMessage.objects.filter(connection=mailbox, box="sent").exists()
    # … then it leaves, once; the revised quote waits on Home for Sam's yes.
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(minutes=3))
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(minutes=4))
    [sent] = LocalMailMessage.objects.filter(connection=mailbox, box="sent")
    assert "$8,400" in sent.text and "$9,200" not in sent.text
    [waiting] = home_asks(org=org)
    assert waiting.id != home_ask.id and "$9,200" in waiting.question
    assert Ask.objects.get(id=home_ask.id).state == Ask.State.YES
    # Juniper Dental under Companies, with Dana and the conversation on its timeline …
    juniper = Company.objects.get(organization=org, name="Juniper Dental")
    assert Contact.objects.get(organization=org, name="Dana Whitfield").company_links.get().company == juniper
    assert TimelineEntry.objects.get(company=juniper).title == "Rebrand quote request"
    # … and the quote under Docs.
    assert "$8,400" in Doc.objects.get(organization=org, title="Juniper Dental rebrand quote").text
    assert run.routine.name == "New client enquiries"
