"""The owner's forms about agents, shared by every page that shows them (Home's budget card, the Agents page)."""

from __future__ import annotations

import decimal

from django import forms
from django.contrib import messages
from django.http import HttpRequest

from agents import selectors as agent_selectors
from agents import services as agent_services
from agents.models import Agent
from core.errors import ToolError

MAX_BUDGET = decimal.Decimal("99999999.99")  # the most Agent.monthly_budget holds


def dollars_typed(value: str) -> decimal.Decimal | None:
    """A positive amount of dollars to the cent, as typed ("60", "$75.50", "1,200"); None when it isn't one."""
    try:
        amount = decimal.Decimal(value.strip().lstrip("$").replace(",", ""))
    except decimal.InvalidOperation:
        return None
    if not amount.is_finite() or amount <= 0 or amount > MAX_BUDGET:
        return None
    return amount.quantize(decimal.Decimal("0.01"))


class BudgetForm(forms.Form):
    """An agent's monthly budget, as the owner types it. Each page says in its own words what it wants instead."""

    monthly_budget = forms.CharField(required=False)

    def clean_monthly_budget(self) -> decimal.Decimal:
        amount = dollars_typed(self.cleaned_data["monthly_budget"])
        if amount is None:
            raise forms.ValidationError("not dollars to the cent")
        return amount


def budget_set_from_form(request: HttpRequest, *, org, agent: Agent, done: str) -> None:
    """Set the agent's monthly budget as the owner typed it, and tell them how it went (Django's messages): `done`
    is the words when it is set and the agent may work, with `{name}` and `{amount}` in them."""
    form = BudgetForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Give {agent.name}'s monthly budget in dollars, such as 60 or 75.50.")
        return
    amount = form.cleaned_data["monthly_budget"]
    try:
        agent = agent_services.agent_raise_budget(org=org, agent=agent, monthly_budget=amount)
    except ToolError as error:
        messages.error(request, f"Couldn't set the budget. {error.message}")
        return
    if agent.paused:
        spent = agent_selectors.agent_spend_this_month(agent=agent)
        messages.error(
            request,
            f"{agent.name} is still paused: it has spent ${spent:,.2f} this month, more than ${amount:,.2f}. "
            "Raise it above that to let it work again.",
        )
    else:
        messages.success(request, done.format(name=agent.name, amount=f"${amount:,.2f}"))
