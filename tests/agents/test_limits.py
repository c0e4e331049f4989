"""Every text that reaches an agent's prompt has a limit (core/limits.py): past it the caller gets bad_input
naming the input, and nothing is saved. A million characters went into a note, a skill's steps and an agent's
instructions before."""

from __future__ import annotations

import pytest
from django.utils import timezone

from agents import services
from agents.models import Agent, Run
from agents.runtime.agent_tools import run_agent_tool, within_limit
from agents.runtime.instructions import instructions_for
from agents.runtime.sql_storage import SqlTurnStorage
from agents.runtime.turn import Turn
from core import limits
from core.errors import ToolError
from routines.models import Routine, Skill
from tests.factories import ContactFactory

MEGABYTE = "x" * 1_000_000


@pytest.fixture
def roadstar(org):
    return Agent.objects.get(organization=org, is_roadstar=True)


def turn_of(agent) -> Turn:
    chat = services.chat_for(agent=agent)
    run = Run.objects.create(organization=agent.organization, conversation=chat, agent=agent, started_at=timezone.now())
    return Turn(SqlTurnStorage(chat), run)


def tool(_agent, _name: str, **arguments) -> dict:
    return run_agent_tool(turn_of(_agent), _name, arguments)


def refused(result: dict, field: str) -> bool:
    return result.get("error") == "bad_input" and result["message"].startswith(f"{field}:")


# --- notes and the About ------------------------------------------------------------------------------------------


def test_a_megabyte_note_is_refused_naming_it(roadstar):
    assert refused(tool(roadstar, "remember", note=MEGABYTE), "note")
    assert Agent.objects.get(id=roadstar.id).notes == []


