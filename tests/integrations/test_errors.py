"""Provider failures map to the spec's error kinds: Google's HttpError and QuickBooks' answers."""

import json

import httplib2
import pytest
from googleapiclient.errors import HttpError

from core.models import Card
from integrations.errors import from_google_http_error, from_quickbooks_response, network_error
from integrations.models import Connection
from tests.integrations.fakes import response


def http_error(status: int, reason: str = "", message: str = "It went wrong", status_word: str = "") -> HttpError:
    error = {"code": status, "message": message, "errors": [{"reason": reason, "message": message}] if reason else []}
    if status_word:
        error["status"] = status_word
    return HttpError(httplib2.Response({"status": str(status)}), json.dumps({"error": error}).encode(), uri="https://x")


@pytest.mark.parametrize(
    "error, kind",
    [
        (http_error(404, "notFound", "File not found: 1Qm"), "not_found"),
        (http_error(410, "deleted"), "not_found"),
        (http_error(429, "rateLimitExceeded"), "rate_limited"),
        (http_error(403, "rateLimitExceeded"), "rate_limited"),
        (http_error(403, "userRateLimitExceeded"), "rate_limited"),
        (http_error(403, "forbidden", "The user does not have sufficient permissions for this file."), "forbidden"),
        (http_error(403, "insufficientPermissions", "Request had insufficient authentication scopes."), "reauth"),
        (http_error(401, "authError", "Invalid Credentials"), "reauth"),
        (http_error(500, "backendError"), "unavailable"),
        (http_error(503), "unavailable"),
        (http_error(400, "invalidArgument", "Invalid query"), "vendor"),
        (http_error(412, "conditionNotMet"), "changed"),
    ],
)
def test_google_http_errors_map_to_their_kind(error, kind):
    assert from_google_http_error(error).kind == kind


def test_a_google_error_without_json_is_vendor_with_the_status():
    error = HttpError(httplib2.Response({"status": "418"}), b"<html>teapot</html>")
    assert from_google_http_error(error).kind == "vendor"


def test_the_vendor_message_carries_googles_words(google):
    error = from_google_http_error(
        http_error(400, "invalid", "Invalid range: Sheet9!A1"), connection=google, group="files"
    )
    assert error.message == "Google Drive (sam@fernhill.test) said: Invalid range: Sheet9!A1"


def test_insufficient_scopes_put_a_write_card_on_home(google):
    error = from_google_http_error(http_error(403, "insufficientPermissions"), connection=google, group="mail")
    card = Card.objects.get(kind="reconnect")
    assert (error.card, card.data["write_groups"]) == (card.title, ["mail"])


def test_insufficient_scopes_in_error_details_are_reauth(google):
    content = {"error": {"code": 403, "message": "scopes", "status": "PERMISSION_DENIED",
                         "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                      "reason": "ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}
    error = HttpError(httplib2.Response({"status": "403"}), json.dumps(content).encode())
    assert from_google_http_error(error, connection=google, group="calendar").kind == "reauth"


def test_a_401_marks_the_connection_needs_reconnect(google):
    from_google_http_error(http_error(401, "authError"), connection=google, group="mail")
    assert Connection.objects.get(pk=google.pk).status == Connection.Status.NEEDS_RECONNECT


@pytest.mark.parametrize(
    "status, body, kind",
    [
        (400, {"Fault": {"Error": [{"Message": "Object Not Found", "Detail": "Object Not Found : gone", "code": "610"}],
                         "type": "ValidationFault"}}, "not_found"),
        (404, "", "not_found"),
        (401, {"fault": {"error": [{"message": "message=AuthenticationFailed; errorCode=003200; statusCode=401",
                                    "detail": "Token expired", "code": "3200"}], "type": "AUTHENTICATION"}}, "reauth"),
        (403, {"Fault": {"Error": [{"Message": "Unauthorized", "code": "5020"}], "type": "AuthorizationFault"}},
         "forbidden"),
        (429, {"Fault": {"Error": [{"Message": "ThrottleExceeded", "code": "3001"}], "type": "ThrottleFault"}},
         "rate_limited"),
        (503, "<html>down</html>", "unavailable"),
        (400, {"Fault": {"Error": [{"Message": "Stale Object Error", "code": "5010"}]}}, "changed"),
        (400, {"Fault": {"Error": [{"Message": "Error parsing query", "Detail": "QueryParserError", "code": "4000"}],
                         "type": "ValidationFault"}}, "vendor"),
    ],
)
def test_quickbooks_answers_map_to_their_kind(status, body, kind):
    assert from_quickbooks_response(response(status, body)).kind == kind


def test_the_quickbooks_vendor_message_carries_its_detail():
    body = {"Fault": {"Error": [{"Message": "Error parsing query", "Detail": "QueryParserError: bad", "code": "4000"}]}}
    assert from_quickbooks_response(response(400, body)).message == "QuickBooks Online said: QueryParserError: bad"


def test_a_quickbooks_401_with_a_connection_comes_with_a_reconnect_card(quickbooks):
    error = from_quickbooks_response(response(401, ""), connection=quickbooks)
    assert error.card == "Connect Fernhill Studio LLC again"


def test_a_network_failure_is_unavailable():
    assert network_error(ConnectionError("refused"), label="Gmail").kind == "unavailable"


def test_a_failure_names_the_account_app_and_key(google):
    from core.errors import ToolError
    from integrations.errors import failure

    assert failure(google, ToolError("rate_limited", "Slow down")) == {
        "source": "sam@fernhill.test", "kind": "rate_limited", "message": "Slow down", "integration": "google",
        "connection": google.account_key,
    }
