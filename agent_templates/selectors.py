"""Reads: finding a template by id, searching them by words, one in full, and what an ask on Home shows.

A workspace sees Roadstar's own templates and the ones its people shared, never another workspace's: a shared
template's id of another workspace is `not_found`, like any id.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_templates.catalogue import (
    ROADSTAR_PREFIX,
    TemplateBody,
    roadstar_templates,
)
from agent_templates.models import SharedTemplate
from agents.models import Agent
from core.errors import ToolError
from routines.services import ask_words

SHARED_PREFIX = "shared/"
SEARCH_LIMIT = 8
ROADSTAR_FROM = "Roadstar"


@dataclass(frozen=True)
class Found:
    """A template with where it came from, as search and read show it."""

    id: str
    body: TemplateBody
    from_: str


def template_get(*, org, template_id: str) -> Found:
    template_id = (template_id or "").strip()
    if template_id.startswith(ROADSTAR_PREFIX):
        body = roadstar_templates().get(template_id)
        if body is not None:
            return Found(id=template_id, body=body, from_=ROADSTAR_FROM)
    elif template_id.startswith(SHARED_PREFIX):
        row = SharedTemplate.objects.filter(organization=org, slug=template_id[len(SHARED_PREFIX):]).first()
        if row is not None:
            return Found(id=template_id, body=_shared_body(row), from_=row.shared_by)
    raise ToolError("not_found", f"No template with id {template_id!r}. Find one with templates.search; ids look "
                                 "like roadstar/client-desk.")


def _shared_body(row: SharedTemplate) -> TemplateBody:
    try:
        return TemplateBody.model_validate(row.body)
    except ValueError:
        # Kept bodies were checked when shared; one that no longer holds is refused, not half-added.
        raise ToolError("unsupported", f"The shared template {SHARED_PREFIX}{row.slug} no longer holds together "
                                       "with this version of Roadstar; the owner can share it again.") from None


def _shared(org) -> list[Found]:
    found = []
    for row in SharedTemplate.objects.filter(organization=org).order_by("name"):
        try:
            found.append(Found(id=SHARED_PREFIX + row.slug, body=_shared_body(row), from_=row.shared_by))
        except ToolError:
            continue
    return found


def all_templates(*, org) -> list[Found]:
    ours = [Found(id=i, body=b, from_=ROADSTAR_FROM) for i, b in roadstar_templates().items()]
    return ours + _shared(org)


# --- search -------------------------------------------------------------------------------------------------------

# Where a word can match, and how much a match there counts: its name most, then what it's for.
_NAME, _WORDS, _DEPARTMENT, _SAYS, _AGENT, _SKILL, _ROUTINE = 8, 4, 4, 3, 2, 2, 1


def _fields(body: TemplateBody) -> list[tuple[int, str, str]]:
    """(weight, label, text) for each place a query's words may match."""
    fields = [(_NAME, "Name", body.name), (_SAYS, "Says", body.says)]
    if body.words:
        fields.append((_WORDS, "About", ", ".join(body.words)))
    if body.department:
        fields.append((_DEPARTMENT, "Department", body.department))
    for agent in body.agents:
        fields.append((_AGENT, "Agent", f"{agent.name}: {agent.job}"))
        fields += [(_SKILL, "Skill", f"{s.name}: {s.when}") for s in agent.skills]
        fields += [(_ROUTINE, "Routine", r.name) for r in agent.routines]
    if body.skill is not None:
        fields.append((_SKILL, "Skill", f"{body.skill.name}: {body.skill.when}"))
    return fields


def _stems(text: str) -> set[str]:
    """The words that say something, stemmed a little further than routines' ask_words: "hire" and "hiring",
    "schedule" and "scheduling" meet."""
    return {w[:-1] if w.endswith("e") and len(w) > 3 else w for w in ask_words(text)}


def _score(query_words: set[str], phrase: str, body: TemplateBody) -> tuple[int, str]:
    """How well the template answers the words, and the one place that matched best (`Name: …`)."""
    best_weight: dict[str, int] = {}
    best_field, best_field_score = "", 0
    for weight, label, text in _fields(body):
        words = _stems(text)
        hits = query_words & words
        if not hits:
            continue
        for word in hits:
            best_weight[word] = max(best_weight.get(word, 0), weight)
        field_score = len(hits) * 10 + weight
        if field_score > best_field_score:
            best_field, best_field_score = f"{label}: {text}", field_score
    if not best_weight:
        return 0, ""
    score = sum(best_weight.values()) * 10 + len(best_weight) * 5
    if phrase and phrase in body.name.lower():
        score += 100  # the words as typed are the template's name, or part of it
        best_field = f"Name: {body.name}"
    return score, best_field


