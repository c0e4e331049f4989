"""The use cases' checks, as their pages say, through the live path (workspace -> request -> check):
new-client-enquiry (the Juniper quote), overdue-invoices (the chases), proposal-from-template (the copy)."""

import pytest

from checks import reasons
from checks.judge import JudgeVerdict, ScriptedJudge
from checks.selectors import request_for_workspace
from checks.services import check_tool_call
from records.models import CompanyPerson
from tests.factories import CompanyFactory, ContactFactory

pytestmark = pytest.mark.django_db

ENQUIRY_ROUTINE = {"role": "routine", "name": "New client enquiries", "text": (
    "Answer the same day. Quotes come from the rate card in Drive, and Sam sees every quote before it goes out.")}
DANA_MAIL = {"role": "read", "source": "mail:7c41e2d0:19a2c4e07d5b3f18", "text": (
    "From: Dana Whitfield <dana@juniperdental.test>\nSubject: Rebrand for our second clinic\n\n"
    "Could you send us a quote?")}
QUOTE = {"tool": "mail.send", "input": {
    "to": ["dana@juniperdental.test"], "subject": "Re: Rebrand for our second clinic",
    "text": "Hi Dana,\n\nFor a new logo with a brand guide, and signage for both clinics, the price is $8,400.\n\nSam",
    "threadId": "7c41e2d0:19a2c4e07d5b3f18"}}
OVERDUE_ROUTINE = {
    "role": "routine",
    "name": "Overdue invoices",
    "text": "Chase invoices more than 7 days overdue. Friendly the first time. Over $5,000, ask Sam first.",
}


def invoices(number, total):
    return {"role": "read", "source": "tool:books.invoices", "text": (
        f'{{ "invoices": [ {{ "id": "{number}", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test", '
        f'"daysLate": 10, "total": {total}, "status": "overdue" }} ] }}')}


def chase(number, amount):
    return {"tool": "mail.send", "input": {"to": ["rosa@ortizbakery.test"], "subject": f"Invoice {number}", "text": (
        f"Hi Rosa,\n\nA quick note that invoice {number} for {amount} was due on October 31.\n\nThanks so much,\nSam")}}


@pytest.fixture
def clients(org):
    for name, email, company in (("Dana Whitfield", "dana@juniperdental.test", "Juniper Dental"),
                                 ("Rosa Ortiz", "rosa@ortizbakery.test", "Ortiz Bakery")):
        contact = ContactFactory(organization=org, name=name, emails=[email])
        CompanyPerson.objects.create(organization=org, company=CompanyFactory(organization=org, name=company),
                                     contact=contact)


def check(org, conversation, action, judge, made_here=()):
    request = request_for_workspace(org=org, conversation=conversation, action=action, made_here=made_here)
    return check_tool_call(org=org, request=request, actor_kind="agent", actor_id="client-desk",
                           conversation_id="new-client-enquiries", judge=judge)


# ---------------------------------------------------------------------------------------------------- Juniper

def test_the_juniper_quote_is_held_back_before_sam_s_yes(org, clients):
    judge = ScriptedJudge([JudgeVerdict(outcome="ask", reason=reasons.NOT_NAMED,
                                        relied_on=["Sam sees every quote before it goes out"])])
    d = check(org, [ENQUIRY_ROUTINE, DANA_MAIL], QUOTE, judge)
    assert d.as_tool_result("Sam") == {"not_done_yet": (
        "Check with Sam first: it goes to someone the owner hasn't named. Ask in your reply, saying what you "
        "would do. Once they say yes, do it again.")}


def test_the_juniper_quote_is_held_back_before_sam_s_yes_even_with_no_model(org, clients):
    assert check(org, [ENQUIRY_ROUTINE, DANA_MAIL], QUOTE, None).outcome == "ask"


def test_the_juniper_quote_goes_after_yes_send_it(org, clients):
    judge = ScriptedJudge([])
    conversation = [ENQUIRY_ROUTINE, DANA_MAIL,
                    {"role": "agent", "text": "Send Dana the Juniper Dental quote for $8,400? Logo, brand guide and "
                                              "signage for both clinics, ready in five weeks."},
                    {"role": "owner", "text": "Yes, send it"}]
    d = check(org, conversation, QUOTE, judge)
    assert (d.outcome, d.decided_by, judge.sent) == ("go", "rules", [])


# ---------------------------------------------------------------------------------------------------- overdue invoices

def test_the_1250_chase_goes_under_the_routine_s_note(org, clients):
    judge = ScriptedJudge([JudgeVerdict(outcome="go", relied_on=["Chase invoices more than 7 days overdue."])])
    d = check(org, [OVERDUE_ROUTINE, invoices("1042", 1250)], chase("1042", "$1,250"), judge)
    assert (d.outcome, d.relied_on) == ("go", ["Chase invoices more than 7 days overdue."])


def test_the_judge_is_shown_the_routine_s_note_and_the_customer_s_record_for_the_chase(org, clients):
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    check(org, [OVERDUE_ROUTINE, invoices("1042", 1250)], chase("1042", "$1,250"), judge)
    shown = judge.sent[0]
    assert (shown.owner_words[0].text, shown.recipients[0].company) == (OVERDUE_ROUTINE["text"], "Ortiz Bakery")


def test_the_chase_over_5000_is_asked_about(org, clients):
    judge = ScriptedJudge([])
    d = check(org, [OVERDUE_ROUTINE, invoices("1049", 6200)], chase("1049", "$6,200"), judge)
    assert (d.outcome, d.reason, judge.sent) == ("ask", reasons.NOT_NAMED, [])


# ---------------------------------------------------------------------------------------------------- proposal

PROPOSAL_HANDOFF = {"role": "handoff", "from": "Roadstar", "task": "Write the Ortiz Bakery packaging proposal.",
                    "notes": "", "owner_words": [{"text": "Start with the Ortiz Bakery packaging one.",
                                                  "where": "Roadstar's chat", "at": "2026-11-09T21:05:00Z"}]}


def replace_placeholder(file_id):
    return {"tool": "files.replace_text", "input": {"id": file_id, "find": "{{CLIENT}}", "replace": "Ortiz Bakery"},
            "replaces": {"file": "Ortiz Bakery: packaging redesign proposal", "text": "{{CLIENT}}"}}


def test_the_proposal_copy_s_placeholders_are_replaced_without_an_ask(org, clients):
    d = check(org, [PROPOSAL_HANDOFF], replace_placeholder("7c41e2d0:1Ab9OrtizProposalCopy7Kd"), ScriptedJudge([]),
              made_here=["file:7c41e2d0:1Ab9OrtizProposalCopy7Kd"])
    assert d.outcome == "go"


def test_the_template_itself_is_not_rewritten_without_an_ask(org, clients):
    d = check(org, [PROPOSAL_HANDOFF], replace_placeholder("7c41e2d0:1Hk3TemplatePr0posalDoc9xQ"), ScriptedJudge([]),
              made_here=["file:7c41e2d0:1Ab9OrtizProposalCopy7Kd"])
    assert (d.outcome, d.reason) == ("ask", reasons.REMOVES)
