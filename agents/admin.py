"""The staff admin for the owner's agents, their conversations, work, runs and spend.

Conversations can hold thousands of messages, so messages, memory lines and tool calls have their own lists
(filtered by conversation) instead of inlines on the conversation's page.
"""

from django.contrib import admin

from agents.models import Agent, Conversation, MemoryLine, Message, Run, ToolCall, Usage, Work
from core.admin import short


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = (
        "name", "organization", "job", "is_roadstar", "reports_to", "department", "model", "paused", "runs_on",
        "monthly_budget",
    )
    list_filter = ("organization", "is_roadstar", "paused", "model", "runs_on", "created_at")
    search_fields = ("name", "job", "department", "organization__name")
    list_select_related = ("organization", "reports_to")
    autocomplete_fields = ("organization", "reports_to")
    readonly_fields = ("id", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("id", "organization", "name", "is_roadstar", "job", "paused")}),
        ("Job description", {"fields": ("owns", "good", "works", "asks_first")}),
        ("The chart", {"fields": ("reports_to", "department")}),
        ("Running", {"fields": ("model", "thinking", "runs_on", "monthly_budget", "notes")}),
        ("Dates", {"fields": ("created_at", "updated_at")}),
    )


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "state", "organization", "updated_at", "closed_at")
    list_filter = ("kind", "state", "organization", "updated_at", ("closed_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "agent__name", "routine_id")
    # A conversation's name reads its agent's.
    list_select_related = ("agent", "organization")
    autocomplete_fields = ("organization", "agent")
    readonly_fields = ("id", "created_at", "updated_at")


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("conversation", "seq", "role", "text_short", "created_at")
    list_filter = ("role", "created_at")
    search_fields = ("text", "conversation__title", "conversation__agent__name")
    list_select_related = ("conversation__agent",)
    raw_id_fields = ("conversation",)
    readonly_fields = ("created_at",)
    show_full_result_count = False

    @admin.display(description="text", ordering="text")
    def text_short(self, message: Message) -> str:
        return short(message.text)


@admin.register(MemoryLine)
class MemoryLineAdmin(admin.ModelAdmin):
    list_display = ("conversation", "start", "n", "summary_short", "created_at")
    list_filter = ("created_at",)
    search_fields = ("summary", "conversation__title")
    list_select_related = ("conversation__agent",)
    raw_id_fields = ("conversation",)
    readonly_fields = ("created_at",)

    @admin.display(description="summary", ordering="summary")
    def summary_short(self, line: MemoryLine) -> str:
        return short(line.summary)


@admin.register(Work)
class WorkAdmin(admin.ModelAdmin):
    list_display = ("task_short", "agent", "conversation", "state", "organization", "created_at", "answered_at")
    list_filter = ("state", "organization", "created_at")
    search_fields = ("task", "answer", "latest_reply", "agent__name")
    list_select_related = ("agent", "conversation__agent", "organization")
    autocomplete_fields = ("organization", "agent", "requested_by")
    raw_id_fields = ("conversation", "requester")
    readonly_fields = ("id", "created_at")
    show_full_result_count = False

    @admin.display(description="task", ordering="task")
    def task_short(self, work: Work) -> str:
        return short(work.task)


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    list_display = ("name", "conversation", "call_id", "done_at")
    list_filter = (("done_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "call_id")
    list_select_related = ("conversation__agent",)
    raw_id_fields = ("conversation", "message")
    show_full_result_count = False


@admin.register(Usage)
class UsageAdmin(admin.ModelAdmin):
    list_display = ("at", "agent", "purpose", "model", "input_tokens", "output_tokens", "cost", "organization")
    list_filter = ("purpose", "model", "organization", "at")
    search_fields = ("agent__name", "model", "purpose")
    list_select_related = ("agent", "organization")
    autocomplete_fields = ("organization", "agent")
    raw_id_fields = ("conversation",)
    readonly_fields = ("at",)
    show_full_result_count = False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("conversation", "agent", "outcome", "steps", "started_at", "finished_at", "organization")
    list_filter = ("outcome", "organization", "started_at")
    search_fields = ("conversation__title", "agent__name", "error")
    list_select_related = ("conversation__agent", "agent", "organization")
    autocomplete_fields = ("organization", "agent")
    raw_id_fields = ("conversation",)
    show_full_result_count = False
