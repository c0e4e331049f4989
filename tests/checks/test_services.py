"""The check in the workspace: decisions kept, asks stored with the action's fingerprint, a yes that lets exactly
that action go once, and the request built from the database."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from freezegun import freeze_time

from checks import reasons
from checks.judge import JudgeVerdict, ScriptedJudge
from checks.models import Ask, CheckDecision
from checks.selectors import MadeBy, made_here, request_for_workspace
from checks.services import ask_answer, check_tool_call
from core.models import Change
from records.models import CompanyPerson
from tests.factories import CompanyFactory, ContactFactory

pytestmark = pytest.mark.django_db

QUOTE = {"tool": "mail.send", "input": {"to": ["dana@juniperdental.test"], "subject": "Quote", "text": "It's $8,400."}}
# A routine that describes whom to answer without naming them, and the enquiry it would answer: only a judge can
# say whether it covers Dana.
ROUTINE = [{"role": "routine", "name": "New client enquiries", "text": "Answer new clients the same day."},
           {"role": "read", "source": "mail:7c41e2d0:19a2", "text": "From: Dana Whitfield <dana@juniperdental.test>\n\n"
            "Could you quote a new logo and signage?"}]


@pytest.fixture
def dana(org):
    contact = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    company = CompanyFactory(organization=org, name="Juniper Dental")
    CompanyPerson.objects.create(organization=org, company=company, contact=contact)
    return contact


def run(org, action=QUOTE, conversation=ROUTINE, conversation_id="thread-9", judge=None, made_here=()):
    request = request_for_workspace(org=org, conversation=conversation, action=action, made_here=made_here)
    return check_tool_call(org=org, request=request, actor_kind="agent", actor_id="agent-1",
                           conversation_id=conversation_id, judge=judge or ScriptedJudge([JudgeVerdict(
                               outcome="ask", reason=reasons.NOT_NAMED, relied_on=["Answer new clients"])]))


# ---------------------------------------------------------------------------------------------------- decisions

def test_every_decision_is_kept_with_its_reason_and_words(org, dana):
    run(org)
    kept = CheckDecision.objects.get(organization=org)
    assert (kept.tool, kept.outcome, kept.reason, kept.relied_on, kept.decided_by, kept.actor_id,
            kept.conversation_id) == ("mail.send", "ask", reasons.NOT_NAMED, ["Answer new clients"], "judge",
                                      "agent-1", "thread-9")


def test_a_go_is_kept_too(org, dana):
    run(org, conversation=[{"role": "owner", "text": "Send Dana the quote."}])
    assert CheckDecision.objects.get(organization=org).outcome == "go"


def test_an_ask_is_stored_with_the_action_s_fingerprint(org, dana):
    run(org)
    kept = CheckDecision.objects.get(organization=org)
    assert Ask.objects.get(organization=org).fingerprint == kept.fingerprint != ""


def test_trying_the_held_action_again_keeps_one_waiting_ask(org, dana):
    run(org)
    run(org)
    assert Ask.objects.filter(organization=org, state=Ask.State.WAITING).count() == 1


def test_with_the_check_turned_off_the_action_goes_and_that_is_kept(org, dana):
    org.check_enabled = False
    org.save()
    d = run(org)
    assert (d.outcome, CheckDecision.objects.get(organization=org).decided_by) == ("go", "off")


# ---------------------------------------------------------------------------------------------------- yes

def test_after_the_owner_s_yes_the_same_action_goes(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes, send it")
    assert run(org).outcome == "go"


def test_the_yes_is_marked_used_by_the_decision_that_ran_on_it(org, dana):
    run(org)
    ask = Ask.objects.get(organization=org)
    ask_answer(org=org, ask_id=ask.id, yes=True, text="Yes, send it")
    run(org)
    ask.refresh_from_db()
    assert ask.used_by.outcome == "go" and ask.used_by.relied_on == ["Yes, send it"]


def test_a_yes_lets_the_action_go_once(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes")
    run(org)
    assert run(org).outcome == "ask"


def test_a_yes_does_not_cover_a_send_to_someone_else(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes")
    other = {"tool": "mail.send", "input": {"to": ["greg@juniperdental.test"], "subject": "Quote", "text": "$8,400"}}
    assert run(org, action=other).outcome == "ask"


def test_a_yes_in_one_conversation_does_not_cover_another(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes")
    assert run(org, conversation_id="thread-10").outcome == "ask"


def test_a_declined_ask_keeps_the_action_held(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=False, text="No, wait")
    assert run(org).outcome == "ask"


def test_a_yes_never_lets_a_stop_through(org, dana):
    run(org)
    ask_answer(org=org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes")
    with_card = {"tool": "mail.send", "input": {"to": ["dana@juniperdental.test"], "subject": "Quote",
                                                "text": "Pay with 4111 1111 1111 1111"}}
    assert run(org, action=with_card).outcome == "stop"


def test_an_ask_of_another_workspace_cannot_be_answered(org, other_org, dana):
    run(org)
    with pytest.raises(Ask.DoesNotExist):
        ask_answer(org=other_org, ask_id=Ask.objects.get(organization=org).id, yes=True, text="Yes")


def test_the_configured_judge_is_used_when_none_is_given(org, dana, monkeypatch):
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    monkeypatch.setattr("checks.services.configured_judge", lambda org=None: judge)
    request = request_for_workspace(org=org, conversation=ROUTINE, action=QUOTE, made_here=[])
    check_tool_call(org=org, request=request, actor_kind="agent", actor_id="a1")
    assert len(judge.sent) == 1


# ---------------------------------------------------------------------------------------------------- the request

def test_the_request_carries_the_business_from_the_workspace(org):
    org.domains, org.payment_details = ["fernhill.test"], ["IBAN GB33 BUKB 2020 1555 5555 55"]
    org.save()
    business = request_for_workspace(org=org, conversation=[], action=QUOTE, made_here=[]).business
    assert (business.name, business.owner, business.owner_email, business.domains, business.payment_details) == (
        "Fernhill Studio", "Sam Rivera", "sam@fernhill.test", ["fernhill.test"], ["IBAN GB33 BUKB 2020 1555 5555 55"])


def test_the_request_carries_contacts_with_emails_and_company(org, dana):
    contact = request_for_workspace(org=org, conversation=[], action=QUOTE, made_here=[]).records.contacts[0]
    assert (contact.id, contact.name, contact.emails, contact.company, contact.always_ask) == (
        str(dana.id), "Dana Whitfield", ["dana@juniperdental.test"], "Juniper Dental", False)


def test_a_contact_marked_always_ask_is_marked_in_the_request(org):
    ContactFactory(organization=org, name="Greg Hale", emails=["greg@juniperdental.test"], fields={"ask": True})
    assert request_for_workspace(org=org, conversation=[], action=QUOTE, made_here=[]).records.contacts[0].always_ask


def test_a_contact_of_an_always_ask_company_is_marked_always_ask(org, dana):
    company = CompanyFactory(organization=org, name="Hale Capital", always_ask=True)
    victor = ContactFactory(organization=org, name="Victor Hale", emails=["victor@halecapital.test"])
    CompanyPerson.objects.create(organization=org, company=company, contact=victor)
    contacts = request_for_workspace(org=org, conversation=[], action=QUOTE, made_here=[]).records.contacts
    assert {c.name: c.always_ask for c in contacts} == {"Dana Whitfield": False, "Victor Hale": True}


def test_another_workspace_s_contacts_are_not_in_the_request(org, other_org):
    ContactFactory(organization=other_org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    assert request_for_workspace(org=org, conversation=[], action=QUOTE, made_here=[]).records.contacts == []


def test_in_a_big_workspace_the_request_carries_the_contacts_the_work_could_name(org, dana):
    from records.models import Contact

    Contact.objects.bulk_create([Contact(organization=org, name=f"Person {i}") for i in range(250)])
    ContactFactory(organization=org, name="Dana Kim", emails=["dana@kimlaw.test"])
    conversation = [{"role": "owner", "text": "Send Dana the quote."}]
    contacts = request_for_workspace(org=org, conversation=conversation, action=QUOTE, made_here=[]).records.contacts
    assert sorted(c.name for c in contacts) == ["Dana Kim", "Dana Whitfield"]


def test_in_a_big_workspace_a_name_with_a_title_or_an_accent_is_found_by_its_first_name(org):
    from records.models import Contact

    Contact.objects.bulk_create([Contact(organization=org, name=f"Person {i}") for i in range(250)])
    ContactFactory(organization=org, name="Dr. Hana Sato", emails=["hana@brightvet.test"])
    ContactFactory(organization=org, name="Zoë Laurent", emails=["zoe@laurent.test"])
    conversation = [{"role": "owner", "text": "Tell Hana and Zoe the groom went fine."}]
    contacts = request_for_workspace(org=org, conversation=conversation, action=QUOTE, made_here=[]).records.contacts
    assert sorted(c.name for c in contacts) == ["Dr. Hana Sato", "Zoë Laurent"]


def test_made_here_and_the_conversation_pass_through(org):
    request = request_for_workspace(org=org, conversation=ROUTINE, action=QUOTE, made_here=["doc:d1"])
    assert (request.records.made_here, request.conversation[0].role) == (["doc:d1"], "routine")


def _made(org, *, target_id, work_id="work-7", created=True, undone=False, at="2026-11-02T09:00:00Z") -> None:
    with freeze_time(at):
        Change.objects.create(
            organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk", tool="contacts.create",
            kind="makes", sentence="added someone", listing="home", target_type="contact", target_id=target_id,
            work_id=work_id, created=created, undone_at=timezone.now() if undone else None,
        )


@pytest.fixture
def made_by_work(org):
    _made(org, target_id="c-older", at="2026-11-01T09:00:00Z")
    _made(org, target_id="c-newer", at="2026-11-03T09:00:00Z")
    _made(org, target_id="c-undone", undone=True)
    _made(org, target_id="c-noted", created=False)
    _made(org, target_id="c-other-work", work_id="work-8")
    return MadeBy(work_id="work-7")


def test_what_the_work_made_is_read_with_the_contacts_in_one_statement(org, dana, made_by_work):
    with CaptureQueriesContext(connection) as queries:
        request = request_for_workspace(org=org, conversation=[], action=QUOTE, made_by=made_by_work)
    assert (request.records.made_here, [c.name for c in request.records.contacts], len(queries)) == (
        ["contact:c-newer", "contact:c-older"], ["Dana Whitfield"], 1)


def test_what_the_work_made_is_read_the_same_on_its_own(org, made_by_work):
    assert made_here(org=org, made_by=made_by_work) == ["contact:c-newer", "contact:c-older"]


def test_what_the_work_made_is_read_in_a_workspace_with_no_contacts(org, made_by_work):
    request = request_for_workspace(org=org, conversation=[], action=QUOTE, made_by=made_by_work)
    assert (request.records.made_here, request.records.contacts) == (["contact:c-newer", "contact:c-older"], [])


def test_what_the_work_made_is_read_in_a_big_workspace(org, dana, made_by_work):
    from records.models import Contact

    Contact.objects.bulk_create([Contact(organization=org, name=f"Person {i}") for i in range(250)])
    conversation = [{"role": "owner", "text": "Send Dana the quote."}]
    request = request_for_workspace(org=org, conversation=conversation, action=QUOTE, made_by=made_by_work)
    assert (request.records.made_here, [c.name for c in request.records.contacts]) == (
        ["contact:c-newer", "contact:c-older"], ["Dana Whitfield"])


def test_what_a_conversation_made_is_read_by_its_id_when_there_is_no_work(org, dana):
    with freeze_time("2026-11-01T09:00:00Z"):
        Change.objects.create(
            organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk", tool="contacts.create",
            kind="makes", sentence="added someone", listing="home", target_type="contact", target_id="c-chat",
            conversation_id="chat-3", created=True,
        )
    request = request_for_workspace(org=org, conversation=[], action=QUOTE, made_by=MadeBy(conversation_id="chat-3"))
    assert request.records.made_here == ["contact:c-chat"]


# ---------------------------------------------------------------------------------------------------- no judge set up

def run_without_judge(org, settings, conversation=ROUTINE, action=QUOTE):
    """As the workspace runs it when this server has no judge model set up (configured_judge() is None)."""
    settings.CHECK_JUDGE = False
    request = request_for_workspace(org=org, conversation=conversation, action=action, made_here=())
    return check_tool_call(org=org, request=request, actor_kind="agent", actor_id="agent-1",
                           conversation_id="thread-9")


def test_with_no_judge_set_up_the_check_asks_by_default(org, dana, settings):
    assert org.without_judge == "ask"
    decision = run_without_judge(org, settings)
    assert (decision.outcome, decision.reason) == ("ask", reasons.UNREACHABLE)


def test_the_owner_may_choose_to_let_run_what_no_judge_is_set_up_to_decide(org, dana, settings):
    # spec/how-it-works/the-owners-yes.md: "Without the check set up, every action runs."
    org.without_judge = "run"
    org.save(update_fields=["without_judge"])
    decision = run_without_judge(org, settings)
    assert (decision.outcome, decision.decided_by) == ("go", "owner")
    kept = CheckDecision.objects.get(organization=org)
    assert (kept.outcome, kept.decided_by, kept.get_decided_by_display()) == (
        "go", "owner", "no judge set up: the owner lets it run")
    assert not Ask.objects.exists()


def test_what_a_rule_decides_holds_whatever_the_owner_chose_for_no_judge(org, dana, settings):
    org.without_judge = "run"
    org.save(update_fields=["without_judge"])
    password = {"tool": "mail.send", "input": {"to": ["dana@juniperdental.test"], "subject": "Login",
                                               "text": "password: Maple!Fern42"}}
    decision = run_without_judge(org, settings, conversation=[{"role": "owner", "text": "Send Dana our login."}],
                                 action=password)
    assert decision.outcome == "stop"


def test_a_judge_set_up_but_unreachable_still_asks_whatever_the_owner_chose(org, dana):
    from checks.judge import JudgeUnreachable

    org.without_judge = "run"
    org.save(update_fields=["without_judge"])
    decision = run(org, judge=ScriptedJudge([JudgeUnreachable("timed out")]))
    assert (decision.outcome, decision.reason) == ("ask", reasons.UNREACHABLE)
