"""A conversation's messages as the model and the turn read them, with no database: the prompt in the OpenAI chat
format (`PromptMessages`, fed as messages come), whether input still waits for a reply (`input_waits`), and a
tool's result as the model reads it (`compact_json`)."""

from __future__ import annotations

import json
from typing import Any

from agents.models import Message
from agents.runtime import memory

INPUT_ROLES = {Message.Role.OWNER, Message.Role.HANDOFF, Message.Role.ANSWER, Message.Role.ROUTINE, Message.Role.SYSTEM}


class PromptMessages:
    """Messages in the OpenAI chat format, each input marked with its id so the agent can zoom and date it, made
    as messages come (`feed`, in seq order): a turn's prompt only grows, so each step converts only what is new.

    A tool result must follow its call directly: a message that arrived while a step's tools ran (a
    message_thread, an answer) is shown after the step's last result, where the API accepts it.
    """

    def __init__(self, *, owner: str):
        self.owner = owner
        self.converted: list[dict] = []
        self.answered_calls: set[str] = set()
        self.waiting: set[str] = set()  # calls of the last step whose results haven't been shown yet
        self.held: list[dict] = []  # inputs that arrived while those calls ran
        self.fed_upto = -1

    def messages(self) -> list[dict]:
        return [*self.converted, *self.held]

    def _flush(self) -> None:
        self.converted.extend(self.held)
        self.held.clear()

    def feed(self, messages) -> None:
        for message in in_the_order_written(list(messages)):
            self._feed_one(message)
            self.fed_upto = max(self.fed_upto, message.seq)

    def _feed_one(self, message: Message) -> None:
        if message.role == Message.Role.AGENT and message.data.get("no_model"):
            return  # Roadstar's "I can't work yet", said for the agent while no model was connected: not the model's
        if message.role == Message.Role.AGENT and message.data.get("notice"):
            # Roadstar's notice (a research page that failed): news for the model, in the user's place
            notice = {"role": "user", "content": f"[#{message.seq}] Roadstar: {message.text}"}
            (self.held if self.waiting else self.converted).append(notice)
            return
        if message.role == Message.Role.AGENT:
            self._flush()
            self.waiting.clear()
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            calls = message.data.get("tool_calls") or []
            if calls:
                entry["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": c.get("raw") or json.dumps(c["arguments"])}}
                    for c in calls
                ]
                self.answered_calls.update(c["id"] for c in calls)
                self.waiting.update(c["id"] for c in calls)
            if not calls and not message.text:
                entry["content"] = ""
            self.converted.append(entry)
        elif message.role == Message.Role.TOOL:
            call_id = message.data.get("call_id")
            text = memory.head(message.text, message.seq)
            if call_id in self.answered_calls:
                self.converted.append({"role": "tool", "tool_call_id": call_id, "content": text})
                self.waiting.discard(call_id)
                if not self.waiting:
                    self._flush()
            else:
                # Its call was folded into memory: show the result as plain text rather than an orphan.
                self.converted.append(
                    {"role": "user", "content": f"[#{message.seq}] result of {message.data.get('name')}: {text}"}
                )
        else:
            label = f"{self.owner}: " if message.role == Message.Role.OWNER else ""
            entry = {"role": "user", "content": f"[#{message.seq}] {label}{memory.head(message.text, message.seq)}"}
            (self.held if self.waiting else self.converted).append(entry)


def in_the_order_written(messages: list[Message]) -> list[Message]:
    """Messages in seq order, but a step of the model's right after the last message it saw (`saw_upto`): what was
    appended while it was written (a seq before its own) shows after it, as it happened to the model."""
    ordered = list(messages)
    for step in [m for m in messages if m.role == Message.Role.AGENT and m.data.get("saw_upto") is not None]:
        ordered.remove(step)
        place = max((i + 1 for i, m in enumerate(ordered) if m.seq <= step.data["saw_upto"]), default=0)
        ordered.insert(place, step)
    return ordered


def compact_json(result) -> str:
    """A tool's result as the model reads it: no spaces between tokens, and text as text rather than escapes.
    The model reads every result again on every later step, so each character saved is saved many times."""
    return json.dumps(result, separators=(",", ":"), ensure_ascii=False)


def acts_on(message: Message) -> bool:
    return message.role in INPUT_ROLES and not message.data.get("quiet")


def is_reply(message: Message) -> bool:
    return message.role == Message.Role.AGENT and not said_for_the_agent(message.data)


def said_for_the_agent(data: dict | None) -> bool:
    """Roadstar's own words in an agent's conversation ("I can't work yet", a research page that failed): shown
    as the agent's, but not a reply of the model's, so what came before them still waits for one."""
    return bool(data and (data.get("no_model") or data.get("notice")))


def input_waits(messages: list[Message]) -> bool:
    """has_new_input over messages in seq order: the agent's last reply and what came after it (or only what came
    after it), and, where the reply was written while more came in, what it never saw (its `saw_upto`)."""
    if not messages:
        return False
    # (from the end: the last reply is near it, and the turn asks at every step). "I can't work yet" (no model was
    # connected) answered nothing: what it was said to still waits, so Try again, once a model is connected, runs it.
    last_reply = next((i for i in range(len(messages) - 1, -1, -1) if is_reply(messages[i])), -1)
    if last_reply >= 0:
        saw_upto = messages[last_reply].data.get("saw_upto")
        if saw_upto is not None and any(m.seq > saw_upto and acts_on(m) for m in messages[:last_reply]):
            return True
    if is_reply(messages[-1]):
        return False
    # A step's results no step has seen yet (the turn went on in another, and quiet answers came after them) or
    # input to act on.
    return any(m.role == Message.Role.TOOL or acts_on(m) for m in messages[last_reply + 1:])
