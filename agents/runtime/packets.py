"""A packet: what one agent sends another (hand_off) or a chat its thread (start_thread, message_thread).

Past a limit the sender is asked to shorten it, in the spec's words; nothing is cut and nothing is sent.
"""

from __future__ import annotations

from core import limits
from core.errors import ToolError

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


def packet_text(*, sender: str, task: str, notes: str | None, links: list[str] | None, owner_words: list) -> str:
    text = f"[From {sender}] {task}"
    if notes:
        text += f" Notes: {notes}"
    if links:
        text += " Links: " + " ".join(links)
    for words in owner_words:
        text += f'\n{words.get("who", "The owner")} said, in {words["where"]} at {words["at"]}: "{words["text"]}"'
    return text
