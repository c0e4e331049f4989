"""A packet: what one agent sends another (hand_off) or a chat its thread (start_thread, message_thread).

Past a limit the sender is asked to shorten it, in the spec's words; nothing is cut and nothing is sent.
"""

from __future__ import annotations

import datetime

from django.utils import timezone

from core import limits
from core.errors import ToolError
from core.owner_zone import owner_zone

TASK_LIMIT = limits.PACKET_TASK
NOTES_LIMIT = limits.PACKET_NOTES
LINKS_LIMIT = limits.PACKET_LINKS
LINK_PREFIXES = ("mail:", "file:", "contact:", "doc:", "web:")


def check_packet(*, task: str, notes: str | None, links: list[str] | None) -> None:
    """Past a limit the sender is asked to shorten; nothing is cut and nothing is sent."""
    problems = []
    if len(task) > TASK_LIMIT:
        problems.append(f"task: {len(task)} characters; a packet's task is at most {TASK_LIMIT}")
    if notes and len(notes) > NOTES_LIMIT:
        problems.append(f"notes: {len(notes)} characters; a packet's notes are at most {NOTES_LIMIT}")
    links = links or []
    if len(links) > LINKS_LIMIT:
        problems.append(f"links: {len(links)} links; a packet holds at most {LINKS_LIMIT}")
    for i, link in enumerate(links):
        if len(link) > limits.PACKET_LINK:
            problems.append(f"links[{i}]: {len(link)} characters; a link is at most {limits.PACKET_LINK}")
        elif not link.startswith(LINK_PREFIXES):
            problems.append(f"links[{i}]: {link!r} must start with one of {', '.join(LINK_PREFIXES)}")
    if problems:
        raise ToolError("bad_input", "; ".join(problems) + ". Shorten it and send it again; nothing was sent.")


def packet_text(*, sender: str, task: str, notes: str | None, links: list[str] | None, owner_words: list,
                org=None, now: datetime.datetime | None = None) -> str:
    """The packet as the spec writes it: `[From Roadstar] {task} Sam said in Roadstar's chat at 4:05 PM: "…" Notes:
    … Links: …`, the owner's words quoted with their time in the owner's zone (`org`'s)."""
    text = f"[From {sender}] {task}"
    owner = org.owner_first_name if org is not None else "The owner"
    for words in owner_words:
        when = owner_time_words(words["at"], zone=owner_zone(org) if org is not None else datetime.UTC, now=now)
        text += f' {words.get("who") or owner} said in {words["where"]} {when}: "{words["text"]}"'
    if notes:
        text += f" Notes: {notes}"
    if links:
        text += " Links: " + " ".join(links)
    return text


def owner_time_words(at: str, *, zone: datetime.tzinfo, now: datetime.datetime | None = None) -> str:
    """When the owner said it, as the spec quotes it: "at 4:05 PM" that day in their zone, "on Thu Dec 3 at 4:05
    PM" another day (a hand-off passed on later), "on Thu Dec 3, 2025 at …" another year."""
    try:
        moment = datetime.datetime.fromisoformat(at)
    except (TypeError, ValueError):
        return f"at {at}"  # (written by hand: quoted as it is)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    local = moment.astimezone(zone)
    today = (now or timezone.now()).astimezone(zone).date()
    clock = f"at {local.hour % 12 or 12}:{local:%M} {'AM' if local.hour < 12 else 'PM'}"
    if local.date() == today:
        return clock
    day = f"{local:%a %b} {local.day}" + (f", {local.year}" if local.year != today.year else "")
    return f"on {day} {clock}"