def template_search(*, org, query: str, limit: int = SEARCH_LIMIT) -> list[dict]:
    """Templates matching the words, best first: the most words matched where they weigh most. Each says what
    matched. A word matches its plural and -ing forms too (`_stems`)."""
    words = _stems(query)
    phrase = " ".join(query.lower().split())
    scored = []
    for found in all_templates(org=org):
        score, matched = _score(words, phrase, found.body)
        if score:
            scored.append((score, found, matched))
    scored.sort(key=lambda item: (-item[0], item[1].body.name.lower(), item[1].id))
    return [
        {"id": f.id, "name": f.body.name, "kind": f.body.kind, "says": f.body.says, "from": f.from_,
         "matched": matched}
        for _, f, matched in scored[:limit]
    ]


# --- read ---------------------------------------------------------------------------------------------------------


def when_words(when) -> str:
    parts = []
    if when.at:
        parts.append(f"at {when.at}")
    if when.keys:
        parts.append("on " + ", ".join(when.keys))
    if when.ask:
        parts.append(f"on mail or docs about: {when.ask}")
    return "; ".join(parts)


_DAYS = {"1-5": "weekdays", "*": "every day", "0": "Sundays", "1": "Mondays", "2": "Tuesdays", "3": "Wednesdays",
         "4": "Thursdays", "5": "Fridays", "6": "Saturdays", "7": "Sundays"}
_KINDS = {"kind:invoice.overdue": "when an invoice goes overdue", "kind:meeting.added": "when a meeting is added",
          "kind:doc.changed": "when a doc changes", "kind:mail.received": "when mail arrives"}


def _clock(hour: str, minute: str) -> str:
    h, m = int(hour), int(minute)
    return f"{h % 12 or 12}{f':{m:02d}' if m else ''} {'AM' if h < 12 else 'PM'}"


def cron_words(cron: str) -> str:
    """A template's cron line as the owner reads it ("weekdays at 7:30 AM"); the line itself when it is unusual."""
    minute, hour, day, month, weekday = cron.split()
    if not (minute.isdigit() and hour.isdigit()) or month != "*":
        return f"on the schedule {cron}"
    at = _clock(hour, minute)
    if day == "*" and weekday in _DAYS:
        return f"{_DAYS[weekday]} at {at}"
    if day.isdigit() and weekday == "*":
        n = int(day)
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"on the {n}{suffix} of each month at {at}"
    return f"on the schedule {cron}"


def when_for_owner(when) -> str:
    parts = []
    if when.at:
        parts.append(cron_words(when.at))
    parts += [_KINDS.get(key, f"on {key}") for key in when.keys or []]
    if when.ask:
        parts.append(f"when mail or a doc is about: {when.ask[:1].lower()}{when.ask[1:]}")
    return "; ".join(parts)


def you_have(*, org, body: TemplateBody) -> list[str]:
    """The template's agents the owner already has by name (any case), as the template names them."""
    names = {a.name.lower(): a.name for a in body.agents}
    if not names:
        return []
    have = {n.lower() for n in Agent.objects.filter(organization=org).values_list("name", flat=True)}
    return [shown for lower, shown in names.items() if lower in have]


def template_read(*, org, template_id: str) -> dict:
    found = template_get(org=org, template_id=template_id)
    body = found.body
    shape: dict = {
        "id": found.id, "name": body.name, "kind": body.kind, "says": body.says, "version": body.version,
    }
    if body.department:
        shape["department"] = body.department
    shape["agents"] = [
        {"name": a.name, "job": a.job, **({"under": a.under} if a.under else {}),
         "skills": [s.name for s in a.skills],
         "routines": [f"{r.name} ({when_words(r.when)})" for r in a.routines]}
        for a in body.agents
    ]
    if body.skill is not None:
        shape["skill"] = {"name": body.skill.name, "when": body.skill.when, "steps": body.skill.steps}
    shape["questions"] = [
        {"blank": q.blank, "asks": q.asks, "kind": q.kind, **({"choices": q.choices} if q.choices else {})}
        for q in body.questions
    ]
    shape["youHave"] = you_have(org=org, body=body)
    return shape
