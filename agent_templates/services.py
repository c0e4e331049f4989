"""Writes: an agent's ask to add or share a template (a card on Home), and the owner's answer to it.

Agents never add or share a template themselves. `template_propose_add` and `template_propose_share` put a card
on Home's Waiting for you; only the owner's press there (`template_add`, `template_share`) makes anything. Adding
makes the template's agents, skills and routines in one transaction and records one change, listed on Home with
Undo; its undo (`undo_template_add`) removes all of it, or nothing when any of it changed since.
"""

from __future__ import annotations

from typing import Any, TypedDict

from django.db import models, transaction
from django.utils import timezone
from django.utils.text import slugify
from pydantic import ValidationError

from agent_templates import selectors
from agent_templates.catalogue import TemplateBody, fill
from agent_templates.models import SharedTemplate
from agents import services as agent_services
from agents.models import Agent, Message, Work
from core import limits, live
from core.actors import Actor
from core.errors import ToolError
from core.models import Card, Change, Organization
from core.services import card_open, change_record
from core.undo import snapshot, undo_data
from routines import services as routine_services
from routines.models import Routine, Skill

ADD_TOOL = "templates.add"
SHARE_TOOL = "templates.share"
AGENT_FIELDS = ("name", "job", "owns", "good", "works", "asks_first", "model", "reports_to", "department", "notes",
                "paused", "monthly_budget", "runs_on", "thinking")
SKILL_FIELDS = ("agent", "name", "about", "steps")
ROUTINE_FIELDS = ("agent", "name", "note", "skill", "at", "ask", "keys", "due", "check_tool", "filter", "once",
                  "status", "fired")


class Made(TypedDict):
    """One thing a template added, as its undo finds it: by id, with its fields as made."""

    id: str | int  # an agent's id as text; a skill's or a routine's number
    was: dict[str, Any]  # core.undo.snapshot of it


class TemplateAddUndo(TypedDict):
    template: str
    agents: list[Made]
    skills: list[Made]
    routines: list[Made]


class TemplateShareUndo(TypedDict):
    shared_id: int
    before: dict[str, Any] | None  # the template's fields before it was shared again; None when it was new
    version: int


# --- answers to a template's questions ---------------------------------------------------------------------------


def check_answer(*, org, body: TemplateBody, blank: str, value: str, where: str) -> str:
    """One answer, checked against its question's kind; `where` names it in the error (answers.practice)."""
    question = body.question(blank)
    if question is None:
        asked = ", ".join(q.blank for q in body.questions) or "none"
        raise ToolError("bad_input", f"{where}: the template has no question {blank!r}; its questions: {asked}")
    value = (value or "").strip()
    if not value:
        raise ToolError("bad_input", f"{where}: an answer can't be empty")
    if "{{" in value or "}}" in value:
        raise ToolError("bad_input", f"{where}: an answer can't hold {{{{ or }}}}")
    if len(value) > limits.TEMPLATE_ANSWER:
        raise ToolError("bad_input", f"{where}: {len(value)} characters; an answer is at most {limits.TEMPLATE_ANSWER}")
    if question.kind == "choice" and value not in question.choices:
        raise ToolError("bad_input", f"{where}: {value!r} is not one of the choices: {', '.join(question.choices)}")
    if question.kind == "web" and not value.startswith(("https://", "http://")):
        raise ToolError("bad_input", f"{where}: {value!r} is not a web address (https://…)")
    if question.kind == "agent" and not Agent.objects.filter(organization=org, name__iexact=value).exists():
        raise ToolError("bad_input", f"{where}: the owner has no agent called {value!r}")
    return value


def _owner_agent(*, org, name: str, where: str) -> Agent:
    agent = Agent.objects.filter(organization=org, name__iexact=name.strip()).first()
    if agent is None:
        names = ", ".join(Agent.objects.filter(organization=org).values_list("name", flat=True))
        raise ToolError("not_found", f"{where}: there is no agent called {name!r}. The owner's agents are: {names}.")
    return agent


