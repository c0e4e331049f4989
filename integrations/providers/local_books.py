"""The local books: the owner's invoices kept in Roadstar's database (LocalInvoice), imported from a CSV.

The embedded default, answering exactly as QuickBooks' provider does: invoices newest first, filtered by what
is owed (open: balance > 0; overdue: also due before the owner's today; paid: balance 0) and by part of the
customer's name; one invoice with its lines. Ids are digits, as QuickBooks' are, with no account key.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.db.models import F, Max, Prefetch

from core.errors import ToolError
from integrations.local.models_books import LocalCustomer, LocalInvoice, LocalInvoiceLine
from integrations.providers.base import BooksProvider, Invoice, InvoiceLine, public_link
from integrations.providers.registry import register_provider

# The largest id a PositiveBigIntegerField holds: a longer run of digits is no invoice here.
_MAX_NUMBER = 2**63 - 1


def invoice_url(invoice: LocalInvoice) -> str:
    """The invoice's own web link from its file, else none ("").

    Never a page of Roadstar's: an agent passes an invoice's link on to the customer (the overdue chase puts it in
    the email), and an admin path, the row's id with it, went to a client that way. A local invoice has no page a
    customer can open, so without a link of its own it has none."""
    return public_link(invoice.url)


class LocalBooksProvider(BooksProvider):
    def _rows(self):
        return LocalInvoice.objects.filter(connection=self.connection).select_related("customer")

    def _invoice(self, row: LocalInvoice, *, lines: bool) -> Invoice:
        customer = row.customer
        return Invoice(
            id=str(row.number),
            number=row.doc_number or None,
            customer=customer.name if customer else None,
            customer_id=str(customer.number) if customer else None,
            email=(customer.email or None) if customer else None,
            date=row.date,
            due=row.due,
            total=row.total,
            balance=row.balance,
            currency=row.currency or None,
            url=invoice_url(row),
            tax=row.tax,
            memo=row.memo or None,
            emailed=row.emailed,
            lines=[
                InvoiceLine(description=line.description, amount=line.amount, item=line.item or None,
                            quantity=line.quantity, unit_price=line.unit_price)
                for line in row.lines.all()
            ] if lines else [],
        )

    def invoices(self, *, status, customer, today, limit):
        rows = self._rows()
        if status in ("open", "overdue"):
            rows = rows.filter(balance__gt=0)
        if status == "overdue":
            rows = rows.filter(due__lt=today)
        if status == "paid":
            rows = rows.filter(balance=0)
        if customer and customer.strip():
            rows = rows.filter(customer__name__icontains=customer.strip())
        found = list(rows.order_by(F("date").desc(nulls_last=True), "-number")[: limit + 1])
        return [self._invoice(r, lines=False) for r in found[:limit]], len(found) > limit

    def invoice(self, invoice_id):
        number = int(invoice_id) if invoice_id.isdigit() else None
        row = None
        if number is not None and number <= _MAX_NUMBER:
            lines = Prefetch("lines", queryset=LocalInvoiceLine.objects.order_by("position", "id"))
            row = self._rows().prefetch_related(lines).filter(number=number).first()
        if row is None:
            raise ToolError("not_found", f"No invoice {invoice_id} in the books of {self.connection.account}.")
        return self._invoice(row, lines=True)


register_provider("local", "books", LocalBooksProvider)


# --- putting invoices in: the CSV importer and the example workspace -----------------------------------------


@dataclass
class LineIn:
    description: str
    amount: Decimal
    item: str = ""
    quantity: Decimal | None = None
    unit_price: Decimal | None = None


@dataclass
class InvoiceIn:
    """One invoice as a file or the example workspace gives it."""

    number: int | None  # the id; None: the next free one
    customer: str
    total: Decimal
    balance: Decimal
    doc_number: str = ""
    customer_number: int | None = None
    email: str = ""
    date: datetime.date | None = None
    due: datetime.date | None = None
    tax: Decimal = Decimal("0")
    currency: str = ""
    memo: str = ""
    emailed: bool = False
    url: str = ""
    lines: list[LineIn] = field(default_factory=list)


def customer_put(connection, *, name: str, number: int | None = None, email: str = "") -> LocalCustomer:
    """The customer of that id (or, without one, that name), made if new; a given email is kept on it."""
    rows = LocalCustomer.objects.filter(connection=connection)
    customer = rows.filter(number=number).first() if number else rows.filter(name__iexact=name.strip()).first()
    if customer is None:
        if number is None:
            number = (rows.aggregate(top=Max("number"))["top"] or 0) + 1
        return LocalCustomer.objects.create(connection=connection, number=number, name=name.strip(),
                                            email=email.strip())
    changed = []
    if name.strip() and customer.name != name.strip():
        customer.name = name.strip()
        changed.append("name")
    if email.strip() and customer.email != email.strip():
        customer.email = email.strip()
        changed.append("email")
    if changed:
        customer.save(update_fields=changed)
    return customer


_INVOICE_FIELDS = ("doc_number", "customer_id", "date", "due", "total", "balance", "tax", "currency", "memo",
                   "emailed", "url")


def invoice_put(connection, spec: InvoiceIn) -> str:
    """Add the invoice, or bring the one with its id up to date (its lines too, when given).

    Returns "added", "updated" or "unchanged".
    """
    customer = customer_put(connection, name=spec.customer, number=spec.customer_number, email=spec.email) \
        if spec.customer.strip() or spec.customer_number else None
    rows = LocalInvoice.objects.filter(connection=connection)
    number = spec.number
    if number is None and spec.doc_number:  # no id of its own: the invoice printed with the same number
        number = rows.filter(doc_number=spec.doc_number).values_list("number", flat=True).first()
    if number is None:
        number = (rows.aggregate(top=Max("number"))["top"] or 0) + 1
    values = {"doc_number": spec.doc_number or str(number), "customer_id": customer.pk if customer else None,
              "date": spec.date, "due": spec.due, "total": spec.total, "balance": spec.balance, "tax": spec.tax,
              "currency": spec.currency.upper()[:3], "memo": spec.memo, "emailed": spec.emailed, "url": spec.url}
    invoice = rows.filter(number=number).first()
    if invoice is None:
        invoice = LocalInvoice.objects.create(connection=connection, number=number, **values)
        result = "added"
    else:
        changed = [name for name in _INVOICE_FIELDS if getattr(invoice, name) != values[name]]
        for name in changed:
            setattr(invoice, name, values[name])
        if changed:
            invoice.save(update_fields=[*changed, "updated_at"])
        result = "updated" if changed else "unchanged"
    if spec.lines:
        before = [(line.description, line.amount, line.item, line.quantity, line.unit_price)
                  for line in invoice.lines.order_by("position", "id")]
        after = [(line.description, line.amount, line.item, line.quantity, line.unit_price) for line in spec.lines]
        if before != after:
            invoice.lines.all().delete()
            LocalInvoiceLine.objects.bulk_create([
                LocalInvoiceLine(invoice=invoice, position=i, description=line.description, amount=line.amount,
                                 item=line.item, quantity=line.quantity, unit_price=line.unit_price)
                for i, line in enumerate(spec.lines)
            ])
            result = "updated" if result == "unchanged" else result
    return result


# --- the CSV ---------------------------------------------------------------------------------------------------

# Each column's other names, as accounting apps' exports head them (compared lower-case, letters and digits only).
COLUMNS = {
    "id": ("id", "invoiceid", "txnid"),
    "number": ("number", "invoicenumber", "invoiceno", "no", "num", "docnumber"),
    "customer": ("customer", "customername", "client", "name"),
    "customer_id": ("customerid", "clientid"),
    "email": ("email", "customeremail", "billemail", "billingemail"),
    "date": ("date", "invoicedate", "txndate", "issued"),
    "due": ("due", "duedate"),
    "total": ("total", "amount", "totalamount", "totalamt"),
    "balance": ("balance", "openbalance", "amountdue", "balancedue", "owed"),
    "status": ("status",),
    "currency": ("currency",),
    "tax": ("tax", "totaltax"),
    "memo": ("memo", "message", "notes", "note"),
    "emailed": ("emailed", "sent", "emailstatus"),
    "url": ("link", "url", "invoicelink"),
    "line_description": ("linedescription", "description", "productservicedescription"),
    "line_amount": ("lineamount",),
    "line_item": ("item", "lineitem", "productservice", "product"),
    "line_quantity": ("quantity", "qty", "linequantity"),
    "line_unit_price": ("unitprice", "rate", "price", "lineunitprice"),
}
_YES = {"yes", "y", "true", "1", "sent", "emailsent", "emailed"}


class CsvProblem(ValueError):
    pass


@dataclass
class Imported:
    added: int = 0
    updated: int = 0
    unchanged: int = 0


def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", header.strip().lower())


def _columns(headers: Sequence[str]) -> dict[str, str]:
    by_key = {_key(h): h for h in headers if h}
    found = {}
    for name, keys in COLUMNS.items():
        for key in keys:
            if key in by_key:
                found[name] = by_key[key]
                break
    return found


def money(text: str, *, where: str) -> Decimal:
    """"$1,250.00", "1250", "(80.00)", "USD 1,250" as a Decimal."""
    cleaned = text.strip()
    negative = cleaned.startswith("(") and cleaned.endswith(")")
    cleaned = re.sub(r"[^\d.\-]", "", cleaned)
    try:
        value = Decimal(cleaned)
    except InvalidOperation as exc:
        raise CsvProblem(f"{where}: {text!r} is not an amount") from exc
    return -value if negative else value


def day(text: str, *, where: str) -> datetime.date | None:
    """ISO dates (2026-10-31), and the US dates QuickBooks exports (10/31/2026)."""
    text = text.strip()
    if not text:
        return None
    us_date = "%m/%d/%Y"
    for parse in (datetime.date.fromisoformat,
                  lambda t: datetime.datetime.strptime(t, us_date).replace(tzinfo=datetime.UTC).date()):
        try:
            return parse(text)
        except ValueError:
            continue
    raise CsvProblem(f"{where}: {text!r} is not a date (2026-10-31 or 10/31/2026)")


def _digits(text: str, *, where: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) > _MAX_NUMBER:
        raise CsvProblem(f"{where}: {text!r} is not an id (digits)")
    return int(text)


def invoices_from_csv(text: str) -> list[InvoiceIn]:
    """The invoices in a CSV, one row each, or several rows of one invoice (same id or number) each adding a line.

    Columns are found by their usual names (id, number, customer, email, date, due, total, balance, status,
    currency, tax, memo, emailed, link, and for lines description, line amount, item, quantity, unit price).
    Without a balance, an invoice whose status says paid owes nothing and any other owes its total.
    Raises CsvProblem naming the row and column of the first thing it can't read.
    """
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = _columns(reader.fieldnames or [])
    for needed in ("customer", "total"):
        if needed not in columns:
            raise CsvProblem(f"the file has no {needed} column (its columns: {', '.join(reader.fieldnames or [])})")
    if "id" not in columns and "number" not in columns:
        raise CsvProblem("the file has no id or number column")
    invoices: dict[str, InvoiceIn] = {}
    for row_number, row in enumerate(reader, start=2):
        def get(name: str) -> str:
            return (row.get(columns[name]) or "").strip() if name in columns else ""  # noqa: B023  (used in this row only)

        def where(name: str) -> str:
            return f"row {row_number}, {columns.get(name, name)}"  # noqa: B023  (used in this row only)

        doc_number = get("number")
        number = _digits(get("id"), where=where("id")) if get("id") else (
            int(doc_number) if doc_number.isdigit() and int(doc_number) <= _MAX_NUMBER else None
        )
        key = str(number) if number is not None else f"doc:{doc_number}"
        if key in invoices:
            invoice = invoices[key]  # another row of the same invoice: it adds a line
        else:
            if not doc_number and number is None:
                raise CsvProblem(f"row {row_number}: no id or number")
            total = money(get("total"), where=where("total"))
            if get("balance"):
                balance = money(get("balance"), where=where("balance"))
            else:
                balance = Decimal("0") if get("status").lower() in ("paid", "closed") else total
            invoice = invoices[key] = InvoiceIn(
                number=number, doc_number=doc_number, customer=get("customer"),
                customer_number=_digits(get("customer_id"), where=where("customer_id")), email=get("email"),
                date=day(get("date"), where=where("date")), due=day(get("due"), where=where("due")),
                total=total, balance=balance,
                tax=money(get("tax"), where=where("tax")) if get("tax") else Decimal("0"),
                currency=get("currency"), memo=get("memo"), emailed=_key(get("emailed")) in _YES, url=get("url"),
            )
        if get("line_description") or get("line_amount") or get("line_item"):
            quantity = money(get("line_quantity"), where=where("line_quantity")) if get("line_quantity") else None
            unit_price = money(get("line_unit_price"), where=where("line_unit_price")) \
                if get("line_unit_price") else None
            if get("line_amount"):
                amount = money(get("line_amount"), where=where("line_amount"))
            elif quantity is not None and unit_price is not None:
                amount = (quantity * unit_price).quantize(Decimal("0.01"))
            elif not invoice.lines:
                amount = invoice.total - invoice.tax  # the one line of a one-row invoice
            else:
                amount = Decimal("0")
            invoice.lines.append(LineIn(description=get("line_description"), amount=amount, item=get("line_item"),
                                        quantity=quantity, unit_price=unit_price))
    return list(invoices.values())


def csv_import(connection, text: str) -> Imported:
    """Import a CSV of invoices into the connection's local books. Importing it again changes nothing."""
    specs = invoices_from_csv(text)
    outcome = Imported()
    with transaction.atomic():
        for spec in specs:
            result = invoice_put(connection, spec)
            setattr(outcome, result, getattr(outcome, result) + 1)
    return outcome
