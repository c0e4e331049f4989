"""What every tool call runs in: the workspace, who acts, and the conversation around the work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.actors import Actor
from core.models import Organization


@dataclass
class ToolContext:
    org: Organization
    actor: Actor
    # The chat or thread the call comes from; None for calls made outside a conversation (a test, a command).
    conversation_id: str | None = None
    # The piece of work the call is part of: what it made, the check lets it change freely.
    work_id: str | None = None
    # The conversation around the work in the check's shape (owner / routine / handoff / read / agent turns).
    # A function, because only a checked call needs it and building it reads the conversation's messages.
    conversation: Callable[[], list[dict[str, Any]]] = field(default=lambda: [])
    # Tools loaded with find_tools; they stay loaded for the rest of the thread.
    loaded: set[str] = field(default_factory=set)
    # What runs an agent tool's call: the agents app's Turn (a chat or thread) or OutsideSession (an MCP app), which
    # the agent tools read (the piece of work, hand-offs, threads). Any: core can't import agents. None elsewhere.
    host: Any = None
