"""Template tags of the owner's pages: times in the owner's zone, who did something, safe links, the nav bar."""

from __future__ import annotations

import datetime
import decimal
import re

from django import template
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from pages.mdx import safe_link

register = template.Library()


def _as_datetime(value) -> datetime.datetime | None:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and value:
        try:
            parsed = parse_datetime(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed is not None and timezone.is_naive(parsed):
            # A time without an offset is the owner's (the page's zone is theirs), never UTC.
            parsed = timezone.make_aware(parsed, timezone.get_current_timezone())
        return parsed
    return None


@register.filter
def when(value) -> str:
    """A time (or an ISO text of one) in the owner's time zone: "Nov 6, 2026, 9:05 AM"."""
    at = _as_datetime(value)
    if at is None:
        return ""
    local = timezone.localtime(at)
    hour = local.hour % 12 or 12
    return f"{local:%b} {local.day}, {local.year}, {hour}:{local:%M} {'AM' if local.hour < 12 else 'PM'}"


@register.filter
def iso(value) -> str:
    at = _as_datetime(value)
    return at.isoformat() if at else ""


@register.filter
def day(value) -> str:
    """A date (or a YYYY-MM-DD text): "Nov 6, 2026"."""
    if isinstance(value, datetime.datetime):
        value = timezone.localtime(value).date()
    if isinstance(value, str):
        try:
            value = parse_date(value[:10])
        except ValueError:
            value = None
    if not isinstance(value, datetime.date):
        return ""
    return f"{value:%b} {value.day}, {value.year}"


@register.filter
def who(by, names) -> str:
    """Who `by` ({kind, id}) is, as the owner reads it: an agent by name, "You", or Roadstar."""
    if not isinstance(by, dict):
        return ""
    kind, id_ = by.get("kind"), str(by.get("id", ""))
    if kind == "agent":
        return names["agent"].get(id_, "An agent no longer on your staff")
    if kind == "user":
        return "You" if id_ == names["owner"] else "Someone at Roadstar"
    if kind == "system":
        return "Roadstar"
    return ""


@register.filter
def agent_name(agent_id, names) -> str:
    return names["agent"].get(str(agent_id), "")


@register.filter
def money(value) -> str:
    """A sum of dollars as the owner reads it: "$1,200.00" ("" for none)."""
    if value is None or value == "":
        return ""
    return f"${decimal.Decimal(value):,.2f}"


@register.filter
def safe_href(url) -> str:
    """The address if the page may link to it (http(s), mailto, relative), else "" (then it shows as text)."""
    if not isinstance(url, str) or not url.strip() or url.strip().lower().startswith("roadstar:"):
        return ""
    return url.strip() if safe_link(url.strip()) else ""


_DOMAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,}(/\S*)?$")


@register.filter
def web_href(url) -> str:
    """A website as a link: http(s) as it is, a bare domain ("juniperdental.com") as https; else ""."""
    if not isinstance(url, str):
        return ""
    url = url.strip()
    if url.lower().startswith(("http://", "https://")):
        return url if safe_link(url) else ""
    return f"https://{url}" if _DOMAIN.match(url) else ""


_CITATION = re.compile(r"\[(\d+)\]")


@register.filter
def cite(text, sources) -> str:
    """The About's text, escaped, in paragraphs, each [n] a link to its numbered source below."""
    count = len(sources or [])

    def link(match: re.Match) -> str:
        number = int(match.group(1))
        if 1 <= number <= count:
            return format_html('<sup><a href="#source-{}" class="cite">[{}]</a></sup>', number, number)
        return match.group(0)

    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]
    parts = []
    for paragraph in paragraphs:
        escaped = str(format_html("{}", paragraph))
        parts.append("<p>" + _CITATION.sub(link, escaped).replace("\n", "<br>") + "</p>")
    return mark_safe("".join(parts))


OPEN_WORDS = {"you": "You owe them", "them": "They owe you", "follow_up": "Follow up"}


@register.filter
def open_words(kind) -> str:
    return OPEN_WORDS.get(kind, kind)


STATE_WORDS = {"waiting_you": "waiting on you", "waiting_them": "waiting on them", "paid": "paid", "overdue": "overdue"}


@register.filter
def state_words(state) -> str:
    return STATE_WORDS.get(state, state)


LOG_WORDS = {
    "created": "added", "note": "note", "ask": "ask", "context": "Context", "labels": "labels",
    "updated": "changed", "follow_up": "follow-up", "linked": "linked", "about": "About", "opened": "opened",
    "closed": "closed", "recorded": "timeline", "unrecorded": "off the timeline", "restored": "put back",
    "removed": "removed", "sent": "sent", "drafted": "drafted", "triage": "triage", "looked": "looked up",
    "merged": "merged",
}


@register.filter
def log_word(kind) -> str:
    return LOG_WORDS.get(kind, kind)


_NOT_PLAIN = object()


def _words(value):
    """A log value as words ("" for none), or _NOT_PLAIN when it isn't plain (a whole About, an entry)."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(str(v) for v in value)
    return _NOT_PLAIN


def _rows(before, after, what: str, depth: int = 0) -> list[dict]:
    if isinstance(before, dict) or isinstance(after, dict):
        before = before if isinstance(before, dict) else {}
        after = after if isinstance(after, dict) else {}
        if depth > 1:
            return []
        rows = []
        for key in dict.fromkeys([*before, *after]):
            label = f"{what} · {key}" if what else str(key)
            rows += _rows(before.get(key), after.get(key), label, depth + 1)
        return rows
    b, a = _words(before), _words(after)
    if b is _NOT_PLAIN or a is _NOT_PLAIN or b == a:
        return []
    return [{"what": what, "before": b, "after": a}]


@register.filter
def log_changes(entry) -> list[dict]:
    """What a log entry changed, as rows {what, before, after} of words ("" for none); none for a whole About."""
    if not isinstance(entry, dict) or ("before" not in entry and "after" not in entry) or entry.get("kind") == "about":
        return []
    return _rows(entry.get("before"), entry.get("after"), "")


@register.simple_tag(takes_context=True)
def nav_item(context, url: str, label: str, exact: bool = False):
    """A link of the nav bar, marked as the current page when the page is (under) its address."""
    request = context.get("request")
    path = request.path if request is not None else ""
    current = path == url if exact else path.startswith(url)
    if current:
        return format_html('<a href="{}" class="nav__link nav__link--current" aria-current="page">{}</a>', url, label)
    return format_html('<a href="{}" class="nav__link">{}</a>', url, label)
