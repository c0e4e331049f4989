"""The books group's selectors: what is the same on every books app.

The account (books ids are the app's own digits, with no account key, so the books are one account: the oldest
connected), the owner's today (their time zone) that `overdue` and `daysLate` count from, each invoice's status,
and the spec's result shapes with amounts as numbers in the invoice's currency. Nothing here changes the books.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, Final

from core.models import Organization
from core.owner_zone import owner_today
from integrations.providers.base import BooksProvider, Invoice, InvoiceStatus
from integrations.providers.registry import provider_for
from integrations.selectors import require_connection
from integrations.services import Asker

GROUP: Final = "books"


def books_provider(org: Organization, asked_by: Asker | None = None) -> BooksProvider:
    connection = require_connection(org=org, group=GROUP, asked_by=asked_by)
    return provider_for(connection, GROUP, asked_by=asked_by)


def amount(value: Decimal) -> int | float:
    """Money as the results give it: 1250, or 1250.5 (the currency is its own field)."""
    return int(value) if value == value.to_integral_value() else float(value)


def status_of(invoice: Invoice, today: datetime.date) -> tuple[str, int | None]:
    """("paid" | "overdue" | "open", days late when overdue)."""
    if invoice.balance <= 0:
        return "paid", None
    if invoice.due is not None and invoice.due < today:
        return "overdue", (today - invoice.due).days
    return "open", None


def invoice_shape(invoice: Invoice, *, today: datetime.date) -> dict:
    """The spec's invoice in books.invoices: `daysLate` only when it is overdue."""
    status, days_late = status_of(invoice, today)
    shape: dict[str, Any] = {
        "id": invoice.id,
        "number": invoice.number,
        "customer": invoice.customer,
        "email": invoice.email,
        "date": invoice.date.isoformat() if invoice.date else None,
        "due": invoice.due.isoformat() if invoice.due else None,
    }
    if days_late is not None:
        shape["daysLate"] = days_late
    shape.update({
        "total": amount(invoice.total),
        "balance": amount(invoice.balance),
        "currency": invoice.currency,
        "status": status,
        "url": invoice.url,
    })
    return shape


def invoice_detail_shape(invoice: Invoice, *, today: datetime.date) -> dict:
    """books.invoice: the invoice with its lines, tax, memo and whether it was emailed."""
    lines = []
    for line in invoice.lines:
        item = {"description": line.description, "amount": amount(line.amount)}
        if line.item:
            item["item"] = line.item
        if line.quantity is not None:
            item["quantity"] = amount(line.quantity)
        if line.unit_price is not None:
            item["unitPrice"] = amount(line.unit_price)
        lines.append(item)
    return {**invoice_shape(invoice, today=today), "tax": amount(invoice.tax), "memo": invoice.memo,
            "emailed": invoice.emailed, "lines": lines}


def invoice_list(*, org: Organization, status: InvoiceStatus | None, customer: str | None, limit: int,
                 asked_by: Asker | None = None) -> dict:
    """books.invoices: newest first; status open (owed), overdue (owed past its due date) or paid."""
    today = owner_today(org)
    invoices, more = books_provider(org, asked_by).invoices(
        status=status, customer=(customer or "").strip() or None, today=today, limit=limit
    )
    return {"invoices": [invoice_shape(i, today=today) for i in invoices], "more": more}


def invoice_get(*, org: Organization, invoice_id: str, asked_by: Asker | None = None) -> dict:
    """books.invoice: one invoice by the app's own id."""
    invoice = books_provider(org, asked_by).invoice(invoice_id)
    return invoice_detail_shape(invoice, today=owner_today(org))
