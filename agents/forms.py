"""The owner's forms about agents, shared by every page that shows them (Home's budget card, the Agents page)."""

from __future__ import annotations

import decimal

from django import forms

MAX_BUDGET = decimal.Decimal("99999999.99")  # the most Agent.monthly_budget holds


def dollars(value: str) -> decimal.Decimal | None:
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
        amount = dollars(self.cleaned_data["monthly_budget"])
        if amount is None:
            raise forms.ValidationError("not dollars to the cent")
        return amount
