"""Staff admin for the research groups: which workspaces have them, the feeds and their states, and what EDGAR
gave. Filings' texts and stories are read-only: they are what EDGAR and the feeds said."""

from __future__ import annotations

from django.contrib import admin

from research.models import CompanyListing, EdgarCompany, Feed, Filing, ResearchSettings, Story


@admin.register(ResearchSettings)
class ResearchSettingsAdmin(admin.ModelAdmin):
    list_display = ("organization", "filings_on", "newsfeed_on", "updated_at")
    list_select_related = ("organization",)
    raw_id_fields = ("organization",)


@admin.register(Feed)
class FeedAdmin(admin.ModelAdmin):
    list_display = ("url", "title", "state", "organization", "project", "fetched_at", "next_fetch_at")
    list_filter = ("state",)
    list_select_related = ("organization", "project")
    search_fields = ("url", "title", "organization__name")
    raw_id_fields = ("organization", "project")
    readonly_fields = ("etag", "modified", "fetches", "fetched_at", "claimed_until", "created_at")


@admin.register(Story)
class StoryAdmin(admin.ModelAdmin):
    list_display = ("headline", "feed", "published_at", "seen_at")
    list_select_related = ("feed",)
    search_fields = ("headline", "link")
    raw_id_fields = ("organization", "feed")
    readonly_fields = ("key", "seen_at")


@admin.register(EdgarCompany)
class EdgarCompanyAdmin(admin.ModelAdmin):
    list_display = ("name", "ticker", "cik", "submissions_fetched_at")
    search_fields = ("name", "ticker")


@admin.register(CompanyListing)
class CompanyListingAdmin(admin.ModelAdmin):
    list_display = ("company", "edgar", "organization", "created_at")
    list_select_related = ("company", "edgar", "organization")
    raw_id_fields = ("organization", "company", "edgar")


@admin.register(Filing)
class FilingAdmin(admin.ModelAdmin):
    list_display = ("accession", "form", "edgar", "filed_at", "state", "attempts")
    list_filter = ("state", "form")
    list_select_related = ("edgar",)
    search_fields = ("accession", "edgar__name", "edgar__ticker")
    raw_id_fields = ("edgar",)
    readonly_fields = ("text", "fetched_at", "requested_at", "claimed_until")
