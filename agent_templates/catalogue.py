"""Roadstar's own templates: YAML files under `catalogue/`, one template a file, checked by pydantic when loaded.

A file that doesn't hold together (a missing field, a job description past its limit, a blank no question asks, a
routine on a skill the agent hasn't got) fails with `CatalogueError`, naming the file and the field; a test loads
every file, so a broken one never ships. The same `TemplateBody` shape holds the templates a workspace shares
(`SharedTemplate.body`), so adding one runs one path whoever made it.

Blanks: a question's `blank` (`practice`) is written `{{practice}}` in the texts it fills (jobs, job descriptions,
skills' steps, routines' notes and asks). Adding a template fills each with the owner's answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from croniter import croniter
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from agents.models import Agent
from core import limits
from routines.services import EVENT_KINDS, KEY_PREFIXES

CATALOGUE_DIR = Path(__file__).resolve().parent / "catalogue"
ROADSTAR_PREFIX = "roadstar/"

TemplateKind = Literal["agent", "skill", "team", "department"]
FillKind = Literal["file", "agent", "folder", "text", "company", "choice", "web", "contact"]
BLANK = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)\s*\}\}")
BLANK_NAME = r"^[a-z][a-z0-9_]{0,39}$"
MODEL_IDS = tuple(choice for choice, _ in Agent.Model.choices)
# A catalogue file is checked with every blank this long (a business's name, a link): the texts must fit with
# room to spare. The owner's real answers are measured again when the template is added.
TYPICAL_ANSWER = 40


class CatalogueError(Exception):
    pass


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Question(_Strict):
    blank: str = Field(pattern=BLANK_NAME)
    asks: str = Field(min_length=1, max_length=200)
    kind: FillKind
    choices: list[str] = Field(default_factory=list, max_length=12)

    @model_validator(mode="after")
    def _choices_for_a_choice(self):
        if self.kind == "choice" and len(self.choices) < 2:
            raise ValueError("a choice question lists at least two choices")
        if self.kind != "choice" and self.choices:
            raise ValueError("only a choice question lists choices")
        return self


class SkillBody(_Strict):
    name: str = Field(min_length=1, max_length=limits.SKILL_NAME)
    when: str = Field(min_length=1, max_length=limits.SKILL_ABOUT)
    steps: str = Field(min_length=1, max_length=limits.SKILL_STEPS)


class When(_Strict):
    at: str | None = None
    keys: list[str] | None = None
    ask: str | None = Field(default=None, max_length=limits.ROUTINE_ASK)

    @field_validator("at")
    @classmethod
    def _cron(cls, value):
        if value is not None and (len(value.split()) != 5 or not croniter.is_valid(value)):
            raise ValueError(f"{value!r} is not a cron line such as \"0 9 * * 1\"")
        return value

    @field_validator("keys")
    @classmethod
    def _keys(cls, value):
        for key in value or []:
            if not key.startswith(KEY_PREFIXES) or (key.startswith("kind:") and key not in EVENT_KINDS):
                raise ValueError(f"{key!r} is not a key Roadstar tells (kinds: {', '.join(EVENT_KINDS)})")
        return value

    @model_validator(mode="after")
    def _one_at_least(self):
        if not (self.at or self.keys or self.ask):
            raise ValueError("give at least one of at, keys, ask")
        return self

    def as_when(self) -> dict:
        return {k: v for k, v in (("at", self.at), ("keys", self.keys), ("ask", self.ask)) if v}


class RoutineBody(_Strict):
    name: str = Field(min_length=1, max_length=limits.ROUTINE_NAME)
    when: When
    note: str = Field(default="", max_length=limits.ROUTINE_NOTE)
    skill: str | None = None  # one of the same agent's skills, by name


class AgentBody(_Strict):
    name: str = Field(min_length=1, max_length=60)
    job: str = Field(min_length=1, max_length=limits.AGENT_JOB)
    owns: str = Field(min_length=1)
    good: str = Field(min_length=1)
    works: str = Field(min_length=1)
    asks_first: str = Field(min_length=1)
    model: str = Agent.Model.TERRA
    under: str | None = None  # another agent of the same template; none: where the owner places the template
    skills: list[SkillBody] = Field(default_factory=list, max_length=limits.SKILLS_PER_AGENT)
    routines: list[RoutineBody] = Field(default_factory=list, max_length=20)

    @field_validator("model")
    @classmethod
    def _model(cls, value):
        if value not in MODEL_IDS:
            raise ValueError(f"{value!r} is not a model; they are {', '.join(MODEL_IDS)}")
        return value

    @model_validator(mode="after")
    def _fits(self):
        # With every blank filled by a typical answer the description must fit, with room for longer ones.
        length = sum(len(_typical(part)) for part in (self.owns, self.good, self.works, self.asks_first))
        if length > limits.JOB_DESCRIPTION:
            raise ValueError(f"owns, good, works and asks_first come to {length} characters with each blank "
                             f"answered; a job description is at most {limits.JOB_DESCRIPTION}")
        if len(_typical(self.job)) > limits.AGENT_JOB:
            raise ValueError(f"job: at most {limits.AGENT_JOB} characters with each blank answered")
        skill_names = [s.name for s in self.skills]
        if len({n.lower() for n in skill_names}) != len(skill_names):
            raise ValueError("two skills of one agent share a name")
        for routine in self.routines:
            if routine.skill is not None and routine.skill not in skill_names:
                raise ValueError(f"routine {routine.name!r}: skill {routine.skill!r} is not one of this agent's skills")
        return self


class TemplateBody(_Strict):
    """One template, as a catalogue file holds it and as a workspace's shared one is kept."""

    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,79}$")
    name: str = Field(min_length=1, max_length=80)
    kind: TemplateKind
    version: int = Field(ge=1)
    says: str = Field(min_length=1, max_length=300)
    department: str | None = Field(default=None, max_length=limits.AGENT_DEPARTMENT)
    words: list[str] = Field(default_factory=list, max_length=30)  # more words search finds it by
    questions: list[Question] = Field(default_factory=list, max_length=12)
    agents: list[AgentBody] = Field(default_factory=list, max_length=16)
    skill: SkillBody | None = None

    @model_validator(mode="after")
    def _holds_together(self):
        if self.kind == "skill":
            if self.skill is None or self.agents:
                raise ValueError("a skill template has `skill` and no agents")
        else:
            if self.skill is not None or not self.agents:
                raise ValueError(f"a {self.kind} template has agents and no top-level `skill`")
            if self.kind == "agent" and len(self.agents) != 1:
                raise ValueError("an agent template has exactly one agent")
            if self.kind in ("team", "department") and len(self.agents) < 2:
                raise ValueError(f"a {self.kind} has at least two agents")
        if (self.kind == "department") != bool(self.department):
            raise ValueError("a department template names its department, and only a department does")
        names = [a.name.lower() for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError("two agents share a name")
        for agent in self.agents:
            if agent.under is not None and agent.under.lower() not in names:
                raise ValueError(f"agent {agent.name!r}: under {agent.under!r} is not an agent of this template")
            if agent.under is not None and agent.under.lower() == agent.name.lower():
                raise ValueError(f"agent {agent.name!r} can't be under itself")
        if self.agents and all(a.under is not None for a in self.agents):
            raise ValueError("at least one agent is at the top (no `under`), where the owner places the template")
        asked = [q.blank for q in self.questions]
        if len(set(asked)) != len(asked):
            raise ValueError("two questions share a blank")
        used = set(BLANK.findall(" ".join(self.texts())))
        if used - set(asked):
            raise ValueError(f"blank {{{{{min(used - set(asked))}}}}} is used but no question asks it")
        if set(asked) - used:
            raise ValueError(f"question {min(set(asked) - used)!r} fills no blank")
        return self

    def texts(self) -> list[str]:
        """Every text a blank may be in."""
        found = []
        for agent in self.agents:
            found += [agent.job, agent.owns, agent.good, agent.works, agent.asks_first]
            found += [text for s in agent.skills for text in (s.when, s.steps)]
            found += [text for r in agent.routines for text in (r.note, r.when.ask or "")]
        if self.skill is not None:
            found += [self.skill.when, self.skill.steps]
        return found

    def question(self, blank: str) -> Question | None:
        return next((q for q in self.questions if q.blank == blank), None)


def _typical(text: str) -> str:
    return BLANK.sub("x" * TYPICAL_ANSWER, text)


def fill(text: str, answers: dict[str, str]) -> str:
    """The text with each blank replaced by its answer (every blank has one by the time a template is added)."""
    return BLANK.sub(lambda m: answers.get(m.group(1), m.group(0)), text)


def _where(error: Mapping[str, Any]) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(the whole template)"


def load_file(path: Path) -> TemplateBody:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CatalogueError(f"{path.name}: not YAML: {error}") from None
    if not isinstance(raw, dict):
        raise CatalogueError(f"{path.name}: a template file holds one mapping")
    try:
        body = TemplateBody.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        raise CatalogueError(f"{path.name}: {_where(first)}: {first['msg']}") from None
    if path.stem != body.slug:
        raise CatalogueError(f"{path.name}: slug: {body.slug!r} must be the file's name ({path.stem!r})")
    return body


def load_dir(directory: Path) -> dict[str, TemplateBody]:
    """Every template in the folder, by its id (`roadstar/<slug>`), in the files' order."""
    return {ROADSTAR_PREFIX + body.slug: body
            for body in (load_file(path) for path in sorted(directory.glob("*.yaml")))}


@functools.cache
def roadstar_templates() -> dict[str, TemplateBody]:
    """Roadstar's own templates, read once per process: they change only with a release."""
    return load_dir(CATALOGUE_DIR)
