"""The owner's other apps, connected by their MCP address: each a Connection (app "apps") with its McpApp.

Roadstar is the MCP client here: it signed in to the app with OAuth (discovery, dynamic registration, PKCE) and
keeps the app's tokens on the Connection, encrypted like Google's (integrations/crypto.py). What the app declared
when it was read (its name, instructions and tools, each with its schema and annotations) is kept here, so the
app's group is listed and its tools found without calling the app; only use_tool calls it.
"""

from __future__ import annotations

from django.db import models

from integrations import crypto

__all__ = ["McpApp"]


class McpApp(models.Model):
    connection = models.OneToOneField(
        "integrations.Connection", on_delete=models.CASCADE, primary_key=True, related_name="mcp_app"
    )
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=500, help_text="The app's MCP address, as the owner gave it.")
    group = models.CharField(max_length=40, help_text="The tool group it adds, named after the app: ledgerly.")
    label = models.CharField(max_length=200, help_text="The app's name, as its server gives it.")
    instructions = models.TextField(blank=True, help_text="The server's instructions: its group's how-to.")
    # As the app declared them: [{name, title, description, inputSchema, annotations}], in its order.
    tools = models.JSONField(default=list, blank=True)
    tools_read_at = models.DateTimeField(null=True, blank=True)
    # Fernet ciphertext of Roadstar's registration with the app's authorization server: client_id, client_secret,
    # token_endpoint, resource. Never plaintext, never shown.
    oauth = models.TextField(blank=True, default="", editable=False)

    class Meta:
        verbose_name = "connected app (MCP)"
        constraints = [
            models.UniqueConstraint(fields=["organization", "group"], name="mcp_app_group_unique_per_org"),
        ]

    def __str__(self):
        return f"{self.label} ({self.url})"

    def read_oauth(self) -> dict:
        return crypto.decrypt(self.oauth)

    def set_oauth(self, data: dict) -> None:
        self.oauth = crypto.encrypt(data)
