"""What every tool call runs in: the workspace, who acts, and the conversation around the work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.actors import Actor
from core.models import Organization


class Host(Protocol):
    """What runs an agent tool's call: the agents app's Turn (a chat or thread) or OutsideSession (an MCP app), both
    agents.runtime.host.ToolHost, which the agent tools read as that (agents.runtime.host.host_of) for the piece of
    work, hand-offs and threads. Core can't import agents: this is what a host is to the layers below it."""

    org: Organization
    actor: Actor
    place: str  # which agent tools it holds (tools.registry's places)

    def tool_context(self) -> ToolContext: ...

    def check_turns(self) -> list[Any]:
        """The conversation around the call, as the owner's-yes check reads it (ToolContext.conversation)."""
        ...

    def remember_loaded(self, loaded: set[str]) -> None:
        """Tools loaded with find_tools stay loaded for the rest of the conversation."""
        ...


@dataclass
class ToolContext:
    org: Organization
    actor: Actor
    # The chat or thread the call comes from; None for calls made outside a conversation (a test, a command).
    conversation_id: str | None = None
    # The piece of work the call is part of: what it made, the check lets it change freely.
    work_id: str | None = None
    # The conversation around the work in the check's shape (owner / routine / handoff / read / agent turns), as
    # dicts or as the check's models (checks.types.Turn: a turn's, validated once). A function, because only a
    # checked call needs it and building it reads the conversation's messages.
    conversation: Callable[[], list[Any]] = field(default=lambda: [])
    # Tools loaded with find_tools; they stay loaded for the rest of the thread.
    loaded: set[str] = field(default_factory=set)
    # What runs an agent tool's call (Host); None for calls made outside an agent's conversation.
    host: Host | None = None
