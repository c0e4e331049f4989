"""Staff admin for connection tokens: whose, for which agent, when last used; revoke. The token is never shown
(only its hash is kept), and tokens are made by the owner, not by hand."""

from __future__ import annotations

from django.contrib import admin

from mcp_server import services
from mcp_server.models import McpToken


@admin.register(McpToken)
class McpTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "hint", "agent", "organization", "created_at", "last_used_at", "revoked_at")
    list_filter = ("created_at", "revoked_at")
    list_select_related = ("agent", "organization")
    search_fields = ("name", "hint", "agent__name", "organization__name")
    fields = ("id", "organization", "agent", "conversation", "name", "hint", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("id", "organization", "agent", "conversation", "name", "hint", "created_at", "last_used_at",
                       "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        active = list(queryset.filter(revoked_at__isnull=True).select_related("organization"))
        for token in active:
            services.mcp_token_revoke(org=token.organization, token_id=token.id)
        count = len(active)
        self.message_user(request, f"Revoked {count} token{'s' if count != 1 else ''}.")
