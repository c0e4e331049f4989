"""Routines and skills: saving them, firing them, and handing each run to the routine's own thread."""

from __future__ import annotations

import datetime
import hashlib
import json
import re

from croniter import croniter
from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from agents import services as agent_services
from agents.models import Agent, Conversation, Message, Work
from agents.runtime.scheduler import wake
from core import limits, rows
from core.errors import ToolError
from core.inputs import in_range
from core.locking import lock
from core.owner_zone import owner_time, owner_zone
from routines.models import Event, Routine, RoutineKey, RoutineRun, Skill
from tools import registry

KEY_PREFIXES = ("kind:", "thread:", "from:", "domain:", "with:", "doc:", "invoice:qb:", "customer:qb:")
# The kinds of event Roadstar tells. The spec also names kind:form.submitted, but defines no form an owner's
# visitors could fill in, so nothing here would ever tell it: a routine waiting on it is refused, not left silent.
EVENT_KINDS = ("kind:invoice.overdue", "kind:meeting.added", "kind:doc.changed", "kind:mail.received")
UNTOLD_KINDS = {
    "kind:form.submitted": "Roadstar has no forms for visitors to fill in yet, so no form submission is ever told",
}
MIN_CHECK_MINUTES = 15
MAX_CHECK_MINUTES = 525_600  # a year
MAX_KEYS = 50
RUN_CLOSING = (
    "Do the work now. Your last reply says what you found or made. If something needs the owner first, ask in "
    "your reply. If nothing needs doing, say so in one line and stop."
)


# --- skills ---------------------------------------------------------------------------------------------------


def skill_get(*, agent: Agent, skill_id: str) -> Skill:
    skill = Skill.objects.filter(agent=agent, slug=skill_id.strip().lower()).first()
    if skill is None:
        names = ", ".join(Skill.objects.filter(agent=agent).values_list("slug", flat=True)) or "none yet"
        raise ToolError("not_found", f"{agent.name} has no skill {skill_id!r}. Its skills: {names}.")
    return skill


def skill_names(*, agent: Agent) -> list[str]:
    """How an agent's instructions name its skills: "Chase an invoice (id chase-an-invoice)". (A kept statement
    of the two columns: every turn's start asks, and the ORM compiled it each time.)"""
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(_SKILL_NAMES_SQL, [Skill._meta.get_field("agent").get_db_prep_value(agent.pk, connection)])
        return [f"{name} (id {slug})" for name, slug in cursor.fetchall()]


_SKILL_NAMES_SQL = f'SELECT "name", "slug" FROM "{Skill._meta.db_table}" WHERE "agent_id" = %s ORDER BY "name"'


def _too_long(field: str, text: str | None, limit: int, what: str) -> None:
    if text is not None and len(text) > limit:
        raise ToolError("bad_input", f"{field}: {len(text):,} characters; {what} is at most {limit:,}. Shorten it; "
                                     "nothing was saved.")


def _check_skill_words(*, name=None, about=None, steps=None, why=None) -> None:
    _too_long("name", name, limits.SKILL_NAME, "a skill's name")
    _too_long("about", about, limits.SKILL_ABOUT, "when it applies, in one line,")
    _too_long("steps", steps, limits.SKILL_STEPS, "a skill's steps")
    _too_long("why", why, limits.SKILL_WHY, "why, in a line,")


def _check_routine_words(*, name=None, note=None, filter=None) -> None:
    _too_long("name", name, limits.ROUTINE_NAME, "a routine's name")
    _too_long("note", note, limits.ROUTINE_NOTE, "a routine's note")
    if filter is not None:
        _too_long("filter", json.dumps(filter, ensure_ascii=False), limits.ROUTINE_FILTER, "a filter, as JSON,")


def skill_add(*, org, agent: Agent, name: str, about: str, steps: str, why: str = "") -> Skill:
    if not (name or "").strip() or not (steps or "").strip():
        raise ToolError("bad_input", "name, steps: a skill needs a name and its steps")
    _check_skill_words(name=name.strip(), about=(about or "").strip(), steps=steps.strip(), why=why)
    if Skill.objects.filter(agent=agent).count() >= limits.SKILLS_PER_AGENT:
        raise ToolError("bad_input", f"{agent.name} has {limits.SKILLS_PER_AGENT} skills, the most an agent keeps "
                                     "(each is named in its instructions): change one that covers this work instead.")
    slug = slugify(name)[:80]
    if not slug:
        raise ToolError("bad_input", f"name: {name!r} makes no id; use words")
    if Skill.objects.filter(agent=agent, slug=slug).exists():
        raise ToolError("bad_input", f"name: {agent.name} has a skill {slug} already; change it with action change")
    return Skill.objects.create(
        organization=org, agent=agent, slug=slug, name=name.strip(), about=(about or "").strip(), steps=steps.strip(),
        history=[{"at": timezone.now().isoformat(), "why": why, "change": "added"}],
    )


