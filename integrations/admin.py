"""Staff admin for connections: what is connected, for whom, and its state. Tokens are never shown or editable."""

from __future__ import annotations

from django.contrib import admin

# The local apps' admin pages register themselves when imported.
from integrations.local import admin_books, admin_calendar, admin_files  # noqa: F401
from integrations.models import Connection, SearchCopy


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    list_display = ("account", "app", "account_key", "status", "organization", "updated_at")
    list_filter = ("app", "status")
    list_select_related = ("organization",)
    search_fields = ("account", "account_key", "organization__name")
    raw_id_fields = ("organization",)
    # `tokens` is left out entirely: not a field, not a column, not searchable. A connection is made by the
    # owner's sign-in, not by hand, so staff only read it and may mark it for reconnecting.
    fields = ("organization", "app", "account", "account_key", "status", "groups", "scopes", "realm_id",
              "token_expires_at", "created_at", "updated_at")
    readonly_fields = ("organization", "app", "account", "account_key", "groups", "scopes", "realm_id",
                       "token_expires_at", "created_at", "updated_at")

    def has_add_permission(self, request):
        return False



@admin.register(SearchCopy)
class SearchCopyAdmin(admin.ModelAdmin):
    """Whether search is on for an account and how far its copy got; the owner turns it on and off on Connections."""

    list_display = ("connection", "on", "state", "copied", "total", "synced_at")
    list_filter = ("on", "state")
    list_select_related = ("connection",)
    raw_id_fields = ("connection",)
    readonly_fields = ("connection", "on", "on_since", "state", "position", "copied", "total", "first_synced_at",
                       "synced_at", "claim", "claimed_until", "error")

    def has_add_permission(self, request):
        return False