def _owner_agent_if_named(*, org, name: str | None, where: str) -> Agent | None:
    """The agent called `name`, or None when no name is given (the template's own default place)."""
    return _owner_agent(org=org, name=name, where=where) if name else None


# --- asks: propose_add, propose_share --------------------------------------------------------------------------


def _asker(actor: Actor) -> dict:
    return {"agent_id": actor.id if actor.kind == "agent" else "", "agent_name": actor.name}


def template_propose_add(*, org, actor: Actor, template_id: str, answers: dict[str, dict], under: str | None,
                         to: str | None, why: str) -> tuple[Card, bool]:
    """Put the ask on Home; (the card, whether it is new). The same template asked again while its card waits
    returns that card: the owner answers once."""
    found = selectors.template_get(org=org, template_id=template_id)
    body = found.body
    clean = {}
    for blank, answer in answers.items():
        clean[blank] = {"value": check_answer(org=org, body=body, blank=blank, value=answer["value"],
                                              where=f"answers.{blank}.value"),
                        "found": (answer.get("found") or "").strip()}
    if body.kind == "skill":
        if under:
            raise ToolError("bad_input", "under: a skill goes to one agent; name it with to")
        _owner_agent_if_named(org=org, name=to, where="to")
    else:
        if to:
            raise ToolError("bad_input", f"to: only a skill goes to an agent; this template is a {body.kind}: "
                                         "place it with under")
        _owner_agent_if_named(org=org, name=under, where="under")
    subject = f"template-add:{found.id}"
    waiting = Card.objects.filter(organization=org, subject=subject, resolved_at__isnull=True).first()
    if waiting is not None:
        return waiting, False
    card = card_open(
        org=org, kind=Card.Kind.TEMPLATE, subject=subject, title=f"Add the template “{body.name}”?", body=why,
        data={"action": "add", "template": found.id, "version": body.version, "answers": clean,
              "under": under or "", "to": to or "", **_asker(actor)},
    )
    return card, True


def _shared_agents(*, org, names: list[str]) -> list[Agent]:
    agents, seen = [], set()
    for i, name in enumerate(names):
        agent = _owner_agent(org=org, name=name, where=f"agents[{i}]")
        if agent.is_roadstar:
            raise ToolError("bad_input", f"agents[{i}]: Roadstar comes with every workspace; it isn't shared")
        if agent.id in seen:
            raise ToolError("bad_input", f"agents[{i}]: {agent.name} is named twice")
        seen.add(agent.id)
        agents.append(agent)
    return agents


def _shared_skill(*, org, agent_name: str, skill_name: str) -> Skill:
    agent = _owner_agent(org=org, name=agent_name, where="skill.agent")
    wanted = skill_name.strip().lower()
    skill = next((s for s in Skill.objects.filter(agent=agent) if wanted in (s.name.lower(), s.slug)), None)
    if skill is None:
        names = ", ".join(Skill.objects.filter(agent=agent).values_list("name", flat=True)) or "none yet"
        raise ToolError("not_found", f"skill.name: {agent.name} has no skill {skill_name!r}. Its skills: {names}.")
    return skill


class SkillNamed(TypedDict):
    """One of the owner's agents' skills, by the agent's name and the skill's."""

    agent: str
    name: str


