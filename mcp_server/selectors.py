"""Reads for connection tokens and the answers waiting in an app's conversation."""

from __future__ import annotations

from agents.models import Message
from mcp_server.models import McpToken

ANSWERS_SHOWN = 50


def mcp_tokens(*, org) -> list[McpToken]:
    """The workspace's tokens, newest first, active ones before revoked ones."""
    rows = McpToken.objects.filter(organization=org).select_related("agent").order_by("-created_at")
    return sorted(rows, key=lambda t: t.revoked_at is not None)


def answers_of(*, token: McpToken, limit: int = ANSWERS_SHOWN) -> list[Message]:
    """The newest answers in the token's conversation, oldest of them first."""
    newest = Message.objects.filter(conversation_id=token.conversation_id, role=Message.Role.ANSWER).order_by("-seq")
    return list(reversed(newest[:limit]))
