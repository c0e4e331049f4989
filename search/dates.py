"""after/before as the owner says them, read in the owner's time zone: "2026-09-01", "2026-09", "2026", "today",
"yesterday", "this week", "last week" (weeks start on Monday), "this month", "last month", "this year",
"last year", "3 days ago", "last 30 days". Each names a span; after takes from its start, before up to its start."""

from __future__ import annotations

import datetime
import re

from dateutil.relativedelta import relativedelta

from core.inputs import FIRST_YEAR, LAST_YEAR
from core.owner_zone import zone_named

_UNITS = {"day": "days", "week": "weeks", "month": "months", "year": "years"}
_AGO = re.compile(r"^(\d{1,4}) (day|week|month|year)s? ago$")
_LAST_N = re.compile(r"^(?:last|past) (\d{1,4}) (day|week|month|year)s?$")
_DAY = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
_MONTH = re.compile(r"^(\d{4})[-/](\d{1,2})$")
_YEAR = re.compile(r"^(\d{4})$")
EXAMPLES = '"2026-09-01", "2026-09", "last week", "this month", "yesterday" or "30 days ago"'


def _midnight(day: datetime.date, zone) -> datetime.datetime:
    return datetime.datetime(day.year, day.month, day.day, tzinfo=zone)


def start_of(words: str, *, time_zone: str, now: datetime.datetime) -> tuple[datetime.datetime, str]:
    """The start of the span `words` names, and how it was read. Raises ValueError saying what it takes."""
    zone = zone_named(time_zone)
    text = " ".join(words.strip().lower().split())
    today = now.astimezone(zone).date()
    try:
        if m := _DAY.match(text):
            day = datetime.date(int(m[1]), int(m[2]), int(m[3]))
            start, read = _midnight(day, zone), day.isoformat()
        elif m := _MONTH.match(text):
            start, read = _midnight(datetime.date(int(m[1]), int(m[2]), 1), zone), f"{m[1]}-{int(m[2]):02d}"
        elif m := _YEAR.match(text):
            start, read = _midnight(datetime.date(int(m[1]), 1, 1), zone), m[1]
        elif text == "today":
            start, read = _midnight(today, zone), today.isoformat()
        elif text == "yesterday":
            day = today - datetime.timedelta(days=1)
            start, read = _midnight(day, zone), day.isoformat()
        elif text in ("this week", "last week"):
            monday = today - datetime.timedelta(days=today.weekday())
            if text == "last week":
                monday -= datetime.timedelta(days=7)
            start, read = _midnight(monday, zone), f"the week from Monday {monday.isoformat()}"
        elif text in ("this month", "last month"):
            first = today.replace(day=1) - (relativedelta(months=1) if text == "last month" else relativedelta())
            start, read = _midnight(first, zone), first.strftime("%B %Y")
        elif text in ("this year", "last year"):
            year = today.year - (1 if text == "last year" else 0)
            start, read = _midnight(datetime.date(year, 1, 1), zone), str(year)
        elif (m := _AGO.match(text)) or (m := _LAST_N.match(text)):
            # The unit is one of relativedelta's keywords (days ... years), never its first parameter, a date.
            day = today - relativedelta(**{_UNITS[m[2]]: int(m[1])})  # type: ignore[arg-type]
            start, read = _midnight(day, zone), day.isoformat()
        else:
            raise ValueError(f"{words!r} isn't a date Roadstar reads; give {EXAMPLES}")
    except (ValueError, OverflowError) as e:
        if "isn't a date" in str(e):
            raise
        raise ValueError(f"{words!r} isn't a date; give {EXAMPLES}") from None
    if not FIRST_YEAR <= start.year <= LAST_YEAR:
        raise ValueError(f"{words!r} is out of range; give a date from the year {FIRST_YEAR} to {LAST_YEAR}")
    return start, f"{read} ({time_zone})"
