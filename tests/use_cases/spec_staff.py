"""A fake OpenAI-compatible model that plays the spec's stories over the wire (tests/agents/fake_model_server.py's
server, answering as a staff would): written from the spec's stories, not from Roadstar's code.

- A thread, on new input, runs its action with use_tool; when the result says it was held back (`not_done_yet`) it
  asks the owner in its reply; when it went, it says so.
- A chat starts its thread on the owner's request; on the owner's yes it passes the yes on with message_thread, or,
  for a chat that never forwards anything, only notes it. Answers from threads are noted.
- The check's judge (a strict-JSON request) is answered "the check couldn't decide": the stories here are decided
  by the rules and the owner's yes, never by the judge's go.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass

from tests.agents.fake_model_server import FakeModelServer, _completion

_OWNER = re.compile(r"^\[#\d+\] Sam: (.*)", re.S)


@dataclass
class _Thread:
    action: dict
    ask: str
    done: str
    tool: str = "mail.send"


@dataclass
class _Chat:
    thread: str
    passes_yes_on: bool


def _call(name: str, arguments: dict) -> bytes:
    return _completion({"content": None, "tool_calls": [{
        "id": f"call_{time.monotonic_ns()}", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]})


def _say(text: str) -> bytes:
    return _completion({"content": text})


class SpecStaff(FakeModelServer):
    def __init__(self):
        super().__init__(delay=0)
        self.threads: dict[tuple[str, str], _Thread] = {}
        self.chats: dict[str, _Chat] = {}
        self.passed_on: dict[str, int] = {}
        self.staff_lock = threading.Lock()

    def on_thread(self, agent: str, title: str, *, action: dict, ask: str, done: str, tool: str = "mail.send"):
        action = action if "name" in action else {"name": tool, "input": action}
        self.threads[(agent, title)] = _Thread(action=action, ask=ask, done=done, tool=tool)

    def on_chat(self, agent: str, *, thread: str, passes_yes_on: bool):
        self.chats[agent] = _Chat(thread=thread, passes_yes_on=passes_yes_on)

    def answer(self, body: dict) -> bytes:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            name = body["response_format"]["json_schema"].get("name")
            if name == "check_verdict":
                return _say(json.dumps({"outcome": "ask", "reason": "the check couldn't decide", "relied_on": []}))
            raise AssertionError(f"the stories make no {name} request")
        system = body["messages"][0]["content"]
        if not system.startswith("You are "):
            return _say("Earlier messages, summed up.")
        agent = system[len("You are "):].split(",", 1)[0]
        marker = "This thread: "
        if marker in system:
            title = system.split(marker, 1)[1].split(".\n", 1)[0]
            return self._thread(self.threads[(agent, title)], body)
        return self._chat(agent, self.chats.get(agent), body)

    @staticmethod
    def _thread(script: _Thread, body: dict) -> bytes:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return _say(script.ask if "not_done_yet" in last["content"] else script.done)
        return _call("use_tool", script.action)

    def _chat(self, agent: str, script: _Chat | None, body: dict) -> bytes:
        messages = body["messages"]
        if messages[-1]["role"] == "tool" or script is None:
            return _say("Noted.")
        owner = []
        for message in reversed(messages):
            if message["role"] == "assistant":
                break
            found = _OWNER.match(message["content"] or "") if message["role"] == "user" else None
            if found:
                owner.append(found.group(1))
        if not owner:
            return _say("Noted.")  # an answer from a thread, or a note: nothing to do
        words = owner[0]
        if words.lower().startswith("yes"):
            if not script.passes_yes_on:
                return _say("Noted.")
            with self.staff_lock:
                self.passed_on[agent] = self.passed_on.get(agent, 0) + 1
            return _call("message_thread", {"thread": script.thread, "task": f"Sam says: {words}"})
        return _call("start_thread", {"title": script.thread, "task": words})
