"""The books group through use_tool, as a thread runs it, on the local books and on QuickBooks Online."""

import datetime
from decimal import Decimal

import pytest
from freezegun import freeze_time

from core.models import Card, Change
from integrations.providers.local_books import InvoiceIn, LineIn, invoice_put
from integrations.services import connection_create_local
from tests.integrations.conftest import save_quickbooks
from tests.integrations.fakes import QUICKBOOKS_SETTINGS, response
from tests.spec import spec_page, spec_tools
from tools import registry

# The overdue-invoices use case runs on Monday, November 10, 2026 at 9 in New York.
STORY = "2026-11-10T14:00:00Z"


@pytest.fixture
def books(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["books"])


def d(text):
    return datetime.date.fromisoformat(text) if text else None


def invoice(connection, number, customer="Ortiz Bakery", *, date="2026-10-01", due="2026-10-31", total="1250",
            balance=None, **extra):
    invoice_put(connection, InvoiceIn(
        number=number, customer=customer, date=d(date), due=d(due), total=Decimal(total),
        balance=Decimal(total if balance is None else balance), currency="USD",
        url=f"https://app.qbo.intuit.com/app/invoice?txnId={number}", **extra,
    ))


@pytest.fixture
def ledger(books):
    invoice(books, 1038, "Harbor Florists", date="2026-09-08", due="2026-10-08", total="2400", balance="0")
    invoice(books, 1042, "Ortiz Bakery", email="rosa@ortizbakery.test", customer_number=58)
    invoice(books, 1043, "Harbor Florists", date="2026-11-02", due="2026-12-02", total="1800")
    return books


# --- the declarations against the spec ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["books.invoices", "books.invoice"])
def test_description_yes_and_listing_are_the_specs(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.description, tool.owners_yes, tool.describe()["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", ["books.invoices", "books.invoice"])
def test_inputs_and_required_inputs_are_the_specs(name):
    schema = registry.TOOLS[name].input_schema()
    inputs = spec_tools()[name]["inputs"]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in inputs}, {i["name"] for i in inputs if i["required"]}
    )


def test_the_group_how_to_and_line_are_the_specs():
    group = registry.GROUPS["books"]
    block = spec_page("tools/books.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    quoted = " ".join(line[2:] for line in block.splitlines() if line.startswith("> "))
    assert (group.how_to, group.summary) == (
        quoted.strip(), "invoices and what customers owe, from the owner's accounting app"
    )



def test_the_groups_line_in_browse_tools_is_the_catalogs():
    from tools.catalog import browse_description

    ours = [line for line in browse_description().splitlines() if line.startswith("- books:")]
    assert len(ours) == 1 and f"> {ours[0]}" in spec_page("tools/catalog.md").splitlines()

# --- invoices -------------------------------------------------------------------------------------------------


@freeze_time(STORY)
def test_overdue_invoices_are_the_use_cases_answer(use, ledger):
    assert use("books.invoices", status="overdue") == {"invoices": [{
        "id": "1042", "number": "1042", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test",
        "date": "2026-10-01", "due": "2026-10-31", "daysLate": 10, "total": 1250, "balance": 1250, "currency": "USD",
        "status": "overdue", "url": "https://app.qbo.intuit.com/app/invoice?txnId=1042",
    }], "more": False}


@freeze_time(STORY)
def test_invoices_are_newest_first_with_their_status(use, ledger):
    found = use("books.invoices")["invoices"]
    assert [(i["id"], i["status"]) for i in found] == [("1043", "open"), ("1042", "overdue"), ("1038", "paid")]


@freeze_time(STORY)
def test_only_an_overdue_invoice_says_how_late_it_is(use, ledger):
    assert ["daysLate" in i for i in use("books.invoices")["invoices"]] == [False, True, False]


@freeze_time("2026-11-11T04:30:00Z")  # still the evening of November 10 in New York
def test_days_late_count_from_the_owners_today(use, ledger):
    assert use("books.invoices", status="overdue")["invoices"][0]["daysLate"] == 10


@freeze_time(STORY)
@pytest.mark.parametrize("status, expected", [("open", ["1043", "1042"]), ("overdue", ["1042"]), ("paid", ["1038"])])
def test_status_narrows_to_what_is_owed(use, ledger, status, expected):
    assert [i["id"] for i in use("books.invoices", status=status)["invoices"]] == expected


@freeze_time(STORY)
def test_customer_matches_part_of_a_name(use, ledger):
    assert [i["id"] for i in use("books.invoices", customer="harbor")["invoices"]] == ["1043", "1038"]


def test_invoices_give_20_unless_told_and_say_there_are_more(use, books):
    for number in range(1, 22):
        invoice(books, number, date=f"2026-10-{number:02d}")
    result = use("books.invoices")
    assert (len(result["invoices"]), result["more"]) == (20, True)


def test_invoices_give_up_to_limit(use, ledger):
    result = use("books.invoices", limit=2)
    assert (len(result["invoices"]), result["more"]) == (2, True)


def test_amounts_are_numbers_with_cents_only_when_there_are_some(use, books):
    invoice(books, 7, total="99.50", balance="12")
    found = use("books.invoices")["invoices"][0]
    assert (found["total"], found["balance"]) == (99.5, 12)


def test_an_invoice_with_no_customer_dates_or_currency_says_null(use, books):
    invoice_put(books, InvoiceIn(number=7, customer="", total=Decimal("10"), balance=Decimal("10")))
    found = use("books.invoices")["invoices"][0]
    assert (found["customer"], found["email"], found["date"], found["due"], found["currency"], found["status"]) == (
        None, None, None, None, None, "open"
    )


def test_invoices_without_books_are_not_connected_with_a_card(use):
    result = use("books.invoices")
    assert (result["error"], result["card"], Card.objects.get().subject) == (
        "not_connected", "Connect QuickBooks Online", "connect:books"
    )


def test_reading_invoices_changes_nothing(use, ledger):
    use("books.invoices")
    use("books.invoice", id="1042")
    assert not Change.objects.exists()


# --- invoice --------------------------------------------------------------------------------------------------


@freeze_time(STORY)
def test_one_invoice_has_its_lines_tax_memo_emailed_and_link(use, books):
    invoice(books, 1042, email="rosa@ortizbakery.test", tax=Decimal("0"), memo="Bakery menu boards", emailed=True,
            lines=[LineIn("Menu board design, three boards", Decimal("750"), item="Design", quantity=Decimal("3"),
                          unit_price=Decimal("250")),
                   LineIn("Menu board printing and mounting", Decimal("500"))])
    assert use("books.invoice", id="1042") == {
        "id": "1042", "number": "1042", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test",
        "date": "2026-10-01", "due": "2026-10-31", "daysLate": 10, "total": 1250, "balance": 1250, "currency": "USD",
        "status": "overdue", "url": "https://app.qbo.intuit.com/app/invoice?txnId=1042", "tax": 0,
        "memo": "Bakery menu boards", "emailed": True, "lines": [
            {"description": "Menu board design, three boards", "amount": 750, "item": "Design", "quantity": 3,
             "unitPrice": 250},
            {"description": "Menu board printing and mounting", "amount": 500},
        ],
    }


def test_an_unknown_invoice_is_not_found(use, ledger):
    assert use("books.invoice", id="9999")["error"] == "not_found"


def test_another_workspaces_invoice_is_not_found(use, other_org, books):
    invoice(connection_create_local(org=other_org, account="alex@far.test", groups=["books"]), 5001)
    assert use("books.invoice", id="5001")["error"] == "not_found"


def test_another_workspaces_invoices_are_not_listed(use, other_org, books):
    invoice(connection_create_local(org=other_org, account="alex@far.test", groups=["books"]), 5001)
    assert use("books.invoices") == {"invoices": [], "more": False}


def test_invoice_without_books_is_not_connected(use):
    assert use("books.invoice", id="1042")["error"] == "not_connected"


# --- limits ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool, inputs, field", [
    ("books.invoices", {"status": "late"}, "status"),
    ("books.invoices", {"customer": ""}, "customer"),
    ("books.invoices", {"customer": "c" * 201}, "customer"),
    ("books.invoices", {"limit": 0}, "limit"),
    ("books.invoices", {"limit": 51}, "limit"),
    ("books.invoices", {"limit": 2.5}, "limit"),
    ("books.invoice", {}, "id"),
    ("books.invoice", {"id": "INV-1042"}, "id"),
    ("books.invoice", {"id": "1" * 31}, "id"),
    ("books.invoice", {"id": 1042}, "id"),
])
def test_limits_are_bad_input_naming_the_field(use, books, tool, inputs, field):
    result = use(tool, **inputs)
    assert (result["error"], result["message"].split(":")[0]) == ("bad_input", field)