def template_propose_share(*, org, actor: Actor, agents: list[str] | None, skill: SkillNamed | None,
                           why: str) -> tuple[Card, bool]:
    data: dict[str, object]
    if agents and not skill:
        shared = _shared_agents(org=org, names=agents)
        names = [a.name for a in shared]
        data = {"action": "share", "agents": [str(a.id) for a in shared]}
        subject = "template-share:" + ",".join(sorted(str(a.id) for a in shared))
        title = f"Share {_and(names)} as a template?"
    elif skill and not agents:
        found = _shared_skill(org=org, agent_name=skill["agent"], skill_name=skill["name"])
        data = {"action": "share", "skill": found.id}
        subject = f"template-share-skill:{found.id}"
        title = f"Share {found.agent.name}'s skill “{found.name}” as a template?"
    else:
        raise ToolError("bad_input", "agents, skill: give the agents to share, or one agent's skill, not both")
    waiting = Card.objects.filter(organization=org, subject=subject, resolved_at__isnull=True).first()
    if waiting is not None:
        return waiting, False
    card = card_open(org=org, kind=Card.Kind.TEMPLATE, subject=subject[:200], title=title, body=why,
                     data={**data, **_asker(actor)})
    return card, True


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --- the owner adds -----------------------------------------------------------------------------------------------


def _claim(org, card_id) -> Card:
    """Take the card for this answer: a conditional write, so two presses (two tabs, a double click) add once."""
    card = Card.objects.filter(organization=org, id=card_id, kind=Card.Kind.TEMPLATE).first()
    if card is None:
        raise ToolError("not_found", "That ask isn't in this workspace.")
    if not Card.objects.filter(id=card.id, resolved_at__isnull=True).update(resolved_at=timezone.now()):
        raise ToolError("changed", "That was answered already.")
    live.notify(org.id, "cards")
    return card


def _ordered(body: TemplateBody) -> list:
    """The template's agents with each one's boss (inside the template) before it."""
    done, ordered = set(), []
    pending = list(body.agents)
    while pending:
        ready = [a for a in pending if a.under is None or a.under.lower() in done]
        for agent in ready:
            ordered.append(agent)
            done.add(agent.name.lower())
            pending.remove(agent)
    return ordered


def template_add(*, org: Organization, user, card_id, answers: dict[str, str], place: str | None,
                 names: dict[str, str] | None = None) -> Change:
    """The owner's yes on Home: make the template's agents (named as the owner chose, the top ones under `place`),
    their skills and routines, or for a skill template give the skill to `place`, all in one transaction with its
    one change. A refusal (an answer missing, a name taken, the 40 agents) makes nothing and leaves the ask
    waiting."""
    actor = Actor.for_user(user)
    names = names or {}
    with transaction.atomic():
        card = _claim(org, card_id)
        if card.data.get("action") != "add":
            raise ToolError("bad_input", "That ask is to share, not to add.")
        found = selectors.template_get(org=org, template_id=card.data.get("template", ""))
        body = found.body
        filled = {q.blank: check_answer(org=org, body=body, blank=q.blank, value=answers.get(q.blank, ""),
                                        where=q.asks) for q in body.questions}
        made_agents, made_skills, made_routines = [], [], []
        why = f"Added with the template {body.name}"
        if body.skill is not None:  # a skill template: TemplateBody holds its kind and its skill together
            skill = body.skill
            agent = _owner_agent_if_named(org=org, name=place, where="Give it to")
            if agent is None:
                raise ToolError("bad_input", "Choose the agent that gets the skill.")
            if Skill.objects.filter(agent=agent, slug=slugify(skill.name)[:80]).exists():
                raise ToolError("bad_input", f"{agent.name} has a skill called “{skill.name}” already: give "
                                             "this one to another agent, or say No.")
            made_skills.append(_skill(org, agent, skill.name, skill.when, skill.steps, filled, why))
            where = f"gave {agent.name} the skill “{skill.name}”"
        else:
            boss = _owner_agent_if_named(org=org, name=place, where="Under") or Agent.objects.get(organization=org,
                                                                                      is_roadstar=True)
            department = body.department or boss.department
            made_by_name: dict[str, Agent] = {}
            for spec in _ordered(body):
                name = (names.get(spec.name) or spec.name).strip()
                reports_to = made_by_name[spec.under.lower()].name if spec.under else boss.name
                agent = agent_services.agent_make(
                    org=org, actor=actor, name=name, job=fill(spec.job, filled), owns=fill(spec.owns, filled),
                    good=fill(spec.good, filled), works=fill(spec.works, filled),
                    asks_first=fill(spec.asks_first, filled), model=spec.model, reports_to=reports_to,
                    department=department,
                )
                made_by_name[spec.name.lower()] = agent
                made_agents.append(agent)
                for skill in spec.skills:
                    made_skills.append(_skill(org, agent, skill.name, skill.when, skill.steps, filled, why))
                for routine in spec.routines:
                    when = routine.when.as_when()
                    if "ask" in when:
                        when["ask"] = fill(when["ask"], filled)
                    made_routines.append(routine_services.routine_add(
                        org=org, agent=agent, name=routine.name, when=when, note=fill(routine.note, filled),
                        skill=slugify(routine.skill)[:80] if routine.skill else None,
                    ))
            where = f"made {_and([a.name for a in made_agents])} under {boss.name}"
        counts = "" if body.kind == "skill" else _counts(made_skills, made_routines)
        change = change_record(
            org=org, actor=actor, tool=ADD_TOOL, kind="makes",
            sentence=f"added the template “{body.name}”: {where}{counts}", listing=Change.Listing.HOME_UNDO,
            target_type="template", target_id=found.id, created=True,
            undo=TemplateAddUndo(
                template=found.id,
                agents=[Made(id=str(a.id), was=snapshot(a, AGENT_FIELDS)) for a in made_agents],
                skills=[Made(id=s.id, was=snapshot(s, SKILL_FIELDS)) for s in made_skills],
                routines=[Made(id=r.id, was=snapshot(r, ROUTINE_FIELDS)) for r in made_routines],
            ),
        )
        _tell_asker(org, card, f"{org.owner_first_name} added the template “{body.name}” you proposed: {where}"
                               f"{counts}.")
        return change


