"""QuickBooks Online's books provider against recorded API answers (a requests.Session answering from a list)."""

import datetime
from decimal import Decimal

import pytest

from core.errors import ToolError
from integrations.models import Connection
from integrations.providers.quickbooks import QuickBooksProvider
from tests.integrations.fakes import intuit, response

TODAY = datetime.date(2026, 11, 10)


class Session:
    """A requests.Session answering QuickBooks' API from a list, recording what was asked."""

    def __init__(self, *answers):
        self.answers, self.calls = list(answers), []

    def request(self, method, url, **kwargs):
        self.calls.append({"method": method, "url": url, **kwargs})
        return self.answers.pop(0)

    def queries(self):
        return [c["params"]["query"] for c in self.calls]


def ok(body):
    return response(200, body)


def fault(status, code, detail):
    return response(status, {"Fault": {"Error": [{"Message": detail, "Detail": detail, "code": code}],
                                       "type": "ValidationFault"}})


INVOICE_1042 = {
    "Id": "1042", "DocNumber": "1042", "SyncToken": "3", "TxnDate": "2026-10-01", "DueDate": "2026-10-31",
    "TotalAmt": 1250.0, "Balance": 1250.0, "CurrencyRef": {"value": "USD", "name": "United States Dollar"},
    "CustomerRef": {"value": "58", "name": "Ortiz Bakery"}, "BillEmail": {"Address": "rosa@ortizbakery.test"},
    "EmailStatus": "EmailSent", "CustomerMemo": {"value": "Bakery menu boards"},
    "TxnTaxDetail": {"TotalTax": 0},
    "Line": [
        {"Id": "1", "LineNum": 1, "Description": "Menu board design, three boards", "Amount": 750.0,
         "DetailType": "SalesItemLineDetail",
         "SalesItemLineDetail": {"ItemRef": {"value": "12", "name": "Design"}, "UnitPrice": 250, "Qty": 3}},
        {"Id": "2", "LineNum": 2, "Description": "Menu board printing and mounting", "Amount": 500.0,
         "DetailType": "SalesItemLineDetail",
         "SalesItemLineDetail": {"ItemRef": {"value": "13", "name": "Production"}, "UnitPrice": 500, "Qty": 1}},
        {"Amount": 1250.0, "DetailType": "SubTotalLineDetail", "SubTotalLineDetail": {}},
    ],
}
INVOICE_1043 = {
    "Id": "1043", "DocNumber": "1043", "TxnDate": "2026-11-02", "DueDate": "2026-12-02", "TotalAmt": 1800.0,
    "Balance": 1800.0, "CurrencyRef": {"value": "USD"}, "CustomerRef": {"value": "61", "name": "Harbor Florists"},
    "EmailStatus": "NotSet",
}
HARBOR = {"Id": "61", "DisplayName": "Harbor Florists", "PrimaryEmailAddr": {"Address": "accounts@harborflorists.test"}}


def books(connection, *answers):
    session = Session(*answers)
    return QuickBooksProvider(connection, session=session), session


# --- invoices -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status, where", [
    (None, ""),
    ("open", " WHERE Balance > '0'"),
    ("overdue", " WHERE Balance > '0' AND DueDate < '2026-11-10'"),
    ("paid", " WHERE Balance = '0'"),
])
def test_invoices_are_queried_newest_first_filtered_by_status(quickbooks, status, where):
    provider, session = books(quickbooks, ok({"QueryResponse": {}}))
    provider.invoices(status=status, customer=None, today=TODAY, limit=20)
    assert session.queries() == [f"SELECT * FROM Invoice{where} ORDERBY TxnDate DESC STARTPOSITION 1 MAXRESULTS 21"]


def test_invoices_go_to_the_companys_query_endpoint(quickbooks):
    provider, session = books(quickbooks, ok({"QueryResponse": {}}))
    provider.invoices(status=None, customer=None, today=TODAY, limit=20)
    assert (session.calls[0]["method"], session.calls[0]["url"]) == (
        "GET", "https://sandbox-quickbooks.api.intuit.com/v3/company/9130357/query"
    )


