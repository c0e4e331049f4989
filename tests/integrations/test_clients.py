"""Real providers' plumbing against recorded answers: googleapiclient on HttpMockSequence, QuickBooks' REST API."""

import json
from unittest import mock

import pytest
from googleapiclient.http import HttpMockSequence

from core.errors import ToolError
from integrations.clients import google_execute, google_service, quickbooks_request
from integrations.models import Connection
from tests.integrations.conftest import an_hour_ago, save_quickbooks
from tests.integrations.fakes import intuit, response

NOT_FOUND = json.dumps({"error": {"code": 404, "message": "Requested entity was not found.",
                                  "errors": [{"reason": "notFound", "message": "Requested entity was not found."}]}})


def test_a_google_request_returns_its_answer(google):
    http = HttpMockSequence([({"status": "200"}, json.dumps({"id": "19a2", "messages": []}))])
    gmail = google_service(google, "gmail", "v1", http=http)
    assert google_execute(gmail.users().threads().get(userId="me", id="19a2"), connection=google, group="mail") == {
        "id": "19a2", "messages": []
    }


def test_a_google_404_is_not_found(google):
    gmail = google_service(google, "gmail", "v1", http=HttpMockSequence([({"status": "404"}, NOT_FOUND)]))
    with pytest.raises(ToolError) as caught:
        google_execute(gmail.users().threads().get(userId="me", id="nope"), connection=google, group="mail")
    assert (caught.value.kind, caught.value.message) == (
        "not_found", "Nothing at that id in Gmail (sam@fernhill.test), or it was moved: Requested entity was not found."
    )


def test_a_google_429_is_rate_limited(google):
    drive = google_service(google, "drive", "v3", http=HttpMockSequence([({"status": "429"}, "{}")]))
    with pytest.raises(ToolError) as caught:
        google_execute(drive.files().list(q="name contains 'rate'"), connection=google, group="files")
    assert caught.value.kind == "rate_limited"


def test_google_unreachable_is_unavailable(google):
    class Down:
        def request(self, *args, **kwargs):
            raise ConnectionRefusedError("refused")

    calendar = google_service(google, "calendar", "v3", http=Down())
    with pytest.raises(ToolError) as caught:
        google_execute(calendar.events().list(calendarId="primary"), connection=google, group="calendar")
    assert caught.value.kind == "unavailable"


def test_a_google_service_without_http_is_built_on_the_connections_credentials(google):
    service = google_service(google, "drive", "v3")
    assert service._http.credentials.token == "g-access-1"


# --- QuickBooks -----------------------------------------------------------------------------------------------

INVOICES = {"QueryResponse": {"Invoice": [{"Id": "1042", "DocNumber": "1042"}]}}


class Session:
    """A requests.Session answering QuickBooks' API from a list, recording what was asked."""

    def __init__(self, *answers):
        self.answers, self.calls = list(answers), []

    def request(self, method, url, **kwargs):
        self.calls.append({"method": method, "url": url, **kwargs})
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_quickbooks_request_goes_to_the_companys_api_with_the_bearer_token(quickbooks):
    session = Session(response(200, INVOICES))
    quickbooks_request(quickbooks, "GET", "query", params={"query": "select * from Invoice"}, session=session)
    call = session.calls[0]
    assert (call["url"], call["headers"]["Authorization"], call["params"]["minorversion"]) == (
        "https://sandbox-quickbooks.api.intuit.com/v3/company/9130357/query", "Bearer qb-access-1", "75"
    )


def test_a_quickbooks_request_returns_the_json(quickbooks):
    assert quickbooks_request(quickbooks, "GET", "invoice/1042", session=Session(response(200, INVOICES))) == INVOICES


def test_a_quickbooks_401_refreshes_once_and_tries_again(quickbooks):
    session = Session(response(401, ""), response(200, INVOICES))
    new = {"access_token": "qb-access-2", "refresh_token": "qb-refresh-2", "expires_in": 3600}
    with intuit(response(200, new)):
        quickbooks_request(quickbooks, "GET", "query", session=session)
    assert [c["headers"]["Authorization"] for c in session.calls] == ["Bearer qb-access-1", "Bearer qb-access-2"]


def test_a_quickbooks_401_after_a_refresh_is_reauth(quickbooks):
    session = Session(response(401, ""), response(401, ""))
    new = {"access_token": "qb-access-2", "refresh_token": "qb-refresh-2", "expires_in": 3600}
    with intuit(response(200, new)), pytest.raises(ToolError) as caught:
        quickbooks_request(quickbooks, "GET", "query", session=session)
    assert (caught.value.kind, Connection.objects.get(pk=quickbooks.pk).status) == ("reauth", "needs_reconnect")


def test_a_quickbooks_request_with_an_expired_token_refreshes_first(org, app_settings):
    connection = save_quickbooks(org, expiry=an_hour_ago())
    session = Session(response(200, INVOICES))
    with intuit(response(200, {"access_token": "qb-access-2", "refresh_token": "qb-refresh-2", "expires_in": 3600})):
        quickbooks_request(connection, "GET", "query", session=session)
    assert session.calls[0]["headers"]["Authorization"] == "Bearer qb-access-2"


def test_quickbooks_unreachable_is_unavailable(quickbooks):
    import requests

    with pytest.raises(ToolError) as caught:
        quickbooks_request(quickbooks, "GET", "query", session=Session(requests.ConnectionError("refused")))
    assert caught.value.kind == "unavailable"


def test_a_quickbooks_fault_is_mapped(quickbooks):
    fault = {"Fault": {"Error": [{"Message": "Object Not Found", "Detail": "Object Not Found", "code": "610"}]}}
    with pytest.raises(ToolError) as caught:
        quickbooks_request(quickbooks, "GET", "invoice/9", session=Session(response(400, fault)))
    assert caught.value.kind == "not_found"


def test_production_uses_the_production_api(quickbooks, settings):
    settings.QUICKBOOKS_ENVIRONMENT = "production"
    session = Session(response(200, INVOICES))
    with mock.patch.dict("os.environ", {}):
        quickbooks_request(quickbooks, "GET", "query", session=session)
    assert session.calls[0]["url"].startswith("https://quickbooks.api.intuit.com/")
