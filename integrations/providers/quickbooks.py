"""QuickBooks Online books: invoices and what customers owe, read live through the REST API (v3, minorversion
75) with integrations.clients.quickbooks_request. Nothing here writes to QuickBooks.

- invoices: one query on Invoice, filtered in QuickBooks (open: Balance > 0; overdue: also DueDate before the
  owner's today; paid: Balance = 0), newest first (TxnDate), one more than asked to know whether there are more.
  A customer's name is matched in a Customer query first (LIKE '%part%'), then the invoices by CustomerRef.
  Invoices without a billing email get their customer's, read in one more query for all of them.
- invoice: invoice/<id>, with its lines, tax, memo and EmailStatus; the customer's email when the invoice has none.
- url: the invoice's page in QuickBooks (app.qbo.intuit.com, or the sandbox's), as the spec's examples give it.
"""

from __future__ import annotations

import datetime
from decimal import Decimal, InvalidOperation

from core.errors import ToolError
from integrations.clients import quickbooks_request
from integrations.errors import label_for
from integrations.oauth import quickbooks_environment
from integrations.providers.base import BooksProvider, Invoice, InvoiceLine
from integrations.providers.registry import register_provider

APP_URL = {"sandbox": "https://app.sandbox.qbo.intuit.com", "production": "https://app.qbo.intuit.com"}
STATUS_WHERE = {
    "open": ["Balance > '0'"],
    "overdue": ["Balance > '0'", "DueDate < '{today}'"],
    "paid": ["Balance = '0'"],
}
MAX_RESULTS = 1000  # QuickBooks' own cap on one query's page
CUSTOMERS_MATCHED = 200  # a part of a name matching more customers than this is too vague to list by


def quote(text: str) -> str:
    """A value inside a QuickBooks query's single quotes."""
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _decimal(value) -> Decimal:
    try:
        return Decimal(str(value)) if value is not None else Decimal("0")
    except InvalidOperation:
        return Decimal("0")


def _date(value) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _ref_name(ref) -> str | None:
    return (ref or {}).get("name") or None


class QuickBooksProvider(BooksProvider):
    def _get(self, path: str, params: dict | None = None) -> dict:
        return quickbooks_request(self.connection, "GET", path, params=params, session=self.options.get("session"),
                                  asked_by=self.options.get("asked_by"))

    def _query(self, sql: str) -> dict:
        return self._get("query", {"query": sql}).get("QueryResponse") or {}

    def url(self, invoice_id: str) -> str:
        return f"{APP_URL[quickbooks_environment()]}/app/invoice?txnId={invoice_id}"

    # --- customers --------------------------------------------------------------------------------------

    def _customers_named(self, part: str) -> list[str]:
        sql = (f"SELECT Id FROM Customer WHERE DisplayName LIKE '%{quote(part.strip())}%' "
               f"MAXRESULTS {CUSTOMERS_MATCHED}")
        return [c["Id"] for c in self._query(sql).get("Customer", [])]

    def _customer_emails(self, ids: list[str]) -> dict[str, str]:
        if not ids:
            return {}
        wanted = ", ".join(f"'{quote(i)}'" for i in dict.fromkeys(ids))
        sql = f"SELECT * FROM Customer WHERE Id IN ({wanted}) MAXRESULTS {MAX_RESULTS}"
        rows = self._query(sql).get("Customer", [])
        return {c["Id"]: address for c in rows if (address := (c.get("PrimaryEmailAddr") or {}).get("Address"))}

    # --- invoices ---------------------------------------------------------------------------------------

    def _invoice(self, row: dict, *, lines: bool) -> Invoice:
        customer_ref = row.get("CustomerRef") or {}
        return Invoice(
            id=str(row["Id"]),
            number=row.get("DocNumber") or None,
            customer=_ref_name(customer_ref),
            customer_id=customer_ref.get("value") or None,
            email=(row.get("BillEmail") or {}).get("Address") or None,
            date=_date(row.get("TxnDate")),
            due=_date(row.get("DueDate")),
            total=_decimal(row.get("TotalAmt")),
            balance=_decimal(row.get("Balance")),
            currency=(row.get("CurrencyRef") or {}).get("value") or None,
            url=self.url(str(row["Id"])),
            tax=_decimal((row.get("TxnTaxDetail") or {}).get("TotalTax")),
            memo=(row.get("CustomerMemo") or {}).get("value") or row.get("PrivateNote") or None,
            emailed=row.get("EmailStatus") == "EmailSent",
            lines=[line for item in row.get("Line", []) for line in self._lines(item)] if lines else [],
        )

    def _lines(self, item: dict) -> list[InvoiceLine]:
        """An invoice line as the spec's `lines` give it; subtotals are left out, a bundle is one line."""
        kind = item.get("DetailType")
        if kind == "SubTotalLineDetail":
            return []
        detail = item.get(kind) or {}
        quantity = detail.get("Qty")
        unit_price = detail.get("UnitPrice")
        amount = _decimal(item.get("Amount"))
        description = item.get("Description") or ""
        if kind == "DiscountLineDetail":
            amount, description = -amount, description or "Discount"
        elif kind == "DescriptionOnly" and not amount and not description:
            return []
        item_ref = detail.get("ItemRef") or detail.get("GroupItemRef")
        return [InvoiceLine(
            description=description or (_ref_name(item_ref) or ""),
            amount=amount,
            item=_ref_name(item_ref),
            quantity=_decimal(quantity) if quantity is not None else None,
            unit_price=_decimal(unit_price) if unit_price is not None else None,
        )]

    def _with_emails(self, invoices: list[Invoice]) -> list[Invoice]:
        missing = [i.customer_id for i in invoices if not i.email and i.customer_id]
        emails = self._customer_emails(missing)
        for invoice in invoices:
            if not invoice.email and invoice.customer_id:
                invoice.email = emails.get(invoice.customer_id)
        return invoices

    def invoices(self, *, status, customer, today, limit):
        where = [w.format(today=today.isoformat()) for w in STATUS_WHERE.get(status, [])]
        if customer and customer.strip():
            ids = self._customers_named(customer)
            if not ids:
                return [], False
            where.append("CustomerRef IN (" + ", ".join(f"'{quote(i)}'" for i in ids) + ")")
        sql = "SELECT * FROM Invoice"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDERBY TxnDate DESC STARTPOSITION 1 MAXRESULTS {min(limit + 1, MAX_RESULTS)}"
        rows = self._query(sql).get("Invoice", [])
        more = len(rows) > limit
        return self._with_emails([self._invoice(r, lines=False) for r in rows[:limit]]), more

    def invoice(self, invoice_id):
        row = self._get(f"invoice/{invoice_id}").get("Invoice")
        if not row or not row.get("Id"):
            raise ToolError("not_found", f"No invoice {invoice_id} in {label_for(self.connection, 'books')}.")
        return self._with_emails([self._invoice(row, lines=True)])[0]


register_provider("quickbooks", "books", QuickBooksProvider)
