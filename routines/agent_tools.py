"""`triggers` and `skills`: the agent tools for routines and skills (spec/tools/routines.md).

Found by convention, as agents/agent_tools.py is (see there): the tool registry imports this module when Django
loads the apps, and the agents' dispatcher runs them through the tool pipeline with the turn as `ctx.host`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import WithJsonSchema

from agents import services as agent_services
from agents.runtime.host import ToolHost, host_of
from core import limits
from core.errors import ToolError
from core.inputs import Chars, Whole
from routines import services
from routines.models import Routine, Skill
from tools.registry import CHAT, OUTSIDE, ROADSTAR_CHAT, THREAD, Done, Kind, ToolInput, agent_tool, describe_inputs


def _target_agent(turn: ToolHost, name: str | None):
    """You by default; another agent by name only from Roadstar's chat."""
    if not name or name.strip().lower() == turn.agent.name.lower():
        return turn.agent
    target = agent_services.agent_by_name(org=turn.org, name=name)
    if not turn.agent.is_roadstar:
        raise ToolError("bad_input", f"agent: only Roadstar's chat sets routines and skills for other agents; "
                                     f"ask Roadstar to set this one for {target.name}.")
    return target


# --- triggers -------------------------------------------------------------------------------------------------


# `when` as a model reads it: one or more of its kinds, each typed with its limits (the spec's words where it has
# them). routines.services._validate_when holds every part to the same limits and names the part it refuses.
WHEN_SCHEMA = {
    "type": ["object", "null"],
    "description": "When it fires: keys, words, a cron time, a due time, or a check",
    "properties": {
        "keys": {
            "type": "array",
            "description": (
                "Any of these fires it: kind: (kind:invoice.overdue, kind:meeting.added, kind:doc.changed, "
                "kind:form.submitted), thread::, from:, domain:, with:, doc::, invoice:qb:, customer:qb:"
            ),
            "items": {"type": "string", "minLength": 1, "maxLength": 300},
            "minItems": 1,
            "maxItems": services.MAX_KEYS,
        },
        "ask": {
            "type": "string",
            "description": (
                'Words checked against each new email and document of the owner\'s, such as "a new client asking '
                'about a project"'
            ),
            "minLength": 1,
            "maxLength": limits.ROUTINE_ASK,
        },
        "at": {
            "type": "string",
            "description": 'A cron line in the owner\'s time zone: "30 7 * * 1-5" is weekdays 7:30',
        },
        "due": {
            "type": "string",
            "description": "A one-off time, ISO 8601, such as a wait's deadline",
        },
        "check": {
            "type": "object",
            "description": "Every so many minutes, run a tool that only reads; it fires when the result changed",
            "properties": {
                "tool": {"type": "string", "description": "The tool's group, such as books"},
                "action": {"type": "string", "description": "The tool's action, such as invoices"},
                "input": {"type": "object", "description": "The tool's input"},
                "everyMinutes": {
                    "type": "integer",
                    "description": "How often to run it, in minutes",
                    "minimum": services.MIN_CHECK_MINUTES,
                    "maximum": services.MAX_CHECK_MINUTES,
                },
            },
            "required": ["tool", "action", "everyMinutes"],
            "additionalProperties": False,
        },
    },
    "minProperties": 1,
    "additionalProperties": False,
}
FILTER_SCHEMA = {"type": ["object", "null"], "description": "Checks on the event, such as {withGuests: true}"}


class TriggersInput(ToolInput):
    action: Literal["list", "add", "off", "on", "change"]
    agent: Annotated[str, Chars(0, limits.AGENT_NAME)] | None = None
    id: Annotated[int, Whole(0)] | None = None
    name: Annotated[str, Chars(0, limits.ROUTINE_NAME)] | None = None
    skill: Annotated[str, Chars(0, limits.SKILL_NAME)] | None = None
    note: Annotated[str, Chars(0, limits.ROUTINE_NOTE)] | None = None
    when: Annotated[dict | None, WithJsonSchema(WHEN_SCHEMA)] = None
    filter: Annotated[dict | None, WithJsonSchema(FILTER_SCHEMA)] = None
    once: bool | None = None


def routine_row(routine: Routine) -> dict:
    return {
        "id": routine.id, "name": routine.name, "note": routine.note, "when": services.when_of(routine),
        "status": routine.status, "fired": routine.fired,
        "skill": routine.skill.slug if routine.skill is not None else None,
    }


def _routine(turn: ToolHost, agent, routine_id: int | None) -> Routine:
    if routine_id is None:
        raise ToolError("bad_input", "id: give the routine's number, from list")
    routine = Routine.objects.filter(organization=turn.org, agent=agent, id=routine_id).select_related(
        "organization", "skill", "agent"
    ).first()
    if routine is None:
        raise ToolError("not_found", f"{agent.name} has no routine {routine_id}; list shows its routines.")
    return routine


# A new routine shows on Home; a change goes past the check first; turning one off or on is the agent's own
# schedule, neither asked nor listed.
TRIGGERS_KINDS: dict[str, Kind] = {"list": "reads", "add": "makes", "off": "works", "on": "works", "change": "changes"}


def _triggers_kind(ctx, inp: TriggersInput) -> Kind:
    return TRIGGERS_KINDS[inp.action]


