"""The staff admin for contacts, their addresses, open items and the log shared with companies."""

from django import forms
from django.contrib import admin

from core.admin import WorkspaceInline, short
from records.models import CompanyPerson, Contact, ContactEmail, LogEntry, OpenItem


class ContactEmailInlineForm(forms.ModelForm):
    """An address belongs to one contact per workspace: say so on the form instead of failing on save."""

    class Meta:
        model = ContactEmail
        fields = ("email", "position")

    def clean_email(self):
        email = self.cleaned_data["email"].strip()
        taken = ContactEmail.objects.filter(
            organization_id=self.instance.organization_id, email__iexact=email
        ).exclude(pk=self.instance.pk)
        if self.instance.organization_id and taken.exists():
            raise forms.ValidationError("This address is already on a contact in this workspace.")
        return email


class ContactEmailInline(WorkspaceInline, admin.TabularInline):
    model = ContactEmail
    form = ContactEmailInlineForm


class ContactCompanyInline(WorkspaceInline, admin.TabularInline):
    model = CompanyPerson
    fk_name = "contact"
    fields = ("company", "role", "since", "ended")
    autocomplete_fields = ("company",)
    verbose_name = "company"
    verbose_name_plural = "companies"


@admin.register(Contact)
class ContactAdmin(admin.ModelAdmin):
    list_display = ("name", "organization", "job_title", "phone", "status", "updated_at")
    list_filter = ("organization", "status", "created_at", "updated_at")
    search_fields = ("name", "job_title", "phone", "emails__email", "organization__name")
    list_select_related = ("organization",)
    autocomplete_fields = ("organization",)
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = (ContactEmailInline, ContactCompanyInline)
    fieldsets = (
        (None, {"fields": ("id", "organization", "name", "job_title", "phone", "status", "labels")}),
        ("What to know", {"fields": ("context", "fields", "last")}),
        ("Dates", {"fields": ("created_at", "updated_at")}),
    )


@admin.register(ContactEmail)
class ContactEmailAdmin(admin.ModelAdmin):
    list_display = ("email", "contact", "position", "organization")
    list_filter = ("organization",)
    search_fields = ("email", "contact__name")
    list_select_related = ("contact", "organization")
    autocomplete_fields = ("organization", "contact")


@admin.register(OpenItem)
class OpenItemAdmin(admin.ModelAdmin):
    list_display = ("text_short", "kind", "contact", "company", "at", "closed_at", "organization")
    list_filter = ("kind", "organization", "at", ("closed_at", admin.EmptyFieldListFilter))
    search_fields = ("text", "contact__name", "company__name")
    list_select_related = ("contact", "company", "organization")
    autocomplete_fields = ("organization", "contact", "company")
    readonly_fields = ("id", "created_at")

    @admin.display(description="text", ordering="text")
    def text_short(self, item: OpenItem) -> str:
        return short(item.text)


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "kind", "contact", "company", "text_short", "by_kind", "organization")
    list_filter = ("kind", "by_kind", "organization", "at")
    search_fields = ("text", "why", "contact__name", "company__name")
    list_select_related = ("contact", "company", "organization")
    autocomplete_fields = ("organization", "contact", "company")
    raw_id_fields = ("change",)
    readonly_fields = ("id", "at")
    show_full_result_count = False

    @admin.display(description="text", ordering="text")
    def text_short(self, entry: LogEntry) -> str:
        return short(entry.text or entry.why)
