from django.contrib import admin
from django.http import HttpRequest

from checks.models import Ask, CheckDecision, SpentYes


class AskInline(admin.TabularInline):
    model = Ask
    fk_name = "decision"
    extra = 0
    fields = ("state", "answer", "answered_at", "answered_in", "answer_ref", "used_by")
    readonly_fields = ("used_by", "answered_in", "answer_ref")


@admin.register(CheckDecision)
class CheckDecisionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "organization", "tool", "outcome", "reason", "decided_by", "judge_used", "actor_kind")
    list_filter = ("outcome", "decided_by", "judge_used", "reason", "tool")
    search_fields = ("tool", "reason", "fingerprint", "conversation_id", "actor_id", "organization__name")
    date_hierarchy = "created_at"
    list_select_related = ("organization",)
    # The record of why something ran or was held back is evidence: staff read it, nobody edits it.
    readonly_fields = [f.name for f in CheckDecision._meta.fields]
    inlines = [AskInline]


@admin.register(Ask)
class AskAdmin(admin.ModelAdmin):
    list_display = ("created_at", "organization", "tool", "state", "answered_at", "used")
    list_filter = ("state",)
    search_fields = ("fingerprint", "answer", "decision__tool", "organization__name")
    list_select_related = ("organization", "decision")
    raw_id_fields = ("decision", "used_by")

    @admin.display(description="tool")
    def tool(self, obj: Ask) -> str:
        return obj.decision.tool

    @admin.display(boolean=True, description="used")
    def used(self, obj: Ask) -> bool:
        return obj.used_by_id is not None


@admin.register(SpentYes)
class SpentYesAdmin(admin.ModelAdmin):
    """Which of the owner's yeses let a run go: evidence, read only (a row removed would let a yes go again)."""

    list_display = ("at", "organization", "ref", "decision")
    search_fields = ("ref", "organization__name")
    list_select_related = ("organization", "decision")
    readonly_fields = ("organization", "ref", "decision", "at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: SpentYes | None = None) -> bool:
        return False
