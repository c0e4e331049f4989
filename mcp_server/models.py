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
    # Set for an app that signed in through Roadstar (OAuth): the row is then the app's connection, whose
    # access and refresh tokens are McpOAuthTokens; its own token_hash is of a value never shown to anyone.
    client = models.ForeignKey(
        "mcp_server.McpOAuthClient", null=True, blank=True, on_delete=models.CASCADE, related_name="connections"
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "MCP connection token"
        indexes = [models.Index(fields=["organization", "-created_at"], name="mcp_token_org_idx")]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"


# --- outside apps that sign in through Roadstar (OAuth 2.1 as the MCP authorization spec has it) ---------------


class McpOAuthClient(models.Model):
    """An app that registered itself (RFC 7591 dynamic registration). Not a workspace's: an app registers before
    anyone signs in; what it may do comes from the owner's consent, which is the workspace's (McpToken)."""

    client_id = models.CharField(max_length=64, primary_key=True)
    name = models.CharField(max_length=200, help_text="The name the app gave itself (client_name).")
    redirect_uris = models.JSONField(default=list)
    # The registration as the SDK's OAuthClientInformationFull, without the secret.
    metadata = models.JSONField(default=dict)
    # A confidential client's secret, encrypted like the apps' tokens (integrations.crypto): the SDK's client
    # authentication compares the secret itself, so it is kept readable to the server, never in clear.
    secret_encrypted = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "MCP OAuth client"

    def __str__(self):
        return f"{self.name} ({self.client_id})"


class McpOAuthRequest(models.Model):
    """An authorization request waiting for the owner's consent page (the SDK's /authorize checked it and
    redirected the browser there). Its key is in the consent page's address; only its hash is kept."""

    key_hash = models.CharField(max_length=64, primary_key=True)
    client = models.ForeignKey(McpOAuthClient, on_delete=models.CASCADE, related_name="+")
    state = models.TextField(blank=True, default="")
    scopes = models.JSONField(default=list)
    code_challenge = models.CharField(max_length=128)
    redirect_uri = models.TextField()
    redirect_uri_explicit = models.BooleanField(default=True)
    resource = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)


class McpOAuthCode(models.Model):
    """An authorization code the owner's approval made: single use, minutes long, its hash only."""

    code_hash = models.CharField(max_length=64, primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    connection = models.ForeignKey(McpToken, on_delete=models.CASCADE, related_name="oauth_codes")
    client = models.ForeignKey(McpOAuthClient, on_delete=models.CASCADE, related_name="+")
    scopes = models.JSONField(default=list)
    code_challenge = models.CharField(max_length=128)
    redirect_uri = models.TextField()
    redirect_uri_explicit = models.BooleanField(default=True)
    resource = models.TextField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)


class McpOAuthToken(models.Model):
    """An access token (short-lived) or a refresh token (rotated on every use) of an app's connection, bound to
    the resource it was asked for (RFC 8707). Only its SHA-256 is kept."""

    class Kind(models.TextChoices):
        ACCESS = "access"
        REFRESH = "refresh"

    token_hash = models.CharField(max_length=64, primary_key=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    connection = models.ForeignKey(McpToken, on_delete=models.CASCADE, related_name="oauth_tokens")
    client = models.ForeignKey(McpOAuthClient, on_delete=models.CASCADE, related_name="+")
    scopes = models.JSONField(default=list)
    resource = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # A refresh token is used once: its use rotates it (used_at set, a new one made). Presented again, it is a
    # stolen copy or a replay, and the whole connection's tokens are revoked.
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["connection", "kind"], name="mcp_oauth_token_conn_idx")]
