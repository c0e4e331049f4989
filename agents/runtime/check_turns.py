"""The conversation as the owner's-yes check reads it (`ToolContext.conversation`): only the owner's words and
routines give permission.

Packets from the agent's own chat carry the owner's words that started the work as the owner's own; packets from
other agents carry them as hand-off owner_words. Tool results and answers are what was read.
"""

from __future__ import annotations

from agents.models import Conversation, Message


def check_turns_of(message: Message) -> list[dict]:
    """One message as the owner's-yes check reads it (check_turns)."""
    data = message.data or {}
    if message.role == Message.Role.OWNER:
        return [{"role": "owner", "text": message.text, "ref": f"message:{message.id}"}]
    if message.role == Message.Role.ROUTINE:
        turns = [{"role": "routine", "name": data.get("name", ""), "text": data.get("note", "")}]
        if data.get("event_text"):
            turns.append({"role": "read", "source": data.get("source", "event"), "text": data["event_text"]})
        return turns
    if message.role == Message.Role.HANDOFF and data.get("from_chat"):
        # Each quoted word keeps the ref of the owner's message it came from, so a yes is spent once wherever it
        # travels; words quoted before refs existed are named by the packet that carries them.
        owner = [{"role": "owner", "text": w["text"], "ref": w.get("ref") or f"handoff:{message.id}:{i}"}
                 for i, w in enumerate(data.get("owner_words", []))]
        if data.get("from_home"):
            return owner  # the owner's answer from Home, delivered by Roadstar: no agent's words with it
        return [*owner, {"role": "agent", "text": data.get("task", "")}]
    if message.role == Message.Role.HANDOFF:
        return [{"role": "handoff", "from": data.get("from", ""), "task": data.get("task", ""),
                 "notes": data.get("notes", ""), "owner_words": data.get("owner_words", [])}]
    if message.role == Message.Role.AGENT:
        return [{"role": "agent", "text": message.text}] if message.text else []
    if message.role in (Message.Role.TOOL, Message.Role.ANSWER):
        return [{"role": "read", "source": data.get("name") or data.get("from") or "answer", "text": message.text}]
    return []


def check_turns(conversation: Conversation) -> list[dict]:
    """The whole conversation as the check reads it, from the database (a Turn holds most of it already)."""
    turns = []
    for message in Message.objects.filter(conversation=conversation).order_by("seq"):
        turns.extend(check_turns_of(message))
    return turns
