"""Writes for connection tokens: make one (shown once), revoke one, and sign in with one."""

from __future__ import annotations

import datetime
import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from agents.models import Agent, Conversation, Message
from core.errors import ToolError
from mcp_server.models import McpOAuthToken, McpToken

TOKEN_PREFIX = "rsm_"
NAME_LIMIT = 120
# last_used_at is for the owner's eyes: writing it on every request would only add writes, so once a minute.
TOUCH_EVERY = datetime.timedelta(minutes=1)


def token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def mcp_token_make(*, org, agent: Agent, name: str) -> tuple[McpToken, str]:
    """Make a connection token for `agent`, with its own OUTSIDE conversation. Returns the row and the token,
    which is not kept anywhere: show it to the owner now."""
    if agent.organization_id != org.id:
        raise ToolError("not_found", f"No agent {agent.name!r} in this workspace.")
    name = (name or "").strip()
    if not name:
        raise ToolError("bad_input", "name: say what the token is for, such as Claude on my laptop")
    if len(name) > NAME_LIMIT:
        raise ToolError("bad_input", f"name: {len(name)} characters; {NAME_LIMIT} at most")
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        conversation = Conversation.objects.create(
            organization=org, agent=agent, kind=Conversation.Kind.OUTSIDE, title=name
        )
        row = McpToken.objects.create(
            organization=org, agent=agent, conversation=conversation, name=name,
            token_hash=token_hash(plaintext), hint=plaintext[: len(TOKEN_PREFIX) + 4],
        )
    return row, plaintext


def mcp_token_revoke(*, org, token_id) -> McpToken:
    """Revoke a token of this workspace: its next request is refused (401). Revoking twice changes nothing."""
    with transaction.atomic():
        row = McpToken.objects.select_for_update().filter(organization=org, id=token_id).first()
        if row is None:
            raise ToolError("not_found", f"No connection token with id {token_id} in this workspace.")
        if row.revoked_at is None:
            now = timezone.now()
            row.revoked_at = now
            row.save(update_fields=["revoked_at"])
            # An app signed in through Roadstar: its access and refresh tokens go with it, at once.
            McpOAuthToken.objects.filter(connection=row, revoked_at__isnull=True).update(revoked_at=now)
            Conversation.objects.filter(id=row.conversation_id, closed_at__isnull=True).update(closed_at=now)
    return row


def mcp_token_sign_in(plaintext: str) -> McpToken | None:
    """The active token with this value, with its agent, workspace and conversation; None for an unknown or
    revoked one. Checked on every request, so revoking takes effect at the app's next call."""
    if not plaintext or not plaintext.startswith(TOKEN_PREFIX):
        return None
    row = (
        McpToken.objects.select_related("agent", "organization", "conversation")
        .filter(token_hash=token_hash(plaintext), revoked_at__isnull=True)
        .first()
    )
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > TOUCH_EVERY:
        McpToken.objects.filter(id=row.id).update(last_used_at=now)
        row.last_used_at = now
    return row


def answers_claim(*, token: McpToken) -> list[Message]:
    """The answers that arrived in the token's conversation since the app was last given them, marked given.

    Two calls at once can't both be given the same answers: the mark moves only from the value this call read.
    """
    seen = McpToken.objects.filter(id=token.id).values_list("answers_seen", flat=True).first()
    if seen is None:
        return []
    answers = list(
        Message.objects.filter(conversation_id=token.conversation_id, role=Message.Role.ANSWER, seq__gt=seen)
        .order_by("seq")
    )
    if not answers:
        return []
    if not McpToken.objects.filter(id=token.id, answers_seen=seen).update(answers_seen=answers[-1].seq):
        return []
    token.answers_seen = answers[-1].seq
    return answers