def _skill(org, agent: Agent, name: str, when: str, steps: str, filled: dict, why: str) -> Skill:
    return routine_services.skill_add(org=org, agent=agent, name=name, about=fill(when, filled),
                                      steps=fill(steps, filled), why=why)


def _counts(skills: list, routines: list) -> str:
    parts = []
    if skills:
        parts.append(f"{len(skills)} skill{'s' if len(skills) != 1 else ''}")
    if routines:
        parts.append(f"{len(routines)} routine{'s' if len(routines) != 1 else ''}")
    return f", with {' and '.join(parts)}" if parts else ""


def _tell_asker(org, card: Card, text: str) -> None:
    """A note in the asking agent's chat, so it knows what the owner did with its ask the next time it works."""
    agent_id = card.data.get("agent_id")  # "" when the owner asked, not an agent
    agent = Agent.objects.filter(organization=org, id=agent_id).first() if agent_id else None
    if agent is not None:
        agent_services.message_append(conversation=agent_services.chat_for(agent=agent), role=Message.Role.SYSTEM,
                                      text=text, data={"template_card": str(card.id)})


def undo_template_add(*, org, actor, change: Change) -> None:
    """Remove everything the template made, exactly as it was made; if any of it changed or did work since (or
    something else now hangs on it), nothing is removed and the owner reads why."""
    undo: TemplateAddUndo = undo_data(change)
    agents = {str(a.id): a for a in Agent.objects.select_for_update().filter(
        organization=org, id__in=[a["id"] for a in undo["agents"]])}
    skills = {s.id: s for s in Skill.objects.filter(organization=org, id__in=[s["id"] for s in undo["skills"]])}
    routines = {r.id: r for r in Routine.objects.filter(organization=org, id__in=[r["id"] for r in undo["routines"]])}
    # Each kind's rows by their id as text: an agent's id is kept as text, a skill's and a routine's as a number.
    kinds: list[tuple[list[Made], dict[str, models.Model], tuple[str, ...], str]] = [
        (undo["agents"], dict(agents), AGENT_FIELDS, "agent"),
        (undo["skills"], {str(i): s for i, s in skills.items()}, SKILL_FIELDS, "skill"),
        (undo["routines"], {str(i): r for i, r in routines.items()}, ROUTINE_FIELDS, "routine"),
    ]
    for made, rows, fields, what in kinds:
        for item in made:
            row = rows.get(str(item["id"]))
            shown = item["was"].get("name", "")
            if row is None:
                raise _moved_on(f"The {what} {shown} is gone already")
            if snapshot(row, fields) != item["was"]:
                raise _moved_on(f"The {what} {shown} was changed since")
    made_agents = list(agents.values())
    for agent in made_agents:
        if Work.objects.filter(agent=agent).exists() or Message.objects.filter(conversation__agent=agent).exclude(
                role=Message.Role.SYSTEM).exists() or Change.objects.filter(actor_kind="agent",
                                                                            actor_id=str(agent.id)).exists():
            raise _moved_on(f"{agent.name} has done work since it was added")
        if Agent.objects.filter(reports_to=agent).exclude(id__in=[a.id for a in made_agents]).exists():
            raise _moved_on(f"Another agent reports to {agent.name} now")
        if Skill.objects.filter(agent=agent).exclude(id__in=skills).exists():
            raise _moved_on(f"{agent.name} has a skill it didn't come with")
        if Routine.objects.filter(agent=agent).exclude(id__in=routines).exists():
            raise _moved_on(f"{agent.name} has a routine it didn't come with")
    if Routine.objects.filter(skill__in=list(skills.values())).exclude(id__in=routines).exists():
        raise _moved_on("A routine now uses a skill the template added")
    Routine.objects.filter(id__in=routines).delete()
    Skill.objects.filter(id__in=skills).delete()
    for agent in made_agents:
        agent.delete()
    live.notify(org.id, "work")


