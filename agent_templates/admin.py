"""Staff admin for the templates a workspace shared (Roadstar's own are files: agent_templates/catalogue/)."""

from __future__ import annotations

from django.contrib import admin

from agent_templates.models import SharedTemplate


@admin.register(SharedTemplate)
class SharedTemplateAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "version", "shared_by", "organization", "created_at")
    list_filter = ("kind",)
    list_select_related = ("organization",)
    search_fields = ("name", "slug", "organization__name")
    raw_id_fields = ("organization",)
    # What was shared is kept as it was at the owner's press: Undo compares it, so staff don't edit it.
    readonly_fields = ("slug", "kind", "body", "version", "shared_by", "created_at")
