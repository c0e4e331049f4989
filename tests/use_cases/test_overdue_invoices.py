"""spec/use-cases/overdue-invoices.md end to end on the example workspace's local books and mail, with the
scripted model (and a scripted judge where the check needs one): what Sam sees."""

import datetime
import json

from django.utils import timezone
from freezegun import freeze_time

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.turn import drain
from checks.judge import JudgeVerdict, ScriptedJudge
from integrations import mail_hold
from integrations.local.models_mail import LocalMailMessage
from records.models import Company, Contact, OpenItem, TimelineEntry
from routines import engine
from routines.models import Routine, Skill
from tests.use_cases.staff_script import StaffScript

SAM = ("Every Monday morning, chase anything more than a week overdue. Be friendly the first time. Anything over "
       "$5,000, check with me first.")
NOTE = "Chase invoices more than 7 days overdue. Friendly the first time. Over $5,000, ask Sam first."
STEPS = ("1. Read the invoice and the customer's contact, with their Context.\n2. Email the billing contact from the "
         "invoice: the number, amount, due date and the invoice link. Friendly the first time; firmer if we chased "
         "before.\n3. Record it on the company's timeline as an invoice conversation, state overdue.\n4. Set a "
         "follow-up on the contact for a week later.")
CHASE = ("Hi Rosa,\n\nA quick note that invoice 1042 for $1,250, the bakery menu boards, was due on October 31. You "
         "can see and pay it here: https://app.qbo.intuit.com/app/invoice?txnId=1042\n\nThanks so much,\nSam")
ANSWER = ("Chased one overdue invoice: Ortiz Bakery, $1,250, 10 days late. Friendly reminder sent to Rosa; I'll "
          "check again next Monday.")


def last_result(request):
    return json.loads([m for m in request["messages"] if m["role"] == "tool"][-1]["content"])


