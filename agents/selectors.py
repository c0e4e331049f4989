"""Reads about agents that the pages, the REST API and the services share: what each spent this month."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from agents.models import Agent, Usage
from core.owner_zone import owner_zone


def month_start(org) -> datetime.datetime:
    """The first of this month in the owner's time zone: an agent's budget is for the owner's month."""
    local = timezone.localtime(timezone.now(), owner_zone(org))
    return local.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def agent_spend_this_month(*, agent: Agent) -> Decimal:
    """Dollars spent since the first of this month, the owner's month (in the workspace's time zone)."""
    total = Usage.objects.filter(agent=agent, at__gte=month_start(agent.organization)).aggregate(total=Sum("cost"))
    return total["total"] or Decimal(0)


def spend_this_month(*, org) -> dict:
    """Dollars each agent spent this month, by agent id, in one query (agent_spend_this_month, for all)."""
    rows = (
        Usage.objects.filter(organization=org, agent__isnull=False, at__gte=month_start(org))
        .values("agent_id")
        .annotate(total=Sum("cost"))
        .order_by()
    )
    return {row["agent_id"]: row["total"] or Decimal(0) for row in rows}
