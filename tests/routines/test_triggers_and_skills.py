"""The triggers and skills tools, as a chat uses them."""

import json

import pytest

from agents import services
from agents.models import Agent, Message
from agents.runtime.model import call, say
from agents.runtime.turn import drain
from routines.models import Routine, Skill

CHASE_STEPS = (
    "1. Read the invoice and the customer's contact, with their Context.\n2. Email the billing contact from the "
    "invoice: the number, amount, due date and the invoice link. Friendly the first time; firmer if we chased "
    "before.\n3. Record it on the company's timeline as an invoice conversation, state overdue.\n4. Set a "
    "follow-up on the contact for a week later."
)


def use(org, agent, model, tool, arguments):
    model.add(call(tool, arguments), say("Done."))
    services.owner_message_send(org=org, agent=agent, text="please")
    drain(org_id=org.id)
    chat = services.chat_for(agent=agent)
    return json.loads(Message.objects.filter(conversation=chat, role="tool").order_by("-seq").first().text)


def add_skill(org, keeper, model):
    return use(org, keeper, model, "skills", {
        "action": "add", "name": "Chase an invoice", "about": "An invoice more than a week overdue",
        "steps": CHASE_STEPS, "why": "Sam asked for a Monday chase of overdue invoices.",
    })


def test_a_skill_is_saved_with_a_slug_id(org, keeper, model):
    assert add_skill(org, keeper, model) == {
        "saved": {"agent": "Bookkeeper", "id": "chase-an-invoice", "name": "Chase an invoice"}
    }


def test_skills_list_and_read(org, keeper, model):
    add_skill(org, keeper, model)
    listed = use(org, keeper, model, "skills", {"action": "list"})
    read = use(org, keeper, model, "skills", {"action": "read", "id": "chase-an-invoice"})
    assert listed == {"skills": [{"id": "chase-an-invoice", "name": "Chase an invoice",
                                  "about": "An invoice more than a week overdue"}]}
    assert read["steps"] == CHASE_STEPS


def test_a_skill_change_keeps_why_and_what_it_was(org, keeper, model):
    add_skill(org, keeper, model)
    use(org, keeper, model, "skills", {"action": "change", "id": "chase-an-invoice", "steps": "1. Be brief.",
                                       "why": "Sam wants shorter chases."})
    skill = Skill.objects.get()
    assert (skill.steps, skill.history[-1]["why"], skill.history[-1]["before"]["steps"]) == (
        "1. Be brief.", "Sam wants shorter chases.", CHASE_STEPS)


def test_a_skill_change_needs_a_why(org, keeper, model):
    add_skill(org, keeper, model)
    result = use(org, keeper, model, "skills", {"action": "change", "id": "chase-an-invoice", "steps": "x"})
    assert result["error"] == "bad_input" and result["message"].startswith("why:")


def test_a_routine_at_a_time_is_saved_in_the_owners_zone(org, keeper, model):
    add_skill(org, keeper, model)
    result = use(org, keeper, model, "triggers", {
        "action": "add", "name": "Overdue invoices", "when": {"at": "0 9 * * 1"}, "skill": "chase-an-invoice",
        "note": "Chase invoices more than 7 days overdue. Friendly the first time. Over $5,000, ask Sam first.",
    })
    assert result == {"saved": Routine.objects.get().id, "when": "Time: 0 9 * * 1 (America/New_York)"}


def test_a_routine_on_words_says_them(org, staff, model):
    desk = staff["Client desk"]
    result = use(org, desk, model, "triggers", {
        "action": "add", "name": "New client enquiries",
        "when": {"ask": "a new client asking about a project or a quote"},
        "note": "Answer the same day.",
    })
    assert result["when"] == "Words: “a new client asking about a project or a quote”"


def test_triggers_list_off_on(org, keeper, model):
    saved = use(org, keeper, model, "triggers", {"action": "add", "name": "Weekly", "when": {"at": "0 9 * * 1"}})
    rid = saved["saved"]
    assert use(org, keeper, model, "triggers", {"action": "off", "id": rid}) == {"turnedOff": rid}
    assert Routine.objects.get().next_fire_at is None
    assert use(org, keeper, model, "triggers", {"action": "on", "id": rid}) == {"turnedOn": rid}
    listed = use(org, keeper, model, "triggers", {"action": "list"})
    assert listed["routines"][0] | {} == {"id": rid, "name": "Weekly", "note": "", "when": {"at": "0 9 * * 1"},
                                          "status": "on", "fired": 0, "skill": None}


