"""The local books on their own: invoices by status and customer, one invoice, and importing a CSV of invoices."""

import datetime
import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from core.errors import ToolError
from integrations.local.models_books import LocalCustomer, LocalInvoice
from integrations.models import Connection
from integrations.providers.local_books import (
    CsvProblem,
    InvoiceIn,
    LineIn,
    LocalBooksProvider,
    csv_import,
    invoice_put,
    invoices_from_csv,
)
from integrations.services import connection_create_local

TODAY = datetime.date(2026, 11, 10)


def d(text):
    return datetime.date.fromisoformat(text)


def invoice(connection, number, customer="Ortiz Bakery", *, date="2026-10-01", due="2026-10-31", total="1250",
            balance=None, **extra):
    invoice_put(connection, InvoiceIn(
        number=number, customer=customer, date=d(date) if date else None, due=d(due) if due else None,
        total=Decimal(total), balance=Decimal(total if balance is None else balance), **extra,
    ))


@pytest.fixture
def books(local):
    return LocalBooksProvider(local)


@pytest.fixture
def ledger(local):
    invoice(local, 1038, "Harbor Florists", date="2026-09-08", due="2026-10-08", total="2400", balance="0")
    invoice(local, 1042, "Ortiz Bakery", date="2026-10-01", due="2026-10-31", total="1250")
    invoice(local, 1043, "Harbor Florists", date="2026-11-02", due="2026-12-02", total="1800")
    invoice(local, 1044, "Ortiz Bakery", date="2026-11-05", due="2026-11-10", total="300")
    return local


def ids(found):
    return [i.id for i in found[0]]


def test_invoices_are_newest_first(ledger, books):
    assert ids(books.invoices(status=None, customer=None, today=TODAY, limit=20)) == ["1044", "1043", "1042", "1038"]


@pytest.mark.parametrize("status, expected", [
    ("open", ["1044", "1043", "1042"]),
    ("overdue", ["1042"]),  # 1044 is due today: not overdue yet
    ("paid", ["1038"]),
])
def test_status_filters_by_what_is_owed(ledger, books, status, expected):
    assert ids(books.invoices(status=status, customer=None, today=TODAY, limit=20)) == expected


def test_customer_matches_part_of_a_name_in_any_case(ledger, books):
    assert ids(books.invoices(status=None, customer="ortiz", today=TODAY, limit=20)) == ["1044", "1042"]


def test_more_says_there_are_invoices_past_the_limit(ledger, books):
    found, more = books.invoices(status=None, customer=None, today=TODAY, limit=3)
    assert (len(found), more) == (3, True)


def test_more_is_false_on_the_last_page(ledger, books):
    assert books.invoices(status=None, customer=None, today=TODAY, limit=4)[1] is False


def test_an_invoice_in_the_list_has_its_customer_email_amounts_and_dates(local, books):
    invoice(local, 1042, email="rosa@ortizbakery.test", currency="usd", customer_number=58)
    found = books.invoices(status=None, customer=None, today=TODAY, limit=1)[0][0]
    assert (found.customer, found.customer_id, found.email, found.total, found.balance, found.currency, found.due) == (
        "Ortiz Bakery", "58", "rosa@ortizbakery.test", Decimal("1250.00"), Decimal("1250.00"), "USD", d("2026-10-31")
    )


def test_an_invoice_without_a_link_of_its_own_has_none_never_an_admin_page(local, books):
    # An agent passes an invoice's link to the customer: an admin path and the row's id went into a chase that way.
    invoice(local, 1042)
    invoice(local, 1043, url="/admin/integrations/localinvoice/1/change/")
    invoice(local, 1044, url="javascript:alert(1)")
    invoice(local, 1045, url="https://pay.example.com/i/1045")
    assert [books.invoice(n).url for n in ("1042", "1043", "1044", "1045")] == [
        "", "", "", "https://pay.example.com/i/1045"]


def test_one_invoice_has_its_lines_in_order(local, books):
    invoice(local, 1042, lines=[
        LineIn("Menu board design", Decimal("750"), item="Design", quantity=Decimal("3"), unit_price=Decimal("250")),
        LineIn("Printing", Decimal("500")),
    ])
    lines = books.invoice("1042").lines
    assert [(x.description, x.amount, x.item, x.quantity, x.unit_price) for x in lines] == [
        ("Menu board design", Decimal("750.00"), "Design", Decimal("3"), Decimal("250")),
        ("Printing", Decimal("500.00"), None, None, None),
    ]


def test_one_invoice_has_its_tax_memo_and_whether_it_was_emailed(local, books):
    invoice(local, 1042, tax=Decimal("100"), memo="Menu boards", emailed=True)
    found = books.invoice("1042")
    assert (found.tax, found.memo, found.emailed) == (Decimal("100.00"), "Menu boards", True)


@pytest.mark.parametrize("invoice_id", ["9999", "1" * 30])
def test_an_unknown_invoice_is_not_found(local, books, invoice_id):
    invoice(local, 1042)
    with pytest.raises(ToolError) as caught:
        books.invoice(invoice_id)
    assert caught.value.kind == "not_found"


def test_another_accounts_invoices_are_not_read(org, local, books):
    invoice(connection_create_local(org=org, account="other@fernhill.test", groups=["books"]), 1042)
    with pytest.raises(ToolError):
        books.invoice("1042")


