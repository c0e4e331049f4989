"""Staff admin for the local files: each file's facts (its bytes stay on disk), and where the doc watch got to."""

from __future__ import annotations

from django.contrib import admin

from integrations.local.models_files import FilesWatch, LocalFile


@admin.register(LocalFile)
class LocalFileAdmin(admin.ModelAdmin):
    list_display = ("name", "mime_type", "parent", "trashed", "modified_at", "connection")
    list_filter = ("trashed", "mime_type")
    list_select_related = ("connection", "parent")
    search_fields = ("name", "file_id")
    raw_id_fields = ("connection", "parent")
    readonly_fields = ("file_id", "blob", "size", "created_at")
    exclude = ("text",)  # the words search finds it by: long, and the file itself is the place to read them


@admin.register(FilesWatch)
class FilesWatchAdmin(admin.ModelAdmin):
    list_display = ("connection", "cursor", "polled_at")
    list_select_related = ("connection",)
    raw_id_fields = ("connection",)
