"""Staff admin for REST API tokens: whose, when made and last used; deleting one signs its app out. The token is
never shown (only its hash is kept), and tokens are made with `manage.py api_token`, not by hand. DRF's own token
admin is taken away: its tokens are kept as given, and none of them signs anyone in here."""

from __future__ import annotations

from django.contrib import admin
from rest_framework.authtoken.models import TokenProxy

from api.models import ApiToken

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "hint", "created_at", "last_used_at")
    search_fields = ("user__username", "hint")
    fields = ("user", "hint", "created_at", "last_used_at")
    readonly_fields = ("user", "hint", "created_at", "last_used_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