def _moved_on(what: str) -> ToolError:
    return ToolError("changed", f"{what}, so Undo would lose that; nothing was removed.")



# --- the owner shares ---------------------------------------------------------------------------------------------


def share_preview(*, org, card: Card) -> TemplateBody:
    """What would go out, read from the agents or the skill as they are now; what Share then keeps."""
    data = card.data
    if data.get("skill"):
        skill = Skill.objects.filter(organization=org, id=data["skill"]).select_related("agent").first()
        if skill is None:
            raise ToolError("not_found", "That skill is gone.")
        raw = {"slug": slugify(skill.name)[:80] or "skill", "name": skill.name[:80], "kind": "skill", "version": 1,
               "says": (skill.about or skill.name)[:300],
               "skill": {"name": skill.name, "when": skill.about or skill.name, "steps": skill.steps}}
    else:
        agents = list(Agent.objects.filter(organization=org, id__in=data.get("agents", [])).order_by("created_at"))
        if len(agents) != len(data.get("agents", [])):
            raise ToolError("not_found", "One of those agents is no longer on your staff.")
        ids = {a.id for a in agents}
        departments = {a.department for a in agents}
        department = departments.pop() if len(departments) == 1 and len(agents) > 1 else ""
        kind = "agent" if len(agents) == 1 else "department" if department else "team"
        name = agents[0].name if len(agents) == 1 else department or f"{agents[0].name}'s team"
        raw = {"slug": slugify(name)[:80] or "team", "name": name[:80], "kind": kind, "version": 1,
               "says": "; ".join(a.job for a in agents)[:300] or name, "agents": [_agent_body(a, ids)
                                                                                  for a in agents]}
        if department:
            raw["department"] = department
    try:
        return TemplateBody.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"])
        raise ToolError("bad_input", f"It can't be shared as it is: {place}: {first['msg']}") from None