def skill_change(*, skill: Skill, name: str | None, about: str | None, steps: str | None, why: str) -> Skill:
    if not (why or "").strip():
        raise ToolError("bad_input", "why: say why it changes, in a line the owner reads")
    _check_skill_words(name=name.strip() if name is not None else None,
                       about=about.strip() if about is not None else None,
                       steps=steps.strip() if steps is not None else None, why=why.strip())
    with transaction.atomic():
        lock(skill)  # its history grows by one entry per change, whoever changes it at the same time
        before = {"name": skill.name, "about": skill.about, "steps": skill.steps}
        if name is not None:
            skill.name = name.strip()
        if about is not None:
            skill.about = about.strip()
        if steps is not None:
            skill.steps = steps.strip()
        skill.history = [*skill.history, {"at": timezone.now().isoformat(), "why": why.strip(), "before": before}]
        skill.save()
    return skill


# --- when -------------------------------------------------------------------------------------------------------


def next_cron_time(cron: str, *, zone: datetime.tzinfo, after: datetime.datetime) -> datetime.datetime:
    """The next time the cron line comes round in the owner's zone, after `after`; right across DST changes."""
    local_after = after.astimezone(zone)
    # croniter steps in local wall time when given an aware datetime of a ZoneInfo zone.
    return croniter(cron, local_after).get_next(datetime.datetime).astimezone(datetime.UTC)


