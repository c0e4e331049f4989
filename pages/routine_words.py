"""When a routine runs, as the owner reads it: "weekdays at 7:30 AM", not `30 7 * * 1-5`.

The schedule is a five-field cron line in the workspace's zone (routines.services); the common shapes (a time on
some days of the week, a day of the month, every so many minutes or hours) become a sentence. Any other line is
said as "on its own schedule", never shown raw."""

from __future__ import annotations

from django.utils import timezone

DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def _clock(hour: int, minute: int) -> str:
    suffix = "AM" if hour < 12 else "PM"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d} {suffix}" if minute else f"{shown} {suffix}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _days(field: str) -> str | None:
    """"1-5" -> "weekdays"; "1,4" -> "Mondays and Thursdays"; None when it isn't days of the week."""
    if field == "*":
        return "every day"
    chosen: set[int] = set()
    for part in field.split(","):
        if "-" in part:
            low, _, high = part.partition("-")
            if not (low.isdigit() and high.isdigit()):
                return None
            chosen.update(d % 7 for d in range(int(low), int(high) + 1))
        elif part.isdigit():
            chosen.add(int(part) % 7)
        else:
            return None
    if chosen == {1, 2, 3, 4, 5}:
        return "weekdays"
    if chosen == {0, 6}:
        return "weekends"
    if len(chosen) == 7:
        return "every day"
    return _and([DAYS[d] + "s" for d in sorted(chosen, key=lambda d: (d - 1) % 7)])


def cron_words(line: str) -> str:
    fields = line.split()
    if len(fields) != 5:
        return "on its own schedule"
    minute, hour, dom, month, dow = fields
    if minute.startswith("*/") and minute[2:].isdigit() and hour == dom == month == dow == "*":
        return f"every {int(minute[2:])} minutes"
    if minute.isdigit() and hour == "*" and dom == month == dow == "*":
        return "every hour" + (f", {int(minute)} minutes past" if int(minute) else ", on the hour")
    if minute.isdigit() and hour.startswith("*/") and hour[2:].isdigit() and dom == month == dow == "*":
        return f"every {int(hour[2:])} hours"
    if not (minute.isdigit() and hour.isdigit()) or month != "*":
        return "on its own schedule"
    at = _clock(int(hour), int(minute))
    if dom == "*":
        days = _days(dow)
        return f"{days} at {at}" if days else "on its own schedule"
    if dom.isdigit() and dow == "*":
        return f"on the {_ordinal(int(dom))} of each month at {at}"
    return "on its own schedule"


def routine_words(routine) -> str:
    """Each way the routine fires, in a sentence: its time, the words it listens for, its one date."""
    parts = []
    if routine.at:
        parts.append(cron_words(routine.at))
    if routine.ask:
        parts.append(f"when something matches “{routine.ask}”")
    if routine.keys:
        # "kind:invoice.overdue" -> "invoice overdue": the event's own words, without the key's punctuation
        happens = [k.split(":", 1)[-1].replace(".", " ").replace("_", " ") for k in routine.keys]
        parts.append("when this happens: " + _and(happens))
    if routine.due:
        local = timezone.localtime(routine.due)
        parts.append("once, on " + local.strftime("%a %b %-d at ") + _clock(local.hour, local.minute))
    if routine.check_tool:
        parts.append(f"every {routine.check_every_minutes} minutes, when something new turns up")
    text = "; or ".join(parts) or "when it is started"
    return text[0].upper() + text[1:]
