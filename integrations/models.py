"""Connections: each account the owner connected (a Google account, a QuickBooks company, the local providers).

A connection's `account_key` prefixes every id that comes from it (`7c41e2d0:19a2c4e07d5b3f18`), so ids carry their
account and several accounts of one app work side by side. Tokens are encrypted at rest (integrations/crypto.py);
nothing outside this module and integrations/oauth.py reads them.
"""

from __future__ import annotations

import datetime
import re
import uuid

from django.db import models

from integrations import catalog, crypto

ACCOUNT_KEY_RE = re.compile(r"^[0-9a-f]{8}$")


class Connection(models.Model):
    class App(models.TextChoices):
        GOOGLE = "google", "Google"
        QUICKBOOKS = "quickbooks", "QuickBooks Online"
        MICROSOFT = "microsoft", "Microsoft (OneDrive)"
        LOCAL = "local", "Roadstar (local)"
        APPS = "apps", "Another app (MCP)"

    class Status(models.TextChoices):
        CONNECTED = "connected", "connected"
        NEEDS_RECONNECT = "needs_reconnect", "needs reconnect"
        REMOVING = "removing", "removing"
        REMOVED = "removed", "removed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="connections")
    app = models.CharField(max_length=20, choices=App.choices)
    account = models.CharField(max_length=254, help_text="The account's email, or the QuickBooks company's name.")
    account_key = models.CharField(
        max_length=8, editable=False, help_text="8 hex characters that prefix every id from this account."
    )
    groups = models.JSONField(default=list, blank=True, help_text="The tool groups it serves: mail, files, …")
    scopes = models.JSONField(default=list, blank=True, help_text="The scopes the owner granted.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.CONNECTED)
    # Fernet ciphertext of {"access_token", "refresh_token", "expiry", ...}; never plaintext, never shown.
    tokens = models.TextField(blank=True, default="", editable=False)
    # Bumped on every token write: a write that read version n only lands while the row still has n, so a
    # replayed or racing write never puts older tokens over newer ones.
    token_version = models.PositiveIntegerField(default=0, editable=False)
    token_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    refresh_claimed_until = models.DateTimeField(
        null=True, blank=True, editable=False,
        help_text="A worker refreshing the tokens holds this claim (no transaction stays open across the refresh): "
                  "others wait for its tokens, so a refresh token is never spent twice.")
    realm_id = models.CharField(max_length=40, blank=True, help_text="The QuickBooks company id.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "account"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "account_key"], name="connection_key_unique_per_org"),
        ]
        indexes = [models.Index(fields=["organization", "app", "status"], name="connection_org_app_idx")]

    def __str__(self):
        return f"{self.account} ({self.app})"

    # --- what it serves --------------------------------------------------------------------------------

    @property
    def app_info(self) -> catalog.App:
        return catalog.app(self.app)

    @property
    def is_connected(self) -> bool:
        return self.status == self.Status.CONNECTED

    def serves(self, group: str) -> bool:
        return group in self.groups

    def can_write(self, group: str) -> bool:
        return self.serves(group) and self.app_info.can_write(group, self.scopes)

    # --- tokens ----------------------------------------------------------------------------------------

    def read_tokens(self) -> dict:
        return crypto.decrypt(self.tokens)

    def set_tokens(self, tokens: dict) -> None:
        """Encrypt `tokens` onto this instance (the caller saves). Services use integrations.oauth.save_tokens."""
        self.tokens = crypto.encrypt(tokens)
        expiry = tokens.get("expiry")
        self.token_expires_at = datetime.datetime.fromisoformat(expiry) if expiry else None

class SearchCopy(models.Model):
    """Whether the owner turned search on for one account, and how far the search app's copy of it has got.

    The owner's setting lives here, beside the connection, so Connections can show and change it; the copying
    itself is the `search` app's (search/sync.py), which writes the progress back here. `position` is where the
    first sync (and each later catch-up) got to in each part of the account ({"mail": last message id, ...}): it
    commits with the items it copied, so a worker that dies mid-sync resumes there. The claim is a lease
    (`claimed_until`), so a dead worker's claim runs out rather than stopping the copy for good.
    """

    class State(models.TextChoices):
        OFF = "off", "search off"
        WAITING = "waiting", "waiting to copy"
        COPYING = "copying", "copying"
        CURRENT = "current", "copied"
        FAILED = "failed", "copy failed"

    connection = models.OneToOneField(Connection, on_delete=models.CASCADE, related_name="search_copy")
    on = models.BooleanField(default=False)
    on_since = models.DateTimeField(null=True, blank=True, help_text="When the owner turned search on.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.OFF)
    position = models.JSONField(default=dict, blank=True)
    copied = models.PositiveIntegerField(default=0, help_text="Items copied so far.")
    total = models.PositiveIntegerField(default=0, help_text="Items to copy, as counted when the first sync began.")
    first_synced_at = models.DateTimeField(null=True, blank=True, help_text="When the first sync finished.")
    synced_at = models.DateTimeField(null=True, blank=True)
    claim = models.CharField(max_length=32, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "search copies"

    def __str__(self):
        return f"search copy of {self.connection_id}: {self.state}"

    @property
    def percent(self) -> int:
        if self.state == self.State.CURRENT:
            return 100
        return min(99, int(self.copied * 100 / self.total)) if self.total else 0


from integrations.local.models_books import *  # noqa: E402, F403  (books: local invoices, the overdue watch)
from integrations.local.models_calendar import *  # noqa: E402, F403  (calendar: local events, the meetings watch)
from integrations.local.models_files import *  # noqa: E402, F403  (files: local files, the doc-change watch)
from integrations.local.models_mail import *  # noqa: E402, F403  (mail: the local mailbox, held emails, the new-mail watch)
from integrations.models_mcp_apps import *  # noqa: E402, F403  (the owner's other apps, by their MCP address)