def ask_words(text: str) -> set[str]:
    """The words of an ask or an item that say something (no stop words, endings trimmed): they order the `ask`
    routines weighed against an item, the likeliest first. They never decide a match: meaning does."""
    stop = {"a", "an", "the", "and", "or", "of", "to", "for", "about", "on", "in", "with", "new", "is", "are", "be",
            "any", "some", "from", "my", "our", "your", "me", "us", "it", "that", "this", "at", "by", "as", "asking"}
    words = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) < 3 or word in stop:
            continue
        for suffix in ("ings", "ing", "ies", "es", "ed", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        words.add(word)
    return words


def _validate_when(*, org, when: dict) -> dict:
    """Check every part of `when` and return it cleaned; an error names the part and what is wrong."""
    if not isinstance(when, dict) or not when:
        raise ToolError("bad_input", "when: give at least one of at, ask, keys, due, check")
    unknown = set(when) - {"at", "ask", "keys", "due", "check"}
    if unknown:
        raise ToolError(
            "bad_input", f"when.{sorted(unknown)[0]}: not a kind of when; they are at, ask, keys, due, check"
        )
    clean: dict = {}
    if "at" in when:
        if not isinstance(when["at"], str) or not croniter.is_valid(when["at"]) or len(when["at"].split()) != 5:
            raise ToolError("bad_input", f"when.at: {when['at']!r} is not a cron line such as \"0 9 * * 1\"")
        clean["at"] = when["at"].strip()
    if "ask" in when:
        if not isinstance(when["ask"], str) or not ask_words(when["ask"]):
            raise ToolError("bad_input", "when.ask: give the words to check new mail and documents against")
        _too_long("when.ask", when["ask"], limits.ROUTINE_ASK, "an ask")
        clean["ask"] = when["ask"].strip()
    if "keys" in when:
        keys = when["keys"]
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
            raise ToolError("bad_input", "when.keys: a list of keys such as [\"kind:invoice.overdue\"]")
        if len(keys) > MAX_KEYS:
            raise ToolError("bad_input", f"when.keys: {len(keys)} keys; a routine listens for at most {MAX_KEYS}")
        for i, key in enumerate(keys):
            if not key.startswith(KEY_PREFIXES) or key.endswith(":") or len(key) > 300:
                raise ToolError("bad_input", f"when.keys[{i}]: {key!r} is not a key; keys start with "
                                             + ", ".join(KEY_PREFIXES))
            if key in UNTOLD_KINDS:
                raise ToolError("bad_input", f"when.keys[{i}]: {key} would never fire: {UNTOLD_KINDS[key]}. "
                                             "Nothing was saved. The kinds Roadstar tells: " + ", ".join(EVENT_KINDS))
            if key.startswith("kind:") and key not in EVENT_KINDS:
                raise ToolError("bad_input", f"when.keys[{i}]: {key!r} is not a kind of event; the kinds are "
                                             + ", ".join(EVENT_KINDS))
        clean["keys"] = list(dict.fromkeys(keys))
    if "due" in when:
        try:
            due = datetime.datetime.fromisoformat(str(when["due"]).replace("Z", "+00:00"))
        except ValueError as exc:
            raise ToolError("bad_input", f"when.due: {when['due']!r} is not an ISO 8601 time") from exc
        try:
            in_range(due)
        except ValueError as out:
            raise ToolError("bad_input", f"when.due: {out}") from out
        due = owner_time(org, due)
        clean["due"] = due
    if "check" in when:
        check = when["check"]
        if not isinstance(check, dict) or not check.get("tool") or not check.get("action"):
            raise ToolError("bad_input", "when.check: needs tool and action, such as {\"tool\": \"books\", "
                                         "\"action\": \"invoices\", \"everyMinutes\": 60}")
        every = check.get("everyMinutes")
        if not isinstance(every, int) or isinstance(every, bool) or every < MIN_CHECK_MINUTES:
            raise ToolError("bad_input", f"when.check.everyMinutes: {MIN_CHECK_MINUTES} or more")
        if every > MAX_CHECK_MINUTES:
            raise ToolError("bad_input", f"when.check.everyMinutes: at most {MAX_CHECK_MINUTES:,} (a year)")
        name = f"{check['tool']}.{check['action']}"
        tool = registry.get_tool(name)
        if tool is None:
            raise ToolError("bad_input", f"when.check.tool: there is no tool {name}")
        if tool.kind != "reads":
            raise ToolError("bad_input", f"when.check.tool: {name} changes things; a check runs only a tool that reads")
        clean["check"] = {"tool": name, "input": check.get("input") or {}, "everyMinutes": every}
    return clean


def when_text(routine: Routine) -> str:
    """How `triggers` says when a routine fires: `Time: 0 9 * * 1 (America/New_York)`, `Words: “…”`."""
    parts = []
    if routine.at:
        parts.append(f"Time: {routine.at} ({routine.organization.time_zone})")
    if routine.ask:
        parts.append(f"Words: “{routine.ask}”")
    if routine.keys:
        parts.append("Keys: " + ", ".join(routine.keys))
    if routine.due:
        parts.append(f"Due: {routine.due.astimezone(owner_zone(routine.organization)).isoformat()}")
    if routine.check_tool:
        parts.append(f"Check: {routine.check_tool} every {routine.check_every_minutes} minutes")
    return "; ".join(parts)


def when_of(routine: Routine) -> dict:
    when: dict = {}
    if routine.at:
        when["at"] = routine.at
    if routine.ask:
        when["ask"] = routine.ask
    if routine.keys:
        when["keys"] = routine.keys
    if routine.due:
        when["due"] = routine.due.isoformat()
    if routine.check_tool:
        group, _, action = routine.check_tool.partition(".")
        when["check"] = {"tool": group, "action": action, "input": routine.check_input,
                         "everyMinutes": routine.check_every_minutes}
    return when


def _apply_when(routine: Routine, when: dict) -> None:
    routine.at = when.get("at", "")
    routine.ask = when.get("ask", "")
    routine.keys = when.get("keys", [])
    routine.due = when.get("due")
    check = when.get("check")
    routine.check_tool = check["tool"] if check else ""
    routine.check_input = check["input"] if check else {}
    routine.check_every_minutes = check["everyMinutes"] if check else None


def schedule(routine: Routine, *, now: datetime.datetime) -> None:
    """Set when each timed `when` next comes round after now, and next_fire_at to the soonest of them."""
    routine.next_at_time = (
        next_cron_time(routine.at, zone=owner_zone(routine.organization), after=now) if routine.at else None
    )
    if routine.check_tool and routine.check_every_minutes is not None:  # set together, from a `check`
        routine.next_check_at = now + datetime.timedelta(minutes=routine.check_every_minutes)
    else:
        routine.next_check_at = None
    refresh_next_fire(routine)


def refresh_next_fire(routine: Routine) -> None:
    times = [t for t in (routine.next_at_time, routine.next_check_at) if t is not None]
    if routine.due and not routine.due_done:
        times.append(routine.due)
    routine.next_fire_at = min(times) if times and routine.status == Routine.Status.ON else None


def _index(routine: Routine) -> None:
    RoutineKey.objects.filter(routine=routine).delete()
    # Only keys: an `ask` is weighed by meaning against every new item (engine.matching_asks), not looked up.
    keys = set(routine.keys)
    RoutineKey.objects.bulk_create(
        [RoutineKey(organization_id=routine.organization_id, routine=routine, key=k) for k in sorted(keys)]
    )


def routine_thread(*, routine: Routine) -> Conversation:
    """The routine's own thread, named after it, made on its first run and reused for every run after."""
    if routine.thread is not None:  # no query when there is none (thread_id is None)
        if routine.thread.closed_at is not None:
            agent_services.thread_reopen(thread=routine.thread)
        return routine.thread
    thread = agent_services.thread_start(agent=routine.agent, title=routine.name, routine_id=str(routine.id))
    routine.thread = thread
    Routine.objects.filter(id=routine.id).update(thread=thread)
    return thread


def routine_add(*, org, agent: Agent, name: str, when: dict, note: str = "", skill: str | None = None,
                filter: dict | None = None, once: bool = False) -> Routine:
    if not (name or "").strip():
        raise ToolError("bad_input", "name: a routine needs a name")
    _check_routine_words(name=name.strip(), note=note, filter=filter)
    clean = _validate_when(org=org, when=when)
    skill_row = skill_get(agent=agent, skill_id=skill) if skill else None
    with transaction.atomic():
        routine = Routine(organization=org, agent=agent, name=name.strip(), note=note or "", skill=skill_row,
                          filter=filter or {}, once=once)
        _apply_when(routine, clean)
        schedule(routine, now=timezone.now())
        routine.save()
        _index(routine)
    return routine


def routine_change(*, routine: Routine, name: str | None = None, when: dict | None = None, note: str | None = None,
                   skill: str | None = None, filter: dict | None = None, once: bool | None = None) -> Routine:
    _check_routine_words(name=name.strip() if name is not None else None, note=note, filter=filter)
    with transaction.atomic():
        lock(routine)  # a firing may have moved its count and next time since it was read
        if name is not None:
            routine.name = name.strip()
        if note is not None:
            routine.note = note
        if skill is not None:
            routine.skill = skill_get(agent=routine.agent, skill_id=skill) if skill else None
        if filter is not None:
            routine.filter = filter
        if once is not None:
            routine.once = once
        if when is not None:
            _apply_when(routine, _validate_when(org=routine.organization, when=when))
            routine.due_done = False
        schedule(routine, now=timezone.now())
        routine.save()
        _index(routine)
    return routine


def routine_set_on(*, routine: Routine, on: bool) -> Routine:
    with transaction.atomic():
        lock(routine)
        routine.status = Routine.Status.ON if on else Routine.Status.OFF
        schedule(routine, now=timezone.now())
        routine.save()
    return routine


# --- firing -----------------------------------------------------------------------------------------------------


def run_message(routine: Routine, started_by: str) -> str:
    """The run's message, in the spec's shape."""
    text = f"[Routine run · trigger {routine.id} · {routine.name}] What started it: {started_by}"
    if routine.skill is not None:
        text += f"\nSkill: {routine.skill.name}\n{routine.skill.steps}"
    if routine.note:
        text += f"\nThis time: {routine.note}"
    return f"{text}\n{RUN_CLOSING}"


def routine_fire(*, routine: Routine, started_by: str, event: Event | None = None) -> RoutineRun:
    """Fire once: count it, close a `due` or `once` routine, and queue the run behind any still going."""
    with transaction.atomic():
        lock(routine)  # two events firing it at once count twice
        return routine_fire_locked(routine=routine, started_by=started_by, event=event)


def routines_locked(*, org_id, ids) -> list[Routine]:
    """The routines of `ids` still on, read under their row locks (in the caller's transaction) with what firing
    reads of them, in id order: for routine_fire_locked."""
    return list(Routine.objects.select_for_update(of=("self",)).select_related("organization", "agent", "skill")
                .filter(organization_id=org_id, id__in=ids, status=Routine.Status.ON).order_by("id"))


def routine_fire_locked(*, routine: Routine, started_by: str, event: Event | None = None) -> RoutineRun:
    """routine_fire's work, for a caller that read `routine` under its row lock in its open transaction
    (routines_locked): the match of an event, which reads the routines it fires there anyway."""
    run = RoutineRun.objects.create(organization_id=routine.organization_id, routine=routine, event=event,
                                    started_by=started_by)
    routine.fired += 1
    routine.last_fired_at = timezone.now()
    only_due = routine.due and not (routine.at or routine.ask or routine.keys or routine.check_tool)
    if routine.once or only_due:
        routine.status = Routine.Status.CLOSED
    refresh_next_fire(routine)
    routine.save(update_fields=["fired", "last_fired_at", "status", "next_fire_at"])
    _start_next_run_locked(routine)  # under the lock the caller holds
    return run


def routine_start_next_run(*, routine: Routine) -> RoutineRun | None:
    """Hand the oldest waiting run to the routine's thread, unless a run of it is still going."""
    with transaction.atomic():
        Routine.objects.select_for_update().filter(id=routine.id).first()
        return _start_next_run_locked(routine)


def _start_next_run_locked(routine: Routine) -> RoutineRun | None:
    """routine_start_next_run's work, for a caller already holding the routine's row lock in its transaction."""
    if RoutineRun.objects.filter(routine=routine, state=RoutineRun.State.RUNNING).exists():
        return None
    run = RoutineRun.objects.filter(routine=routine, state=RoutineRun.State.WAITING).order_by("id").first()
    if run is None:
        return None
    agent = routine.agent
    # An agent on the owner's Mac has no threads: the run goes to its chat.
    conversation = agent_services.chat_for(agent=agent) if agent.runs_on == Agent.RunsOn.MAC else (
        routine_thread(routine=routine)
    )
    event = run.event  # None, without a query, when the run wasn't started by an event
    event_text = event.text if event is not None else ""
    agent_services.message_append(
        conversation=conversation, role=Message.Role.ROUTINE, text=run_message(routine, run.started_by),
        data={"name": routine.name, "note": routine.note, "routine_id": routine.id, "run_id": run.id,
              "event_text": event_text, "source": f"event:{event.kind}" if event is not None else ""},
    )
    work = agent_services.work_open(
        org=routine.organization, agent=agent, conversation=conversation, task=f"{routine.name}: a run",
        requester=None,
    )
    run.state = RoutineRun.State.RUNNING
    run.work = work
    run.save(update_fields=["state", "work"])
    wake(conversation=conversation)
    return run


def routine_run_finished(*, work: Work) -> None:
    # (by a kept statement: every piece of work answered asks, and most are no routine's)
    found = rows.select(RoutineRun, [("work_id", "=", work.pk), ("state", "=", RoutineRun.State.RUNNING)],
                        related=["routine"], order_by=["id"], limit=1)
    if not found:
        return
    run = found[0]
    RoutineRun.objects.filter(id=run.id).update(state=RoutineRun.State.DONE, finished_at=timezone.now())
    routine_start_next_run(routine=run.routine)


def event_started_by(event: Event, *, by_words: bool = False) -> str:
    """What started a run, as its message says: the event and its keys, then what it was about (who, what, the ids
    to read it by), so the thread needn't search for it."""
    text = f"the event {event.kind} ({', '.join(event.keys)})"
    if by_words:
        text += ", matching its words"
    about = event_about(event)
    return f"{text}: {about}" if about else text


def event_about(event: Event) -> str:
    p = event.payload or {}

    def quoted(value) -> str:
        return "“" + " ".join(str(value).split())[:200] + "”"

    parts: list[str] = []
    if event.kind == "mail.received":
        parts += [f"from {p['from']}" if p.get("from") else "", f"subject {quoted(p['subject'])}" if p.get("subject")
                  else "", f"mail id {p['id']}" if p.get("id") else "", f"thread {p['threadId']}" if p.get("threadId")
                  else ""]
    elif event.kind == "doc.changed":
        parts += [f"the doc {quoted(p['title'])}" if p.get("title") else "", f"changed by {p['who']}" if p.get("who")
                  else "", f"file id {p['id']}" if p.get("id") else ""]
    elif event.kind == "meeting.added":
        guests = ", ".join(p.get("guests") or [])
        parts += [f"the meeting {quoted(p['title'])}" if p.get("title") else "", f"at {p['start']}" if p.get("start")
                  else "", f"with {guests}" if guests else "", f"meeting id {p['id']}" if p.get("id") else ""]
    elif event.kind == "invoice.overdue":
        owed = f"{p['balance']} {p.get('currency') or ''}".strip() if p.get("balance") is not None else ""
        parts += [f"invoice {p.get('number') or p.get('id')}" if p.get("number") or p.get("id") else "",
                  f"to {p['customer']}" if p.get("customer") else "", f"{owed} owed" if owed else "",
                  f"{p['daysLate']} days late" if p.get("daysLate") is not None else "",
                  f"invoice id {p['id']}" if p.get("id") else ""]
    return ", ".join(part for part in parts if part)


def filter_passes(routine: Routine, event: Event) -> bool:
    return payload_passes(routine.filter, event)


def payload_passes(routine_filter: dict | None, event: Event) -> bool:
    """A routine's filter (`{"from": "dana@…"}`) against the event's payload: every value the same."""
    return all(event.payload.get(key) == value for key, value in (routine_filter or {}).items())


def check_result_hash(result) -> str:
    return hashlib.sha256(json.dumps(result, sort_keys=True, default=str).encode()).hexdigest()
