"""The templates group: thin declarations over agent_templates' selectors and services.

It lives in this app, in the module the tool registry finds by its name (tools.registry.load_all), rather than in
tools/groups/, because adding a template makes agents, skills and routines, which sit above tools. The propose
tools only ask: the card waits on Home, and the owner's press there is the only way anything is added or shared.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from agent_templates import selectors, services
from core import limits
from core.inputs import Chars
from tools.registry import Done, Group, Tool, ToolInput, describe_inputs, register, register_group

register_group(
    Group(
        name="templates",
        summary="agents, teams, departments and skills shared in the workspace",
        how_to=(
            "Setups someone already made: an agent, a team, a department or a skill. Search before making an "
            "agent. To suggest one, find what answers you can, say where, and propose_add; the owner adds it. "
            "propose_share when the owner asks to share. Never add or share yourself."
        ),
    )
)


# --- search -------------------------------------------------------------------------------------------------


class SearchInput(ToolInput):
    query: Annotated[str, Chars(1, 120)]


def search(ctx, inp: SearchInput):
    return selectors.template_search(org=ctx.org, query=inp.query)


register(Tool(name="templates.search", description="Templates matching words, best first, each with what matched",
              input=SearchInput, run=search, kind="reads"))


# --- read ---------------------------------------------------------------------------------------------------


class ReadInput(ToolInput):
    id: Annotated[str, Chars(1, 120)]


def read(ctx, inp: ReadInput):
    return selectors.template_read(org=ctx.org, template_id=inp.id)


register(Tool(name="templates.read", description="One template in full: its agents, skills, routines and questions",
              input=ReadInput, run=read, kind="reads"))


# --- propose_add --------------------------------------------------------------------------------------------


class Answer(ToolInput):
    value: Annotated[str, Chars(1, limits.TEMPLATE_ANSWER)]
    found: Annotated[str, Chars(0, 300)] | None = Field(default=None, description="Where you found it")


class ProposeAddInput(ToolInput):
    id: Annotated[str, Chars(1, 120)]
    answers: Annotated[dict[Annotated[str, Chars(1, 40)], Answer], Field(max_length=40)] | None = None
    under: Annotated[str, Chars(0, 60)] | None = Field(default=None,
                                      description="One of the owner's agents its top agents report to")
    to: Annotated[str, Chars(0, 60)] | None = Field(default=None, description="For a skill: the agent that gets it")
    why: Annotated[str, Chars(1, 400)] = Field(description="Why it fits, in a line or two the owner reads")


def _asked(card, new: bool, what: str) -> str:
    if not new:
        return f"{what} was waiting on Home already; the owner answers it there. Nothing was asked twice."
    return f"{what} waits on Home for the owner. Nothing is made until they say yes there; you'll read their answer."


def propose_add(ctx, inp: ProposeAddInput):
    card, new = services.template_propose_add(
        org=ctx.org, actor=ctx.actor, template_id=inp.id,
        answers={k: a.model_dump() for k, a in (inp.answers or {}).items()}, under=inp.under or None,
        to=inp.to or None, why=inp.why,
    )
    name = card.title.removeprefix("Add the template ").removesuffix("?")
    return Done(result={"asked": _asked(card, new, f"Adding {name}")},
                sentence=f"asked you to add the template {name}" if new else f"asked again to add {name}",
                target_type="card", target_id=str(card.id))


register(Tool(name="templates.propose_add", description="Ask the owner to add one, with the answers you found and "
              "where", input=ProposeAddInput, run=propose_add, kind="makes", your_work="home"))


# --- propose_share ------------------------------------------------------------------------------------------


class SkillRef(ToolInput):
    agent: Annotated[str, Chars(1, 60)]
    name: Annotated[str, Chars(1, 60)]


class ProposeShareInput(ToolInput):
    agents: Annotated[
        list[Annotated[str, Chars(1, 60)]], Field(max_length=16, description="The agents by name")
    ] | None = None
    skill: SkillRef | None = None
    why: Annotated[str, Chars(1, 400)]

    @model_validator(mode="after")
    def _one_of(self):
        if bool(self.agents) == (self.skill is not None):
            raise ValueError("agents, skill: give the agents to share, or one agent's skill (not both)")
        return self


def propose_share(ctx, inp: ProposeShareInput):
    card, new = services.template_propose_share(
        org=ctx.org, actor=ctx.actor, agents=inp.agents,
        skill=services.SkillNamed(agent=inp.skill.agent, name=inp.skill.name) if inp.skill else None, why=inp.why,
    )
    what = card.title.removesuffix("?")
    return Done(result={"asked": _asked(card, new, f"“{what}”")},
                sentence=f"asked you to {what[0].lower()}{what[1:]}" if new else f"asked again: {what}",
                target_type="card", target_id=str(card.id))


register(Tool(name="templates.propose_share", description="Ask the owner to share some of their agents, or one "
              "skill, as a template", input=ProposeShareInput, run=propose_share, kind="makes", your_work="home"))


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "templates.search": {
        "query": "Words to look for in the shared agents, teams, departments and skills",
    },
    "templates.read": {
        "id": "The template's id, from templates.search",
    },
    "templates.propose_add": {
        "id": "The template's id, from templates.search",
        "answers": "Its questions' answers, by question id, as templates.read lists them",
    },
    "templates.propose_share": {
        "skill": "For a skill: its agent and the skill's id, from skills list",
        "why": "Why it's worth sharing, in a line or two the owner reads",
    },
})
