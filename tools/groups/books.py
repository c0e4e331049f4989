"""The books group: invoices and what customers owe, read live. Thin declarations over integrations.invoices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import StringConstraints

from core.inputs import Chars, Whole
from integrations import invoices
from integrations.services import Asker
from tools.registry import Group, Tool, ToolInput, describe_inputs, register, register_group

if TYPE_CHECKING:
    from core.context import ToolContext

register_group(
    Group(
        name="books",
        summary="invoices and what customers owe, from the owner's accounting app",
        how_to=(
            "The owner's own QuickBooks: invoices, what each customer owes and what was paid, read live as them. "
            "Amounts are in the invoice's currency."
        ),
    )
)


# --- invoices -------------------------------------------------------------------------------------------------


class InvoicesInput(ToolInput):
    status: Literal["open", "overdue", "paid"] | None = None
    customer: Annotated[str, Chars(1, 200)] | None = None
    limit: Annotated[int, Whole(1, 50)] = 20


def invoices_(ctx: ToolContext, inp: InvoicesInput) -> dict[str, Any]:
    return invoices.invoice_list(org=ctx.org, status=inp.status, customer=inp.customer, limit=inp.limit,
                                 asked_by=Asker.of(ctx))


register(
    Tool(
        name="books.invoices",
        description=(
            "Invoices, newest first, with customer, email, total, balance and due date. status is \"open\" (money "
            "owed), \"overdue\" (owed past its due date) or \"paid\"; customer matches part of a name"
        ),
        input=InvoicesInput,
        run=invoices_,
        kind="reads",
    )
)


# --- invoice --------------------------------------------------------------------------------------------------


class InvoiceInput(ToolInput):
    id: Annotated[str, StringConstraints(max_length=30, pattern=r"^\d+$")]


def invoice(ctx: ToolContext, inp: InvoiceInput) -> dict[str, Any]:
    return invoices.invoice_get(org=ctx.org, invoice_id=inp.id, asked_by=Asker.of(ctx))


register(
    Tool(
        name="books.invoice",
        description=(
            "One invoice's lines, amounts, tax, due date, customer email, whether it was emailed, and its link"
        ),
        input=InvoiceInput,
        run=invoice,
        kind="reads",
    )
)


# What each input is, as a model reads it in the tool's schema: the spec's words where it has them.
describe_inputs({
    "books.invoices": {
        "status": "open (money owed), overdue (owed past its due date) or paid",
        "customer": "Part of the customer's name",
        "limit": "How many invoices at most",
    },
    "books.invoice": {
        "id": "The invoice's id, from books.invoices",
    },
})