def test_a_new_routine_is_what_its_work_made_and_a_change_to_it_is_not(org, keeper, model):
    from core.models import Change

    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    saved = use(org, keeper, model, "triggers", {"action": "add", "name": "Weekly", "when": {"at": "0 9 * * 1"}})
    use(org, keeper, model, "triggers", {"action": "change", "id": saved["saved"], "when": {"at": "0 8 * * 1"}})
    assert sorted(Change.objects.filter(tool="triggers").values_list("kind", "created")) == [
        ("changes", False), ("makes", True)]


def test_a_routine_change_goes_past_the_check(org, keeper, model):
    saved = use(org, keeper, model, "triggers", {"action": "add", "name": "Weekly", "when": {"at": "0 9 * * 1"},
                                                 "note": "Chase politely."})
    result = use(org, keeper, model, "triggers", {"action": "change", "id": saved["saved"], "note": ""})
    # The owner's words ("please") don't ask to clear the note: the check holds it back.
    assert "not_done_yet" in result and Routine.objects.get().note == "Chase politely."


def test_a_routine_change_runs_when_the_check_is_off(org, keeper, model):
    org.check_enabled = False
    org.save()
    saved = use(org, keeper, model, "triggers", {"action": "add", "name": "Weekly", "when": {"at": "0 9 * * 1"}})
    result = use(
        org, keeper, model, "triggers", {"action": "change", "id": saved["saved"], "when": {"at": "0 8 * * 1"}}
    )
    assert result == {"changed": saved["saved"]} and Routine.objects.get().at == "0 8 * * 1"


@pytest.mark.parametrize("when,message", [
    ({}, "when: give at least one"),
    ({"at": "every monday"}, "when.at: 'every monday' is not a cron line"),
    ({"keys": ["invoice.overdue"]}, "when.keys[0]: 'invoice.overdue' is not a key"),
    ({"due": "next week"}, "when.due: 'next week' is not an ISO 8601 time"),
    ({"check": {"tool": "contacts", "action": "list", "everyMinutes": 10}}, "when.check.everyMinutes: 15 or more"),
    ({"check": {"tool": "contacts", "action": "update", "everyMinutes": 60}},
     "changes things; a check runs only a tool that reads"),
    ({"check": {"tool": "contacts", "action": "nope", "everyMinutes": 60}},
     "when.check.tool: there is no tool contacts.nope"),
    ({"soon": True}, "when.soon: not a kind of when"),
    # The spec names the key but no form for it: nothing would ever fire the routine, so it is refused.
    ({"keys": ["from:dana@juniperdental.test", "kind:form.submitted"]},
     "when.keys[1]: kind:form.submitted would never fire: Roadstar has no forms"),
    ({"keys": ["kind:invoice.paid"]}, "when.keys[0]: 'kind:invoice.paid' is not a kind of event; the kinds are "
                                      "kind:invoice.overdue, kind:meeting.added, kind:doc.changed, kind:mail.received"),
])
def test_a_routine_with_a_bad_when_is_refused_and_nothing_saved(org, keeper, model, when, message):
    result = use(org, keeper, model, "triggers", {"action": "add", "name": "X", "when": when})
    assert result["error"] == "bad_input" and message in result["message"]
    assert not Routine.objects.exists()


def test_only_roadstars_chat_sets_routines_for_other_agents(org, staff, model):
    result = use(org, staff["Client desk"], model, "triggers", {
        "action": "add", "agent": "Bookkeeper", "name": "X", "when": {"at": "0 9 * * 1"}})
    assert "only Roadstar's chat sets routines" in result["message"]


def test_roadstars_chat_sets_a_routine_for_any_agent(org, keeper, model):
    roadstar = Agent.objects.get(organization=org, is_roadstar=True)
    use(org, roadstar, model, "triggers", {"action": "add", "agent": "Bookkeeper", "name": "X",
                                           "when": {"at": "0 9 * * 1"}})
    assert Routine.objects.get().agent == keeper


def test_a_routine_naming_a_skill_the_agent_lacks_is_refused(org, keeper, model):
    result = use(org, keeper, model, "triggers", {"action": "add", "name": "X", "when": {"at": "0 9 * * 1"},
                                                  "skill": "nope"})
    assert result["error"] == "not_found"