def test_an_invoice_in_the_list_has_its_customer_email_amounts_dates_and_link(quickbooks):
    provider, _ = books(quickbooks, ok({"QueryResponse": {"Invoice": [INVOICE_1042]}}))
    found = provider.invoices(status="overdue", customer=None, today=TODAY, limit=20)[0][0]
    assert (found.id, found.number, found.customer, found.customer_id, found.email, found.date, found.due, found.total,
            found.balance, found.currency, found.url, found.lines) == (
        "1042", "1042", "Ortiz Bakery", "58", "rosa@ortizbakery.test", datetime.date(2026, 10, 1),
        datetime.date(2026, 10, 31), Decimal("1250.0"), Decimal("1250.0"), "USD",
        "https://app.sandbox.qbo.intuit.com/app/invoice?txnId=1042", [],
    )


def test_production_invoices_link_to_quickbooks_own_app(quickbooks, settings):
    settings.QUICKBOOKS_ENVIRONMENT = "production"
    provider, _ = books(quickbooks, ok({"QueryResponse": {"Invoice": [INVOICE_1042]}}))
    found = provider.invoices(status=None, customer=None, today=TODAY, limit=20)[0][0]
    assert found.url == "https://app.qbo.intuit.com/app/invoice?txnId=1042"


def test_more_is_true_when_quickbooks_has_one_more_than_asked(quickbooks):
    provider, _ = books(quickbooks, ok({"QueryResponse": {"Invoice": [INVOICE_1043, INVOICE_1042]}}),
                        ok({"QueryResponse": {"Customer": [HARBOR]}}))
    found, more = provider.invoices(status=None, customer=None, today=TODAY, limit=1)
    assert ([i.id for i in found], more) == (["1043"], True)


def test_an_invoice_without_a_billing_email_gets_its_customers_in_one_query(quickbooks):
    provider, session = books(quickbooks, ok({"QueryResponse": {"Invoice": [INVOICE_1043, INVOICE_1042]}}),
                              ok({"QueryResponse": {"Customer": [HARBOR]}}))
    found, _ = provider.invoices(status=None, customer=None, today=TODAY, limit=20)
    assert ([i.email for i in found], session.queries()[1]) == (
        ["accounts@harborflorists.test", "rosa@ortizbakery.test"],
        "SELECT * FROM Customer WHERE Id IN ('61') MAXRESULTS 1000",
    )


def test_customer_matches_part_of_a_name_then_their_invoices(quickbooks):
    provider, session = books(quickbooks, ok({"QueryResponse": {"Customer": [{"Id": "58"}, {"Id": "77"}]}}),
                              ok({"QueryResponse": {"Invoice": [INVOICE_1042]}}))
    provider.invoices(status="open", customer="ortiz", today=TODAY, limit=20)
    assert session.queries() == [
        "SELECT Id FROM Customer WHERE DisplayName LIKE '%ortiz%' MAXRESULTS 200",
        "SELECT * FROM Invoice WHERE Balance > '0' AND CustomerRef IN ('58', '77') ORDERBY TxnDate DESC "
        "STARTPOSITION 1 MAXRESULTS 21",
    ]


def test_a_customer_no_one_matches_has_no_invoices_and_asks_no_more(quickbooks):
    provider, session = books(quickbooks, ok({"QueryResponse": {}}))
    assert (provider.invoices(status=None, customer="Nobody", today=TODAY, limit=20), len(session.calls)) == (
        ([], False), 1
    )


def test_a_quote_in_a_customer_name_is_escaped(quickbooks):
    provider, session = books(quickbooks, ok({"QueryResponse": {}}))
    provider.invoices(status=None, customer="O'Brien", today=TODAY, limit=20)
    assert "LIKE '%O\\'Brien%'" in session.queries()[0]


# --- one invoice ----------------------------------------------------------------------------------------------


def test_one_invoice_is_read_by_its_id(quickbooks):
    provider, session = books(quickbooks, ok({"Invoice": INVOICE_1042}))
    provider.invoice("1042")
    assert session.calls[0]["url"] == "https://sandbox-quickbooks.api.intuit.com/v3/company/9130357/invoice/1042"


def test_one_invoice_has_its_lines_without_subtotals(quickbooks):
    provider, _ = books(quickbooks, ok({"Invoice": INVOICE_1042}))
    lines = provider.invoice("1042").lines
    assert [(x.description, x.amount, x.item, x.quantity, x.unit_price) for x in lines] == [
        ("Menu board design, three boards", Decimal("750.0"), "Design", Decimal("3"), Decimal("250")),
        ("Menu board printing and mounting", Decimal("500.0"), "Production", Decimal("1"), Decimal("500")),
    ]