def test_inputs_at_their_limits_are_taken(use, books):
    assert (use("books.invoices", customer="c" * 200, limit=50), use("books.invoice", id="1" * 30)["error"]) == (
        {"invoices": [], "more": False}, "not_found"
    )


# --- on QuickBooks Online -------------------------------------------------------------------------------------

QBO_1042 = {
    "Id": "1042", "DocNumber": "1042", "TxnDate": "2026-10-01", "DueDate": "2026-10-31", "TotalAmt": 1250.0,
    "Balance": 1250.0, "CurrencyRef": {"value": "USD"}, "CustomerRef": {"value": "58", "name": "Ortiz Bakery"},
    "BillEmail": {"Address": "rosa@ortizbakery.test"}, "EmailStatus": "EmailSent",
}


@pytest.fixture
def quickbooks(org, settings, monkeypatch):
    for name, value in QUICKBOOKS_SETTINGS.items():
        setattr(settings, name, value)
    settings.QUICKBOOKS_ENVIRONMENT = "production"
    asked = []

    def answer(method, url, **kwargs):
        asked.append(kwargs["params"].get("query"))
        return response(200, {"QueryResponse": {"Invoice": [QBO_1042]}})

    monkeypatch.setattr("integrations.clients.requests.request", answer)
    save_quickbooks(org)
    return asked


@freeze_time(STORY)
def test_overdue_invoices_from_quickbooks_are_the_use_cases_answer(use, quickbooks):
    assert use("books.invoices", status="overdue") == {"invoices": [{
        "id": "1042", "number": "1042", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test",
        "date": "2026-10-01", "due": "2026-10-31", "daysLate": 10, "total": 1250, "balance": 1250, "currency": "USD",
        "status": "overdue", "url": "https://app.qbo.intuit.com/app/invoice?txnId=1042",
    }], "more": False}


@freeze_time(STORY)
def test_quickbooks_is_asked_for_overdue_by_the_owners_today(use, quickbooks):
    use("books.invoices", status="overdue", limit=5)
    assert quickbooks == [
        "SELECT * FROM Invoice WHERE Balance > '0' AND DueDate < '2026-11-10' ORDERBY TxnDate DESC STARTPOSITION 1 "
        "MAXRESULTS 6"
    ]