def test_notes_stop_at_their_total(roadstar):
    for i in range(limits.NOTES_TOTAL // limits.NOTE):
        assert "notes" in tool(roadstar, "remember", note=f"{i:03} " + "n" * (limits.NOTE - 4))
    result = tool(roadstar, "remember", note="One more")
    assert refused(result, "note") and "forget one" in result["message"].lower()
    assert len(Agent.objects.get(id=roadstar.id).notes) == limits.NOTES_TOTAL // limits.NOTE


def test_a_note_past_its_limit_through_the_service_is_refused_too(agent):
    with pytest.raises(ToolError, match=r"^note: "):
        services.agent_remember(agent=agent, note="n" * (limits.NOTE + 1))


def test_the_about_has_a_limit(roadstar, org):
    assert refused(tool(roadstar, "remember", about=MEGABYTE), "about")
    with pytest.raises(ToolError, match=r"^about: "):
        services.agent_remember(agent=roadstar, about="a" * (limits.ABOUT + 1))


# --- the agent's own words ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["department", "job", "name", "owns"])
def test_change_agent_refuses_a_megabyte_in_any_part(roadstar, agent, field):
    assert refused(tool(roadstar, "change_agent", agent=agent.name, **{field: MEGABYTE}), field)


def test_an_agents_instructions_stay_bounded_whatever_is_tried(roadstar, agent, org):
    for name, arguments in [("remember", {"note": MEGABYTE}), ("remember", {"about": MEGABYTE}),
                            ("change_agent", {"agent": agent.name, "department": MEGABYTE}),
                            ("skills", {"action": "add", "agent": agent.name, "name": MEGABYTE, "steps": "1."})]:
        tool(roadstar, name, **arguments)
    conversation = services.chat_for(agent=agent)
    staff = list(Agent.objects.filter(organization=org))
    assert len(instructions_for(conversation, staff=staff, skills=[s.name for s in Skill.objects.all()])) < 10_000


# --- skills and routines ----------------------------------------------------------------------------------------


def test_a_megabyte_of_steps_is_refused_naming_them(agent):
    assert refused(tool(agent, "skills", action="add", name="Onboard", steps=MEGABYTE), "steps")
    assert not Skill.objects.exists()


def test_a_skills_steps_past_the_limit_through_the_service(org, agent):
    from routines import services as routine_services

    with pytest.raises(ToolError, match=r"^steps: "):
        routine_services.skill_add(org=org, agent=agent, name="Onboard", about="", steps="s" * (limits.SKILL_STEPS + 1))
    skill = routine_services.skill_add(org=org, agent=agent, name="Onboard", about="", steps="1. Call")
    with pytest.raises(ToolError, match=r"^steps: "):
        routine_services.skill_change(skill=skill, name=None, about=None, steps="s" * (limits.SKILL_STEPS + 1),
                                      why="longer")


def test_an_agent_keeps_a_bounded_number_of_skills(org, agent):
    from routines import services as routine_services

    for i in range(limits.SKILLS_PER_AGENT):
        Skill.objects.create(organization=org, agent=agent, slug=f"s{i}", name=f"S{i}", steps="1.")
    with pytest.raises(ToolError, match="the most an agent keeps"):
        routine_services.skill_add(org=org, agent=agent, name="One more", about="", steps="1.")


@pytest.mark.parametrize("arguments, field", [
    ({"note": MEGABYTE}, "note"),
    ({"name": MEGABYTE}, "name"),
    ({"when": {"ask": "new client " * 200}}, "when.ask"),
    ({"filter": {"withGuests": MEGABYTE}}, "filter"),
    ({"when": {"check": {"tool": "books", "action": "invoices", "everyMinutes": 10**30}}}, "when.check.everyMinutes"),
    ({"when": {"due": "9999-12-31T23:59:59-14:00"}}, "when.due"),
])
def test_a_routine_past_a_limit_is_refused_naming_it(agent, arguments, field):
    result = tool(agent, "triggers", action="add", **{"name": "Nudge", "when": {"at": "0 9 * * 1"}, **arguments})
    assert refused(result, field), result
    assert not Routine.objects.exists()


# --- packets, messages, results -----------------------------------------------------------------------------------


def test_a_packets_link_past_its_limit_is_refused(roadstar, agent):
    result = tool(roadstar, "hand_off", agent=agent.name, task="Read this", links=["web:" + "a" * limits.PACKET_LINK])
    assert result["error"] == "bad_input" and "links[0]:" in result["message"]


def test_a_megabyte_task_is_refused_without_reading_it(roadstar, agent):
    assert tool(roadstar, "hand_off", agent=agent.name, task=MEGABYTE)["error"] == "bad_input"


def test_an_owners_message_past_its_limit_is_refused(org, agent):
    with pytest.raises(ToolError, match=r"^text: "):
        services.owner_message_send(org=org, agent=agent, text="m" * (limits.MESSAGE + 1))


def test_a_result_past_its_limit_is_too_large_and_not_kept():
    small = {"items": ["a"] * 10}
    assert within_limit(small) is small
    result = within_limit({"text": "r" * limits.TOOL_RESULT})
    assert result["error"] == "too_large" and "Ask for less" in result["message"]


def test_a_contact_keeps_a_bounded_number_of_fields(org, ctx):
    from tools.pipeline import use_tool

    contact = ContactFactory(organization=org, name="Dana Whitfield")
    many = {f"f{i}": "x" for i in range(limits.CONTACT_FIELDS + 1)}
    result = use_tool(ctx, "contacts.update", {"contactId": str(contact.id), "fields": many})
    assert result["error"] == "bad_input" and result["message"].startswith("fields:")
    big = use_tool(ctx, "contacts.create", {"name": "Dana", "fields": {"notes": MEGABYTE}})
    assert big["error"] == "bad_input" and big["message"].startswith("fields.notes:")


def test_a_companys_detail_has_a_limit(org, ctx):
    from tests.factories import CompanyFactory
    from tools.pipeline import use_tool

    company = CompanyFactory(organization=org, name="Juniper Dental")
    result = use_tool(ctx, "companies.update", {"companyId": str(company.id), "details": {"Terms": MEGABYTE},
                                                "why": "Terms"})
    assert result["error"] == "bad_input" and "details" in result["message"]


def test_the_limits_in_the_tools_schemas_are_the_declared_ones():
    from routines.agent_tools import SkillsInput

    schema = SkillsInput.model_json_schema(by_alias=True)["properties"]
    assert schema["steps"]["anyOf"][0]["maxLength"] == limits.SKILL_STEPS