def test_one_invoice_has_its_tax_memo_and_whether_it_was_emailed(quickbooks):
    taxed = {**INVOICE_1042, "TxnTaxDetail": {"TotalTax": 87.5}}
    provider, _ = books(quickbooks, ok({"Invoice": taxed}))
    found = provider.invoice("1042")
    assert (found.tax, found.memo, found.emailed) == (Decimal("87.5"), "Bakery menu boards", True)


def test_an_invoice_not_emailed_says_so(quickbooks):
    provider, _ = books(quickbooks, ok({"Invoice": INVOICE_1043}), ok({"QueryResponse": {"Customer": [HARBOR]}}))
    found = provider.invoice("1043")
    assert (found.emailed, found.email, found.memo) == (False, "accounts@harborflorists.test", None)


def test_a_discount_line_takes_money_off(quickbooks):
    discounted = {**INVOICE_1042, "Line": [{"Amount": 100.0, "DetailType": "DiscountLineDetail",
                                            "DiscountLineDetail": {"PercentBased": False}}]}
    provider, _ = books(quickbooks, ok({"Invoice": discounted}))
    assert [(x.description, x.amount) for x in provider.invoice("1042").lines] == [("Discount", Decimal("-100.0"))]


def test_the_books_only_ever_read_quickbooks(quickbooks):
    provider, session = books(
        quickbooks, ok({"QueryResponse": {"Customer": [{"Id": "61"}]}}),
        ok({"QueryResponse": {"Invoice": [INVOICE_1043]}}), ok({"QueryResponse": {"Customer": [HARBOR]}}),
        ok({"Invoice": INVOICE_1043}), ok({"QueryResponse": {"Customer": [HARBOR]}}),
    )
    provider.invoices(status="open", customer="Harbor", today=TODAY, limit=20)
    provider.invoice("1043")
    assert {c["method"] for c in session.calls} == {"GET"}


# --- failures and sign-in -------------------------------------------------------------------------------------


def test_an_unknown_invoice_is_not_found(quickbooks):
    provider, _ = books(quickbooks, fault(400, "610", "Object Not Found : Something you're trying to use has been "
                                                      "made inactive. Check the fields with accounts, customers, "
                                                      "items, vendors or employees."))
    with pytest.raises(ToolError) as caught:
        provider.invoice("9999")
    assert caught.value.kind == "not_found"


def test_quickbooks_limiting_requests_is_rate_limited(quickbooks):
    provider, _ = books(quickbooks, fault(429, "003001", "ThrottleExceeded"))
    with pytest.raises(ToolError) as caught:
        provider.invoices(status=None, customer=None, today=TODAY, limit=20)
    assert caught.value.kind == "rate_limited"


NEW_TOKENS = {"access_token": "qb-access-2", "refresh_token": "qb-refresh-2", "expires_in": 3600,
              "x_refresh_token_expires_in": 8726400}


def test_a_401_refreshes_the_token_once_and_reads_again(quickbooks):
    provider, session = books(quickbooks, response(401, ""), ok({"Invoice": INVOICE_1042}))
    with intuit(response(200, NEW_TOKENS)):
        found = provider.invoice("1042")
    assert (found.id, [c["headers"]["Authorization"] for c in session.calls]) == (
        "1042", ["Bearer qb-access-1", "Bearer qb-access-2"]
    )


def test_a_refresh_keeps_quickbooks_new_refresh_token(quickbooks):
    provider, _ = books(quickbooks, response(401, ""), ok({"Invoice": INVOICE_1042}))
    with intuit(response(200, NEW_TOKENS)):
        provider.invoice("1042")
    assert Connection.objects.get(pk=quickbooks.pk).read_tokens()["refresh_token"] == "qb-refresh-2"


def test_a_sign_in_quickbooks_refuses_is_reauth_with_a_card(quickbooks):
    provider, _ = books(quickbooks, response(401, ""))
    with intuit(response(400, {"error": "invalid_grant"})), pytest.raises(ToolError) as caught:
        provider.invoice("1042")
    assert (caught.value.kind, caught.value.card, Connection.objects.get(pk=quickbooks.pk).status) == (
        "reauth", "Connect Fernhill Studio LLC again", "needs_reconnect"
    )


def test_quickbooks_answering_nothing_usable_is_unavailable(quickbooks):
    provider, _ = books(quickbooks, response(503, "Service Unavailable"))
    with pytest.raises(ToolError) as caught:
        provider.invoices(status=None, customer=None, today=TODAY, limit=20)
    assert caught.value.kind == "unavailable"