def test_chasing_overdue_invoices_end_to_end(fernhill, monkeypatch):
    org = fernhill
    keeper = Agent.objects.get(organization=org, name="Bookkeeper")
    rosa = Contact.objects.get(organization=org, name="Rosa Ortiz")
    ortiz = Company.objects.get(organization=org, name="Ortiz Bakery")
    judge = ScriptedJudge(answer=lambda request: JudgeVerdict(outcome="go", relied_on=[NOTE]))
    monkeypatch.setattr("checks.services.configured_judge", lambda org=None: judge)
    staff = StaffScript()
    set_model(staff)
    try:
        # 1. Bookkeeper's chat saves a skill and a routine from Sam's words.
        staff.on("Bookkeeper", "chat",
                 call("skills", {"action": "add", "name": "Chase an invoice", "about": "An invoice more than a "
                                 "week overdue", "steps": STEPS,
                                 "why": "Sam asked for a Monday chase of overdue invoices."}),
                 call("triggers", {"action": "add", "name": "Overdue invoices", "when": {"at": "0 9 * * 1"},
                                   "skill": "chase-an-invoice", "note": NOTE}),
                 say("Every Monday at 9 I'll chase what's more than a week overdue, and ask you over $5,000."))
        with freeze_time("2026-11-05T15:00:00Z"):
            agent_services.owner_message_send(org=org, agent=keeper, text=SAM)
            drain(org_id=org.id)
        routine = Routine.objects.get(organization=org, name="Overdue invoices")
        saved = json.loads(Message.objects.filter(conversation=agent_services.chat_for(agent=keeper),
                                                  role="tool").last().text)
        assert saved == {"saved": routine.id, "when": "Time: 0 9 * * 1 (America/New_York)"}
        assert Skill.objects.get(agent=keeper).slug == "chase-an-invoice"

        entries_before = TimelineEntry.objects.filter(company=ortiz, title="Invoice 1042 chased").count()
        # 2–6. Monday at 9 the run goes to the routine's thread, which reads QuickBooks and chases Rosa.
        staff.on("Bookkeeper", "Overdue invoices",
                 call("use_tool", {"name": "books.invoices", "input": {"status": "overdue"}}),
                 call("use_tool", {"name": "books.invoice", "input": {"id": "1042"}}),
                 call("use_tool", {"name": "contacts.find", "input": {"email": "rosa@ortizbakery.test"}}),
                 call("use_tool", {"name": "mail.send", "input": {
                     "to": ["rosa@ortizbakery.test"], "subject": "Invoice 1042 from Fernhill Studio", "text": CHASE}}),
                 call("use_tool", {"name": "companies.record", "input": {
                     "companyId": str(ortiz.id), "kind": "invoice", "title": "Invoice 1042 chased",
                     "summary": "$1,250 for the menu boards, 10 days overdue. Friendly reminder sent to Rosa.",
                     "at": "2026-11-09T09:02:00-05:00", "people": ["rosa@ortizbakery.test"], "state": "overdue"}}),
                 call("use_tool", {"name": "contacts.follow_up", "input": {
                     "contactId": str(rosa.id), "text": "Invoice 1042: paid? If not, a firmer note.",
                     "at": "2026-11-16T09:00:00-05:00"}}),
                 say(ANSWER))
        staff.on("Roadstar", "Morning summary", say("Morning, Sam: Bookkeeper chases what's overdue at 9."))
        with freeze_time("2026-11-09T14:00:00Z"):  # Monday, 9:00 in New York
            assert engine.tick() == 1
            drain(org_id=org.id)
    finally:
        set_model(None)

    thread = Conversation.objects.get(agent=keeper, kind="thread", title="Overdue invoices")
    results = [json.loads(m.text) for m in Message.objects.filter(conversation=thread, role="tool")]
    overdue = results[0]["invoices"]
    assert [(i["number"], i["customer"], i["total"]) for i in overdue] == [("1042", "Ortiz Bakery", 1250)]
    assert "held" in results[3], results[3]
    # The check read the routine's note as Sam's words, through the judge.
    assert NOTE in judge.sent[0].model_dump_json()
    # What Sam sees: the chase on Home for two minutes, then it goes to Rosa, once …
    mail_hold.email_sweep(now=timezone.now() + datetime.timedelta(days=30))
    sent = LocalMailMessage.objects.filter(box="sent", subject="Invoice 1042 from Fernhill Studio")
    assert [m.to for m in sent] == [["rosa@ortizbakery.test"]]
    # … the chase on Ortiz Bakery's timeline, a follow-up on Rosa, and the run's answer in Bookkeeper's chat.
    chased = TimelineEntry.objects.filter(company=ortiz, title="Invoice 1042 chased").order_by("-created_at")
    assert (chased.count(), chased[0].state, chased[0].kind) == (entries_before + 1, "overdue", "invoice")
    follow_up = OpenItem.objects.get(contact=rosa, kind="follow_up")
    assert (follow_up.thread, follow_up.closed_at) == (str(thread.id), None)
    chat = agent_services.chat_for(agent=keeper)
    assert Message.objects.filter(conversation=chat, role="answer").last().text == (
        f"[Answer from Bookkeeper · Overdue invoices] {ANSWER}")
    # The follow-up wakes Bookkeeper next Monday, in the same thread, if Rosa hasn't paid.
    with freeze_time("2026-11-16T14:00:00Z"):
        engine.wake_follow_ups(now=timezone.now())
    assert Message.objects.filter(conversation=thread, text__startswith="[Follow-up · Rosa Ortiz]").exists()


def test_a_chase_over_5000_is_asked_about(fernhill):
    """Without the judge's go (no model here), a chase the rules can't decide is held back and asked about."""
    from agents.runtime.check_turns import check_turns
    from core.actors import Actor
    from core.context import ToolContext
    from routines import services as routine_services
    from tools.pipeline import use_tool

    org = fernhill
    keeper = Agent.objects.get(organization=org, name="Bookkeeper")
    routine = routine_services.routine_add(org=org, agent=keeper, name="Overdue invoices",
                                           when={"at": "0 9 * * 1"}, note=NOTE)
    routine_services.routine_fire(routine=routine, started_by="its time came")
    thread = Conversation.objects.get(agent=keeper, kind="thread", title="Overdue invoices")
    ctx = ToolContext(org=org, actor=Actor.for_agent(keeper), conversation_id=str(thread.id),
                      conversation=lambda: check_turns(thread))
    held = use_tool(ctx, "mail.send", {"to": ["rosa@ortizbakery.test"], "subject": "Invoice 1099",
                                       "text": "Hi Rosa, invoice 1099 for $6,200 is overdue."})
    assert held["not_done_yet"].startswith("Check with Sam first:")