def _agent_body(agent: Agent, ids: set) -> dict:
    boss = agent.reports_to if agent.reports_to_id in ids else None
    under = boss.name if boss is not None else None
    routines = []
    for routine in Routine.objects.filter(agent=agent).select_related("skill").order_by("id"):
        when = {k: v for k, v in (("at", routine.at), ("keys", routine.keys), ("ask", routine.ask)) if v}
        if not when:
            continue  # a routine on a due time or a check belongs to this workspace's own records
        routines.append({"name": routine.name, "when": when, "note": routine.note,
                         **({"skill": routine.skill.name} if routine.skill is not None else {})})
    return {"name": agent.name, "job": agent.job or agent.name, "owns": agent.owns or "-", "good": agent.good or "-",
            "works": agent.works or "-", "asks_first": agent.asks_first or "-", "model": agent.model,
            **({"under": under} if under else {}),
            "skills": [{"name": s.name, "when": s.about or s.name, "steps": s.steps}
                       for s in Skill.objects.filter(agent=agent).order_by("name")],
            "routines": routines}


def template_share(*, org: Organization, user, card_id, name: str, says: str) -> Change:
    """The owner's Share: the agents or skill, as they are now, kept as one of the workspace's templates (a new
    version when one of the same name is shared already). Listed on Home with Undo."""
    actor = Actor.for_user(user)
    name, says = (name or "").strip(), (says or "").strip()
    with transaction.atomic():
        card = _claim(org, card_id)
        if card.data.get("action") != "share":
            raise ToolError("bad_input", "That ask is to add, not to share.")
        body = share_preview(org=org, card=card)
        slug = slugify(name)[:80]
        if not name or not slug or len(name) > 80:
            raise ToolError("bad_input", "Name the template in words, up to 80 characters.")
        if not says or len(says) > 300:
            raise ToolError("bad_input", "Say what it does in a line, up to 300 characters.")
        existing = SharedTemplate.objects.select_for_update().filter(organization=org, slug=slug).first()
        version = existing.version + 1 if existing else 1
        body = body.model_copy(update={"slug": slug, "name": name, "says": says, "version": version})
        stored = body.model_dump(mode="json", exclude_none=True)
        before = snapshot(existing, ("name", "kind", "says", "body", "version", "shared_by")) if existing else None
        row = existing or SharedTemplate(organization=org, slug=slug)
        row.name, row.kind, row.says, row.body, row.version = name, body.kind, says, stored, version
        row.shared_by = org.owner_name or actor.name
        row.save()
        change = change_record(
            org=org, actor=actor, tool=SHARE_TOOL, kind="makes",
            sentence=f"shared “{name}” as a template for the workspace" + (f" (version {version})" if existing else ""),
            listing=Change.Listing.HOME_UNDO, target_type="template", target_id=selectors.SHARED_PREFIX + slug,
            created=existing is None,
            undo=TemplateShareUndo(shared_id=row.id, before=before, version=version),
        )
        _tell_asker(org, card, f"{org.owner_first_name} shared “{name}” as a template; its id is "
                               f"{selectors.SHARED_PREFIX}{slug}.")
        return change


def undo_template_share(*, org, actor, change: Change) -> None:
    undo: TemplateShareUndo = undo_data(change)
    row = SharedTemplate.objects.select_for_update().filter(organization=org, id=undo["shared_id"]).first()
    if row is None:
        raise ToolError("changed", "That template isn't shared any more; nothing was undone.")
    if row.version != undo["version"]:
        raise _moved_on(f"“{row.name}” was shared again since")
    if undo["before"] is None:
        row.delete()
        return
    for key, value in undo["before"].items():
        setattr(row, key, value)
    row.save()



def template_decline(*, org, card_id) -> None:
    """The owner's No: the ask is done and nothing is made; the asking agent reads that it was declined."""
    with transaction.atomic():
        card = _claim(org, card_id)
        _tell_asker(org, card, f"{org.owner_first_name} said no to: {card.title}")
