"""Staff admin for the search copy: what is in it, read only (the copy is written by the search app alone)."""

from django.contrib import admin

from search.models import SearchItem


@admin.register(SearchItem)
class SearchItemAdmin(admin.ModelAdmin):
    list_display = ("title", "type", "source", "date", "organization")
    list_filter = ("type", "dir", "bulk")
    list_select_related = ("organization",)
    search_fields = ("key",)  # an exact id; the words go through search itself, not a LIKE over bodies
    raw_id_fields = ("organization", "connection")
    exclude = ("vector",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
