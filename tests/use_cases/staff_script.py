"""A scripted model for use cases that cross agents: each conversation gets its own queue of responses, picked by
who is being asked (the agent, and the thread's title or its chat), so the order turns happen to run in doesn't
matter."""

from __future__ import annotations

from agents.runtime.model import ModelResponse, ScriptedModel


class StaffScript(ScriptedModel):
    def __init__(self):
        super().__init__()
        self.queues: dict[tuple[str, str], list] = {}
        self.sent: dict[tuple[str, str], list[dict]] = {}
        self.script = [self._route] * 1000

    def on(self, agent: str, where: str, *responses):
        """Responses for `agent` in `where`: "chat", or a thread's title; "summaries" for memory and matching."""
        self.queues.setdefault((agent, where), []).extend(responses)
        return self

    def _route(self, request):
        system = request["messages"][0]["content"]
        key = ("*", "summaries")
        if system.startswith("You are "):
            agent = system[len("You are "):].split(",", 1)[0]
            where = "chat"
            marker = "This thread: "
            if marker in system:
                where = system.split(marker, 1)[1].split(".\n", 1)[0]
            key = (agent, where)
        self.sent.setdefault(key, []).append(request)
        queue = self.queues.get(key)
        if not queue and key == ("*", "summaries"):
            # Memory folds as conversations grow: any summary will do unless the test scripted one.
            return ModelResponse(text="Earlier messages, summed up.")
        if not queue:
            raise AssertionError(f"no scripted response left for {key}")
        item = queue.pop(0)
        return item(request) if callable(item) else item
