"""The staff admin for the workspace and Home (Organization, Change, Card), and what every app's admin shares.

Admin pages must stay fast on big workspaces: foreign keys are autocomplete or raw-id fields (never a select of
every row), list columns that follow a foreign key are in list_select_related, and the biggest lists skip the
full count.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet

from core.models import Card, Change, ModelEndpoint, Organization


class SameWorkspaceFormSet(BaseInlineFormSet):
    """Rows added inline belong to the parent's workspace; staff never pick it by hand (and can't get it wrong)."""

    def _construct_form(self, i: int, **kwargs: Any) -> forms.ModelForm[Any]:
        # Django's hook for each form of the set (not in django-stubs, being underscored).
        form: forms.ModelForm[Any] = super()._construct_form(i, **kwargs)  # type: ignore[misc]
        if self.instance is not None and getattr(self.instance, "organization_id", None):
            form.instance.organization_id = self.instance.organization_id
        return form


class WorkspaceInline:
    """Mixin for inlines of rows that carry their own `organization`: it is set from the parent record."""

    # Typed as InlineModelAdmin declares them, which the inlines mixing this in also inherit.
    formset: type[BaseInlineFormSet] = SameWorkspaceFormSet
    exclude: ClassVar[list[str] | tuple[str, ...] | None] = ("organization",)
    extra = 0


def short(text: str | None, length: int = 80) -> str:
    text = (text or "").strip().replace("\n", " ")
    return text if len(text) <= length else text[: length - 1] + "…"


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "owner_name", "owner", "owner_email", "time_zone", "check_enabled", "created_at")
    list_filter = ("check_enabled", "time_zone", "created_at")
    search_fields = ("name", "owner_name", "owner_email", "owner__username")
    list_select_related = ("owner",)
    autocomplete_fields = ("owner",)
    readonly_fields = ("id", "created_at")
    fieldsets = (
        (None, {"fields": ("id", "name", "owner", "owner_name", "owner_email", "time_zone", "created_at")}),
        ("What agents know", {"fields": ("about", "domains", "payment_details")}),
        ("The owner's yes", {"fields": ("check_enabled", "without_judge")}),
    )


@admin.register(Change)
class ChangeAdmin(admin.ModelAdmin):
    list_display = ("at", "actor_name", "sentence_short", "tool", "kind", "listing", "undone_at", "organization")
    list_filter = (
        "listing", "kind", "actor_kind", "organization", "at", ("undone_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("sentence", "tool", "actor_name", "target_id", "conversation_id")
    list_select_related = ("organization",)
    autocomplete_fields = ("organization",)
    raw_id_fields = ("undone_by", "undoes")
    readonly_fields = ("id", "at")
    ordering = ("-at",)
    show_full_result_count = False

    @admin.display(description="sentence", ordering="sentence")
    def sentence_short(self, change: Change) -> str:
        return short(change.sentence, 100)


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = ("title", "kind", "subject", "organization", "created_at", "resolved_at")
    list_filter = ("kind", "organization", "created_at", ("resolved_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "body", "subject")
    list_select_related = ("organization",)
    autocomplete_fields = ("organization",)
    readonly_fields = ("id", "created_at")


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(admin.ModelAdmin):
    """The workspace's AI model as the owner set it on Settings. The key is never shown: not its ciphertext either."""

    list_display = ("organization", "base_url", "updated_at")
    list_select_related = ("organization",)
    fields = ("organization", "base_url", "names", "updated_at")
    readonly_fields = ("organization", "updated_at")
    search_fields = ("organization__name", "base_url")