def test_putting_an_invoice_again_changes_nothing(local):
    invoice(local, 1042)
    before = LocalInvoice.objects.get(number=1042).updated_at
    invoice_put(local, InvoiceIn(number=1042, customer="Ortiz Bakery", date=d("2026-10-01"), due=d("2026-10-31"),
                                 total=Decimal("1250"), balance=Decimal("1250")))
    assert LocalInvoice.objects.get(number=1042).updated_at == before


def test_a_customer_is_found_again_by_name(local):
    invoice(local, 1042, "Ortiz Bakery")
    invoice(local, 1044, "ortiz bakery")
    assert LocalCustomer.objects.filter(connection=local).count() == 1


# --- CSV ------------------------------------------------------------------------------------------------------

CSV = """Invoice No.,Customer,Email,Date,Due Date,Total,Balance,Currency,Memo,Emailed,Link,Description,Item,Qty,Rate
1042,Ortiz Bakery,rosa@ortizbakery.test,2026-10-01,2026-10-31,"$1,250.00","$1,250.00",USD,Menu boards,yes,https://pay.example/1042,Menu board design,Design,3,250
1042,,,,,,,,,,,Printing and mounting,Production,1,500
1038,Harbor Florists,accounts@harborflorists.test,09/08/2026,10/08/2026,2400,0,USD,,no,,,,,
"""  # noqa: E501  (rows as a bookkeeping app exports them, one a line)


def test_a_csv_row_is_an_invoice_with_its_customer_dates_and_amounts(local):
    csv_import(local, CSV)
    row = LocalInvoice.objects.select_related("customer").get(number=1042)
    assert (row.customer.name, row.customer.email, row.date, row.due, row.total, row.balance, row.currency, row.memo,
            row.emailed, row.url) == (
        "Ortiz Bakery", "rosa@ortizbakery.test", d("2026-10-01"), d("2026-10-31"), Decimal("1250.00"),
        Decimal("1250.00"), "USD", "Menu boards", True, "https://pay.example/1042",
    )


def test_rows_with_the_same_number_are_the_invoices_lines(local):
    csv_import(local, CSV)
    lines = LocalInvoice.objects.get(number=1042).lines.order_by("position")
    assert [(x.description, x.item, x.quantity, x.amount) for x in lines] == [
        ("Menu board design", "Design", Decimal("3"), Decimal("750.00")),
        ("Printing and mounting", "Production", Decimal("1"), Decimal("500.00")),
    ]


def test_us_dates_are_read_as_quickbooks_exports_them(local):
    csv_import(local, CSV)
    assert LocalInvoice.objects.get(number=1038).due == d("2026-10-08")


def test_importing_the_same_csv_again_changes_nothing(local):
    csv_import(local, CSV)
    again = csv_import(local, CSV)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)


def test_an_edited_csv_updates_the_invoice(local):
    csv_import(local, CSV)
    outcome = csv_import(local, CSV.replace('"$1,250.00",USD', '0,USD'))
    assert (outcome.updated, LocalInvoice.objects.get(number=1042).balance) == (1, Decimal("0.00"))


def test_without_a_balance_a_paid_invoice_owes_nothing_and_others_their_total(local):
    csv_import(local, "id,customer,total,status\n7,A,100,Paid\n8,B,200,Open\n")
    assert dict(LocalInvoice.objects.values_list("number", "balance")) == {7: Decimal("0.00"), 8: Decimal("200.00")}


def test_a_one_row_invoice_with_a_description_is_one_line_of_its_total(local):
    csv_import(local, "id,customer,total,description\n7,A,100,Logo\n")
    assert [(x.description, x.amount) for x in LocalInvoice.objects.get(number=7).lines.all()] == [
        ("Logo", Decimal("100.00"))
    ]


def test_an_invoice_numbered_with_letters_gets_an_id_and_keeps_its_number(local):
    csv_import(local, "number,customer,total\nINV-7,A,100\n")
    csv_import(local, "number,customer,total\nINV-7,A,100\n")
    assert list(LocalInvoice.objects.values_list("number", "doc_number")) == [(1, "INV-7")]


@pytest.mark.parametrize("text, message", [
    ("customer,total\nA,100\n", "no id or number column"),
    ("id,total\n7,100\n", "no customer column"),
    ("id,customer,total\n7,A,lots\n", "row 2, total: 'lots' is not an amount"),
    ("id,customer,total,due\n7,A,100,soon\n", "row 2, due: 'soon' is not a date"),
    ("id,customer,total\nX7,A,100\n", "row 2, id: 'X7' is not an id"),
])
def test_a_csv_it_cannot_read_names_where(local, text, message):
    with pytest.raises(CsvProblem, match=message):
        invoices_from_csv(text)


# --- manage.py import_invoices --------------------------------------------------------------------------------


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "invoices.csv"
    path.write_text(CSV)
    return path


def test_import_invoices_makes_local_books_when_there_are_none(org, csv_file):
    call_command("import_invoices", str(csv_file), stdout=io.StringIO())
    connection = Connection.objects.get(organization=org)
    assert (connection.groups, LocalInvoice.objects.filter(connection=connection).count()) == (["books"], 2)


def test_import_invoices_says_what_it_did(org, local, csv_file):
    out = io.StringIO()
    call_command("import_invoices", str(csv_file), stdout=out)
    assert "2 invoices added, 0 updated, 0 unchanged" in out.getvalue()


def test_import_invoices_of_a_bad_file_names_the_problem_and_makes_no_account(org, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,customer,total\n7,A,lots\n")
    with pytest.raises(CommandError, match="is not an amount"):
        call_command("import_invoices", str(path), stdout=io.StringIO())
    assert not Connection.objects.exists()