def _triggers_replaces(ctx, inp: TriggersInput) -> dict:
    # Asked only for a change (the one checked action): the routine it would rewrite.
    routine = _routine(host_of(ctx), _target_agent(host_of(ctx), inp.agent), inp.id)
    return {"name": routine.name, "note": routine.note, "when": services.when_of(routine)}


@agent_tool(
    "triggers",
    "When an agent works on its own: on a schedule, or when something happens, such as new mail. One that keeps "
    "going is a routine.",
    TriggersInput,
    {ROADSTAR_CHAT, CHAT},
    kind=_triggers_kind,
    your_work="home",
    replaces=_triggers_replaces,
)
def triggers(ctx, inp: TriggersInput):
    turn = host_of(ctx)
    agent = _target_agent(turn, inp.agent)
    if inp.action == "list":
        routines = Routine.objects.filter(organization=turn.org, agent=agent).select_related("skill")
        return {"routines": [routine_row(r) for r in routines]}
    if inp.action == "add":
        if not inp.name or inp.when is None:
            raise ToolError("bad_input", "name, when: a new routine needs a name and when it fires")
        routine = services.routine_add(
            org=turn.org, agent=agent, name=inp.name, when=inp.when, note=inp.note or "", skill=inp.skill,
            filter=inp.filter, once=bool(inp.once),
        )
        return Done({"saved": routine.id, "when": services.when_text(routine)},
                    sentence=f"set a routine for {agent.name}: {routine.name} ({services.when_text(routine)})",
                    target_type="routine", target_id=str(routine.id), created=True)
    routine = _routine(turn, agent, inp.id)
    if inp.action in ("off", "on"):
        services.routine_set_on(routine=routine, on=inp.action == "on")
        return {"turnedOn": routine.id} if inp.action == "on" else {"turnedOff": routine.id}
    services.routine_change(routine=routine, name=inp.name, when=inp.when, note=inp.note, skill=inp.skill,
                            filter=inp.filter, once=inp.once)
    return Done({"changed": routine.id}, sentence=f"changed {agent.name}'s routine {routine.name}",
                target_type="routine", target_id=str(routine.id))


# --- skills ---------------------------------------------------------------------------------------------------


class SkillsInput(ToolInput):
    action: Literal["list", "read", "add", "change"]
    agent: Annotated[str, Chars(0, limits.AGENT_NAME)] | None = None
    id: Annotated[str, Chars(0, limits.SKILL_NAME)] | None = None
    name: Annotated[str, Chars(0, limits.SKILL_NAME)] | None = None
    about: Annotated[str, Chars(0, limits.SKILL_ABOUT)] | None = None
    steps: Annotated[str, Chars(0, limits.SKILL_STEPS)] | None = None
    why: Annotated[str, Chars(0, limits.SKILL_WHY)] | None = None


def _saved(agent, skill: Skill) -> dict:
    return {"saved": {"agent": agent.name, "id": skill.slug, "name": skill.name}}


@agent_tool(
    "skills",
    "List, read, add or change an agent's skills: step-by-step how-tos for one kind of work, such as \"Onboard a "
    "client\". A skill never widens what the agent may do.",
    SkillsInput,
    {ROADSTAR_CHAT, CHAT, THREAD, OUTSIDE},
    kind="works",
)
def skills(ctx, inp: SkillsInput):
    turn = host_of(ctx)
    agent = _target_agent(turn, inp.agent) if inp.action in ("add", "change") else (
        agent_services.agent_by_name(org=turn.org, name=inp.agent) if inp.agent else turn.agent
    )
    if inp.action == "list":
        return {"skills": [{"id": s.slug, "name": s.name, "about": s.about} for s in Skill.objects.filter(agent=agent)]}
    if inp.action == "read":
        skill = services.skill_get(agent=agent, skill_id=inp.id or "")
        return {"id": skill.slug, "name": skill.name, "about": skill.about, "steps": skill.steps}
    if inp.action == "add":
        skill = services.skill_add(org=turn.org, agent=agent, name=inp.name or "", about=inp.about or "",
                                   steps=inp.steps or "", why=inp.why or "")
        return _saved(agent, skill)
    skill = services.skill_get(agent=agent, skill_id=inp.id or "")
    skill = services.skill_change(skill=skill, name=inp.name, about=inp.about, steps=inp.steps, why=inp.why or "")
    return _saved(agent, skill)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "triggers": {
        "action": "list the routines, add one, turn one off or on, or change one",
        "agent": "The agent, by name; you by default",
        "id": "The routine's number, from list",
        "name": "The routine's name, a few words",
        "skill": "One of the agent's skills to run",
        "note": "What to do when it fires",
        "when": "When it fires: keys, words, a cron time, a due time, or a check",
        "filter": "Checks on the event, such as {withGuests: true}",
        "once": "Fires once, such as a nudge on Monday if a thread has no reply",
    },
    "skills": {
        "action": "list the skills, read one, add one or change one",
        "agent": "The agent, by name; you by default",
        "id": "The skill, from list",
        "name": "The skill's name, such as \"Chase an invoice\"",
        "about": "When it applies, in one line",
        "steps": "The steps, one a line",
        "why": "For a change: why, in a line the owner reads",
    },
})
