"""The newsfeed's brief (the spec's `brief` in newsfeed.read): the model reads the owner's day of stories and says,
for each project the feed follows, how the news bears on it ("direct", "indirect" or "quiet").

The worker writes it (`sweep`, every few minutes): once a day as soon as the day has stories, and again over new
stories at most every few hours (research.services.brief_claim), so a workspace pays for a handful of short calls a
day, not one a read. It is paid from Roadstar's own budget (the workspace's chief of staff, the agent the owner
sets the workspace's spend on): every call is a `Usage` of Roadstar (purpose "brief"), refused before it is made
when Roadstar is paused or its month's budget is spent. When it can't be written the brief row says why in the
owner's words (no model, the budget), which newsfeed.read's how-to and the Newsfeed page repeat, so a null brief
isn't read as a quiet day. Here, above research, because it calls the model: research only keeps the row.
"""

from __future__ import annotations

import datetime
import json
import logging

from agents import services as agent_services
from agents.models import Agent
from agents.runtime.model import ModelNotConfigured, ModelUnavailable, get_model
from agents.selectors import agent_spend_this_month
from core.models import Organization
from research import selectors, services
from research.selectors import TodayStory

logger = logging.getLogger(__name__)

PURPOSE = "brief"
SUMMARY_CHARS = 400  # of each story's summary, in the prompt
MAX_TOKENS = 2000  # the brief is a sentence or two a project
EFFECTS = ("direct", "indirect", "quiet")

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes the schedule.
SCHEDULES = (("agents.newsfeed_brief.sweep", "newsfeed briefs", 10),)

BRIEF_SCHEMA = {
    "name": "newsfeed_brief",
    "schema": {
        "type": "object",
        "properties": {
            "projects": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "project": {"type": "string"},
                        "effect": {"type": "string", "enum": list(EFFECTS)},
                        "text": {"type": "string"},
                    },
                    "required": ["project", "effect", "text"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["projects"],
        "additionalProperties": False,
    },
}

INSTRUCTIONS = """You are Roadstar, writing the owner's brief of today's news for their projects.
For each project listed, say in one or two plain sentences how today's stories bear on it, naming the stories \
(by their numbers, as [1], [2]) that do. effect is "direct" when a story is about the project's own subject, \
"indirect" when it touches it through something nearby (a supplier, a market, a rule), and "quiet" when no story \
today bears on it (then say so in a few words). Use only what the stories say. Answer with only the JSON asked for, \
one entry per project, naming each project by its number (p1, p2 …)."""

NO_MODEL = "No AI model is connected, so today's brief wasn't written; the stories are below."
NO_BUDGET = ("Roadstar has spent its monthly budget, so today's brief wasn't written; raise Roadstar's budget on the "
             "agents page to have it written.")
NO_ANSWER = "The AI model didn't answer, so today's brief wasn't written; Roadstar tries again within the hour."
BAD_ANSWER = "The AI model's brief wasn't in the shape asked for, so none was kept; Roadstar tries again later."
NO_ROADSTAR = "Roadstar isn't on the staff, so there is no budget to write today's brief from."


def sweep() -> int:
    """Write the brief of each workspace with the newsfeed on whose day has new stories. Returns how many."""
    written = 0
    for org in Organization.objects.filter(id__in=selectors.workspaces_with_newsfeed()):
        try:
            if write(org) == "written":
                written += 1
        except Exception:
            logger.exception("newsfeed brief of workspace %s broke", org.id)
    return written


def write(org, now: datetime.datetime | None = None) -> str:
    """Write today's brief if it is due: "written", "not due" (nothing new, or another worker has it), "nothing"
    (no stories today, or the feed follows no project), or "failed" (its row says why)."""
    stories = selectors.stories_today(org=org, now=now)
    projects = {str(f.project_id): f.project.name for f in selectors.feeds_of(org=org) if f.project is not None}
    if not stories or not projects:
        return "nothing"
    story_ids = [str(s.story.id) for s in stories]
    brief = services.brief_claim(org=org, story_ids=story_ids, now=now)
    if brief is None:
        return "not due"
    roadstar = Agent.objects.filter(organization=org, is_roadstar=True).first()
    problem = _cannot_pay(roadstar)
    if problem is None and roadstar is not None:
        try:
            written = _ask(org, roadstar, projects, stories)
        except ModelNotConfigured:
            problem = NO_MODEL
        except ModelUnavailable as error:
            logger.warning("newsfeed brief of workspace %s: %s", org.id, error)
            problem = NO_ANSWER
        else:
            if written is None:
                problem = BAD_ANSWER
            else:
                services.brief_write(brief=brief, projects=written, story_ids=story_ids, now=now)
                return "written"
    services.brief_problem(brief=brief, problem=problem or NO_ROADSTAR)
    return "failed"


def _cannot_pay(roadstar: Agent | None) -> str | None:
    if roadstar is None:
        return NO_ROADSTAR
    budget = roadstar.monthly_budget
    if roadstar.paused or (budget is not None and agent_spend_this_month(agent=roadstar) >= budget):
        return NO_BUDGET
    return None


def prompt(projects: dict[str, str], stories: list[TodayStory]) -> str:
    numbered = list(projects)
    listed = "\n".join(f"p{n}: {projects[pid]}" for n, pid in enumerate(numbered, 1))
    lines = []
    for n, today in enumerate(stories, 1):
        story = today.story
        followed = [f"p{numbered.index(p) + 1}" for p in today.project_ids if p in projects]
        lines.append(f"[{n}] {story.headline}"
                     + (f" (from the feed of {', '.join(followed)})" if followed else " (a feed of the whole "
                                                                                      "workspace)")
                     + (f"\n{' '.join(story.summary.split())[:SUMMARY_CHARS]}" if story.summary.strip() else ""))
    return f"Projects:\n{listed}\n\nToday's stories:\n" + "\n".join(lines)


def _ask(org, roadstar: Agent, projects: dict[str, str], stories: list[TodayStory]) -> list[dict] | None:
    """One model call, metered to Roadstar; the brief's projects in the spec's shape, or None for an answer not in
    the shape asked for (paid for, and said)."""
    messages = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": prompt(projects, stories)}]
    response = get_model(org).complete(model_id=roadstar.model, messages=messages, tools=[],
                                       json_schema=BRIEF_SCHEMA, max_tokens=MAX_TOKENS)
    agent_services.usage_record(org=org, agent=roadstar, conversation=None, purpose=PURPOSE,
                                model_id=roadstar.model, usage=response.usage)
    return brief_projects(response.text or "", list(projects))


def brief_projects(answer: str, project_ids: list[str]) -> list[dict] | None:
    """The model's answer as the spec's brief projects, in the feed's order, each project once: a project it
    named by a number it wasn't given is left out, one it left out is "quiet"."""
    try:
        found = json.loads(answer)
        items = [(str(i["project"]).strip().lower().lstrip("p"), str(i["effect"]), " ".join(str(i["text"]).split()))
                 for i in found["projects"]]
    except (ValueError, TypeError, KeyError):
        return None
    said: dict[str, dict] = {}
    for number, effect, text in items:
        if not number.isdigit() or not 1 <= int(number) <= len(project_ids) or effect not in EFFECTS or not text:
            continue
        project_id = project_ids[int(number) - 1]
        said.setdefault(project_id, {"projectId": project_id, "effect": effect, "text": text[:1000]})
    return [said.get(pid) or {"projectId": pid, "effect": "quiet", "text": "No story today bears on it."}
            for pid in project_ids]
