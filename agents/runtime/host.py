"""What agent tools need from where they run: a Turn (a chat or thread) or an OutsideSession (an MCP app).

A host has `org`, `agent`, `actor`, `conversation`, `place` and `current_work()`; this mixin builds the rest
from them, so the two hosts can't drift apart in how the tool context (what the check and Home's records read) and
loaded tools work. A ToolHost is core.context.Host to the layers below agents; the agent tools read it back as
this (`host_of(ctx)`), and a chat's Turn as a RoutingHost (`routing_host_of(ctx)`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol, runtime_checkable

from django.db import transaction

from agents.models import Agent, Conversation, Work
from agents.runtime.check_turns import check_turns
from core.actors import Actor
from core.context import ToolContext
from core.errors import ToolError
from core.models import Organization


class ToolHost(ABC):
    # What a host sets as it starts (Turn and OutsideSession, in their __init__).
    org: Organization
    agent: Agent
    actor: Actor
    conversation: Conversation
    place: str
    _tool_context: ToolContext | None = None

    @abstractmethod
    def current_work(self) -> Work | None:
        """The piece of work the call is on, if any: what the change is recorded against."""

    @abstractmethod
    def pass_on(self, requester_id) -> None:
        """The work asked by this requester goes on whole: its answer comes from whoever does it now."""

    @abstractmethod
    def keep(self) -> None:
        """The work is sent on, and its answer comes back here."""

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

    def check_turns(self) -> list[Any]:
        """The conversation as the check reads it, as dicts (a Turn holds it for the turn, as the check's models)."""
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


@runtime_checkable
class RoutingHost(Protocol):
    """A host that sends work to the agent's threads: a Turn of a chat (start_thread and message_thread are held in
    chats only)."""

    agent: Agent

    def send_to_thread(self, thread: Conversation, *, task: str, notes: str | None, links: list[str],
                       and_then: str | None) -> Work: ...

    def memory_text(self) -> str: ...


def host_of(ctx: ToolContext) -> ToolHost:
    """The turn or outside session running an agent tool's call."""
    if not isinstance(ctx.host, ToolHost):
        raise ToolError("forbidden", "This tool runs only in an agent's conversation.")
    return ctx.host


def routing_host_of(ctx: ToolContext) -> RoutingHost:
    """The chat's turn running a call that sends work to a thread."""
    host = host_of(ctx)
    if not isinstance(host, RoutingHost):
        raise ToolError("forbidden", "Only an agent's chat sends work to its threads.")
    return host
