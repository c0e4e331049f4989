"""The owner's REST API token. Only a SHA-256 of it is kept, as for the MCP connection tokens: the token itself is
shown once, when it is made (`manage.py api_token`), and a copy of the database signs no one in."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token")
    key_hash = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the token, hex.")
    hint = models.CharField(max_length=16, editable=False, help_text="The token's first characters, to tell it.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "REST API token"

    def __str__(self):
        return f"{self.user} ({self.hint}…)"
