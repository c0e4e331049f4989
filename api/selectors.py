"""Reads the API needs that no app's selectors give yet. Every one is scoped by the workspace: another
workspace's agent, conversation or doc is `not_found`, never a leak."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from agents.models import Agent, Conversation, Message, Work
from agents.selectors import spend_this_month
from core.errors import ToolError
from core.models import Card, Change
from docs.selectors import page

MESSAGE_PAGE = 50


# --- agents -----------------------------------------------------------------------------------------------


def agent_get(*, org, agent_id) -> Agent:
    agent = Agent.objects.filter(organization=org, id=agent_id).select_related("reports_to").first()
    if agent is None:
        raise ToolError("not_found", f"No agent with id {agent_id} in this workspace.")
    return agent


def agents_with_spend(*, org) -> list[tuple[Agent, Decimal]]:
    """Every agent, Roadstar first, with its spend this month: two queries, whatever the number of agents."""
    agents = list(Agent.objects.filter(organization=org).select_related("reports_to"))
    spent = spend_this_month(org=org)
    return [(agent, spent.get(agent.id) or Decimal(0)) for agent in agents]


# --- conversations and messages ---------------------------------------------------------------------------


def conversation_get(*, org, conversation_id) -> Conversation:
    conversation = (
        Conversation.objects.filter(organization=org, id=conversation_id).select_related("agent").first()
    )
    if conversation is None:
        raise ToolError("not_found", f"No conversation with id {conversation_id} in this workspace.")
    return conversation


def conversation_page(*, org, agent: Agent | None = None, kind: str | None = None, offset: int = 0):
    """Conversations, the one active last first; of one agent, of one kind."""
    rows = Conversation.objects.filter(organization=org).select_related("agent")
    if agent is not None:
        rows = rows.filter(agent=agent)
    if kind:
        rows = rows.filter(kind=kind)
    return page(rows.order_by("-updated_at", "-id"), offset=offset)


@dataclass(frozen=True)
class MessagePage:
    items: list[Message]  # in order, oldest first
    next_before: int | None  # pass as `before` for the older page; None when there is none
    next_after: int | None  # pass as `after` for the newer page; None when this page reaches the newest


def message_page(
    *, conversation: Conversation, after: int | None = None, before: int | None = None, limit: int = MESSAGE_PAGE,
) -> MessagePage:
    """Messages by their seq. With `after`: the first `limit` after it; else the last `limit` before `before`
    (the newest when neither is given). Each page comes in order, oldest first."""
    rows = Message.objects.filter(conversation=conversation)
    if after is not None:
        rows = rows.filter(seq__gt=after)
        if before is not None:
            rows = rows.filter(seq__lt=before)
        fetched = list(rows.order_by("seq")[: limit + 1])
        items = fetched[:limit]
        older = after >= 0 and Message.objects.filter(conversation=conversation, seq__lte=after).exists()
        return MessagePage(
            items=items,
            next_before=(items[0].seq if items else after + 1) if older else None,
            next_after=items[-1].seq if len(fetched) > limit else None,
        )
    if before is not None:
        rows = rows.filter(seq__lt=before)
    fetched = list(rows.order_by("-seq")[: limit + 1])
    items = list(reversed(fetched[:limit]))
    next_after = None
    if before is not None and Message.objects.filter(conversation=conversation, seq__gte=before).exists():
        next_after = items[-1].seq if items else before - 1
    return MessagePage(
        items=items,
        next_before=items[0].seq if len(fetched) > limit else None,
        next_after=next_after,
    )


# --- Home -------------------------------------------------------------------------------------------------


def change_get(*, org, change_id) -> Change:
    change = Change.objects.filter(organization=org, id=change_id).first()
    if change is None:
        raise ToolError("not_found", f"No change with id {change_id} in this workspace.")
    return change


def waits_to_try_again(*, org, conversation: Conversation) -> bool:
    """Whether Home shows Try again for the conversation: its work couldn't finish, and no one tried again yet."""
    return Card.objects.filter(
        organization=org, kind=Card.Kind.TRY_AGAIN, subject=f"try_again:{conversation.id}", resolved_at__isnull=True
    ).exists()


def work_page(*, org, offset: int = 0) -> tuple[list[Work], int | None]:
    """Each piece of work agents are doing or did, newest first, with its agent and conversation loaded."""
    rows = (
        Work.objects.filter(organization=org)
        .select_related("agent", "conversation", "requested_by")
        .defer("conversation__loaded_tools")
        .order_by("-created_at", "-id")
    )
    return page(rows, offset=offset)
