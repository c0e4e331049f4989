"""The staff admin for companies, their people and their timelines."""

from django.contrib import admin

from core.admin import WorkspaceInline
from records.models import Company, CompanyPerson, TimelineEntry


class CompanyPersonInline(WorkspaceInline, admin.TabularInline):
    model = CompanyPerson
    fk_name = "company"
    fields = ("contact", "role", "since", "ended")
    autocomplete_fields = ("contact",)
    verbose_name = "person"
    verbose_name_plural = "people"


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    list_display = ("name", "organization", "website", "handler", "always_ask", "updated_at")
    list_filter = ("organization", "always_ask", "first_on_mail", "created_at", "updated_at")
    search_fields = ("name", "website", "organization__name")
    list_select_related = ("organization", "handler")
    autocomplete_fields = ("organization", "handler")
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = (CompanyPersonInline,)
    fieldsets = (
        (None, {"fields": ("id", "organization", "name", "website", "domains", "labels", "handler")}),
        ("What to know", {"fields": ("details", "context", "context_by", "context_at", "about")}),
        ("Mail", {"fields": ("first_on_mail", "always_ask")}),
        ("Dates", {"fields": ("created_at", "updated_at")}),
    )


@admin.register(CompanyPerson)
class CompanyPersonAdmin(admin.ModelAdmin):
    list_display = ("contact", "company", "role", "since", "ended", "organization")
    list_filter = ("organization", "since", "ended")
    search_fields = ("contact__name", "company__name", "role")
    list_select_related = ("contact", "company", "organization")
    autocomplete_fields = ("organization", "contact", "company")


@admin.register(TimelineEntry)
class TimelineEntryAdmin(admin.ModelAdmin):
    list_display = ("title", "company", "kind", "at", "state", "removed_at", "organization")
    list_filter = ("kind", "state", "organization", "at", ("removed_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "summary", "company__name")
    list_select_related = ("company", "organization")
    autocomplete_fields = ("organization", "company")
    readonly_fields = ("id", "created_at", "updated_at")
    show_full_result_count = False
