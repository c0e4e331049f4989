"""Staff admin for the local calendar: each meeting's page is the link local meetings give (`url`)."""

from __future__ import annotations

from django.contrib import admin

from integrations.local.models_calendar import LocalEvent


@admin.register(LocalEvent)
class LocalEventAdmin(admin.ModelAdmin):
    list_display = ("title", "start", "end", "held", "cancelled", "connection")
    list_filter = ("held", "cancelled")
    list_select_related = ("connection",)
    search_fields = ("title", "uid", "search")
    raw_id_fields = ("connection",)
    readonly_fields = ("uid", "created_at", "updated_at")
    date_hierarchy = "start"
