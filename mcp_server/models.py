"""Connection tokens: how an outside AI app or a Mac program signs in to /mcp as one of the owner's agents.

Only a SHA-256 of a token is kept; the token itself is shown to the owner once, when it is made. Each token has
its own OUTSIDE conversation: what the app made there is "made here" for the check, and answers to the work it
handed off wait there until the app reads them.
"""

from __future__ import annotations

import uuid

from django.db import models


class McpToken(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("team.Agent", on_delete=models.CASCADE, related_name="mcp_tokens")
    conversation = models.OneToOneField(
        "agents.Conversation", on_delete=models.CASCADE, related_name="mcp_token",
        help_text="The app's own OUTSIDE conversation: where answers to its hand-offs arrive.",
    )
    name = models.CharField(max_length=120, help_text="What the owner calls it: Claude on my laptop, Codex …")
    token_hash = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the token, hex.")
    hint = models.CharField(
        max_length=16, editable=False, help_text="The token's first characters, to tell tokens apart."
    )
    # The last answer message (its seq in the conversation) the app has been given: answers after it are new.
    answers_seen = models.IntegerField(default=-1, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "MCP connection token"
        indexes = [models.Index(fields=["organization", "-created_at"], name="mcp_token_org_idx")]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"
