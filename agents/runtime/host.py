"""What agent tools need from where they run: a Turn (a chat or thread) or an OutsideSession (an MCP app).

A host has `org`, `agent`, `actor`, `conversation`, `place` and `current_work()`; this mixin builds the rest
from them, so the two hosts can't drift apart in how the tool context (what the check and Home's records read) and
loaded tools work. The agent tools read their host as `ctx.host`.
"""

from __future__ import annotations

from django.db import transaction

from agents.models import Conversation
from core.context import ToolContext


class ToolHost:
    _tool_context: ToolContext | None = None

    def tool_context(self) -> ToolContext:
        if self._tool_context is None:
            work = self.current_work()
            self._tool_context = ToolContext(
                org=self.org, actor=self.actor, conversation_id=str(self.conversation.id),
                work_id=str(work.id) if work else None,
                conversation=self.check_turns,
                loaded=set(self.conversation.loaded_tools), host=self,
            )
        return self._tool_context

    def check_turns(self) -> list[dict]:
        """The conversation as the check reads it (a Turn holds it for the turn)."""
        from agents.runtime.turn import check_turns

        return check_turns(self.conversation)

    def remember_loaded(self, loaded: set[str]) -> None:
        # Merged into the row as it is now, under its lock: an outside app's calls may run side by side.
        with transaction.atomic():
            current = (
                Conversation.objects.select_for_update().filter(id=self.conversation.id)
                .values_list("loaded_tools", flat=True).first()
            ) or []
            merged = sorted(set(current) | set(self.conversation.loaded_tools) | loaded)
            if merged != current:
                Conversation.objects.filter(id=self.conversation.id).update(loaded_tools=merged)
        self.conversation.loaded_tools = merged
