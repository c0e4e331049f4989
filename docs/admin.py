"""The staff admin for projects, docs, their versions and the owner's notes on them."""

from django.contrib import admin

from core.admin import WorkspaceInline, short
from records.models import Doc, DocNote, DocVersion, Project, ProjectLink


class ProjectLinkInline(WorkspaceInline, admin.TabularInline):
    model = ProjectLink
    fields = ("contact", "created_at")
    readonly_fields = ("created_at",)
    autocomplete_fields = ("contact",)
    verbose_name = "linked contact"
    verbose_name_plural = "linked contacts"


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "organization", "updated_at", "created_at")
    list_filter = ("organization", "created_at", "updated_at")
    search_fields = ("name", "description", "organization__name")
    list_select_related = ("organization",)
    autocomplete_fields = ("organization", "created_by_user", "updated_by_user")
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = (ProjectLinkInline,)


@admin.register(ProjectLink)
class ProjectLinkAdmin(admin.ModelAdmin):
    list_display = ("project", "contact", "organization", "created_at")
    list_filter = ("organization", "created_at")
    search_fields = ("project__name", "contact__name")
    list_select_related = ("project", "contact", "organization")
    autocomplete_fields = ("organization", "project", "contact")


class DocVersionInline(admin.TabularInline):
    """Versions are the doc's history: shown here, opened on their own page, never edited in place."""

    model = DocVersion
    fields = ("number", "title", "lines", "by", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class DocNoteInline(WorkspaceInline, admin.StackedInline):
    model = DocNote
    fk_name = "doc"
    fields = ("on", "note", "state", "by", "parent")
    raw_id_fields = ("parent",)


@admin.register(Doc)
class DocAdmin(admin.ModelAdmin):
    list_display = ("title", "project", "status", "type", "version", "updates", "organization", "updated_at")
    list_filter = ("status", "type", "updates", "organization", "created_at", "updated_at")
    search_fields = ("title", "project__name", "brief")
    list_select_related = ("project", "organization")
    autocomplete_fields = ("organization", "project")
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = (DocVersionInline, DocNoteInline)
    fieldsets = (
        (None, {"fields": ("id", "organization", "project", "title", "type", "status", "updates")}),
        ("Text", {"fields": ("version", "text", "brief", "read_first", "created_by")}),
        ("Dates", {"fields": ("created_at", "updated_at")}),
    )


@admin.register(DocVersion)
class DocVersionAdmin(admin.ModelAdmin):
    list_display = ("doc", "number", "title", "created_at")
    list_filter = ("doc__organization", "created_at")
    search_fields = ("title", "doc__title")
    list_select_related = ("doc",)
    autocomplete_fields = ("doc",)
    readonly_fields = ("id", "created_at")


@admin.register(DocNote)
class DocNoteAdmin(admin.ModelAdmin):
    list_display = ("note_short", "doc", "state", "organization", "created_at")
    list_filter = ("state", "organization", "created_at")
    search_fields = ("note", "on", "doc__title")
    list_select_related = ("doc", "organization")
    autocomplete_fields = ("organization", "doc")
    raw_id_fields = ("parent",)
    readonly_fields = ("id", "created_at")

    @admin.display(description="note", ordering="note")
    def note_short(self, note: DocNote) -> str:
        return short(note.note or note.on)
