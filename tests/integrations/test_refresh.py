"""Tokens refresh on their own, are saved back encrypted, and a refused refresh asks the owner to connect again."""

from unittest import mock
from urllib.parse import parse_qs

import pytest
from google.oauth2.credentials import Credentials

from core.errors import ToolError
from core.models import Card
from integrations.models import Connection
from integrations.oauth import credentials_for
from tests.integrations.conftest import an_hour_ago, save_google, save_quickbooks
from tests.integrations.fakes import GoogleTokenEndpoint, intuit, response

NEW_GOOGLE_TOKEN = {"access_token": "g-access-2", "expires_in": 3599, "token_type": "Bearer"}
INVALID_GRANT = {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}


def _google_endpoint(status, body):
    endpoint = GoogleTokenEndpoint(status, body)
    return endpoint, mock.patch("integrations.oauth.google_transport", return_value=endpoint)


@pytest.fixture
def expired_google(org, app_settings):
    return save_google(org, expiry=an_hour_ago())


@pytest.fixture
def expired_quickbooks(org, app_settings):
    return save_quickbooks(org, expiry=an_hour_ago())


# --- Google ---------------------------------------------------------------------------------------------------


def test_google_credentials_are_googles_with_the_refresh_token_and_client(google):
    credentials = credentials_for(google)
    assert isinstance(credentials, Credentials) and (
        credentials.token, credentials.refresh_token, credentials.client_id, credentials.token_uri
    ) == ("g-access-1", "g-refresh-1", "cid.apps.googleusercontent.com", "https://oauth2.googleapis.com/token")


def test_valid_google_credentials_are_not_refreshed(google):
    endpoint, patch = _google_endpoint(200, NEW_GOOGLE_TOKEN)
    with patch:
        credentials_for(google)
    assert endpoint.calls == []


def test_expired_google_credentials_are_refreshed_with_the_refresh_token(expired_google):
    endpoint, patch = _google_endpoint(200, NEW_GOOGLE_TOKEN)
    with patch:
        credentials_for(expired_google)
    assert parse_qs(endpoint.calls[0]["body"].decode())["refresh_token"] == ["g-refresh-1"]


def test_a_google_refresh_saves_the_new_token_encrypted(expired_google):
    _, patch = _google_endpoint(200, NEW_GOOGLE_TOKEN)
    with patch:
        credentials_for(expired_google)
    stored = Connection.objects.get(pk=expired_google.pk)
    assert (
        stored.read_tokens()["access_token"],
        stored.read_tokens()["refresh_token"],
        "g-access-2" in stored.tokens,
    ) == ("g-access-2", "g-refresh-1", False)


def test_a_google_refresh_moves_the_expiry_on(expired_google):
    _, patch = _google_endpoint(200, NEW_GOOGLE_TOKEN)
    with patch:
        credentials_for(expired_google)
    stored = Connection.objects.get(pk=expired_google.pk)
    assert stored.token_expires_at > expired_google.created_at


def test_a_refused_google_refresh_is_reauth_with_a_card(expired_google):
    _, patch = _google_endpoint(400, INVALID_GRANT)
    with patch, pytest.raises(ToolError) as caught:
        credentials_for(expired_google)
    assert (caught.value.kind, caught.value.card) == ("reauth", "Connect sam@fernhill.test again")


def test_a_refused_google_refresh_marks_the_connection_needs_reconnect(expired_google):
    _, patch = _google_endpoint(400, INVALID_GRANT)
    with patch, pytest.raises(ToolError):
        credentials_for(expired_google)
    assert Connection.objects.get(pk=expired_google.pk).status == Connection.Status.NEEDS_RECONNECT


def test_a_google_refresh_that_fails_on_googles_side_is_unavailable(expired_google):
    _, patch = _google_endpoint(503, {"error": "temporarily_unavailable"})
    with patch, mock.patch("time.sleep"), pytest.raises(ToolError) as caught:
        credentials_for(expired_google)
    assert caught.value.kind == "unavailable"


def test_a_refused_refresh_inside_a_tool_stays_marked_after_the_tool_fails(org, expired_google, use, probe_tool):
    probe_tool(lambda ctx, inp: credentials_for(Connection.objects.get(pk=expired_google.pk)))
    _, patch = _google_endpoint(400, INVALID_GRANT)
    with patch:
        result = use("integrations.probe")
    assert (result["error"], Connection.objects.get(pk=expired_google.pk).status,
            Card.objects.filter(organization=org, kind="reconnect").count()) == ("reauth", "needs_reconnect", 1)


def test_a_refreshed_token_stays_saved_when_the_tool_then_fails(expired_google, use, probe_tool):
    def refresh_then_fail(ctx, inp):
        credentials_for(Connection.objects.get(pk=expired_google.pk))
        raise ToolError("not_found", "No such file")

    probe_tool(refresh_then_fail)
    _, patch = _google_endpoint(200, NEW_GOOGLE_TOKEN)
    with patch:
        use("integrations.probe")
    assert Connection.objects.get(pk=expired_google.pk).read_tokens()["access_token"] == "g-access-2"


# --- QuickBooks -----------------------------------------------------------------------------------------------

NEW_QB_TOKEN = {"access_token": "qb-access-2", "refresh_token": "qb-refresh-2", "expires_in": 3600,
                "x_refresh_token_expires_in": 8726400, "token_type": "bearer"}


def test_a_valid_quickbooks_token_is_used_without_asking_intuit(quickbooks):
    with intuit() as made:
        assert credentials_for(quickbooks) == "qb-access-1"
    assert made == []


def test_an_expired_quickbooks_token_is_refreshed_with_the_refresh_token(expired_quickbooks):
    with intuit(response(200, NEW_QB_TOKEN)) as made:
        credentials_for(expired_quickbooks)
    assert parse_qs(made[0]["data"])["refresh_token"] == ["qb-refresh-1"]


def test_a_quickbooks_refresh_returns_the_new_access_token(expired_quickbooks):
    with intuit(response(200, NEW_QB_TOKEN)):
        assert credentials_for(expired_quickbooks) == "qb-access-2"


def test_a_quickbooks_refresh_keeps_the_new_refresh_token(expired_quickbooks):
    with intuit(response(200, NEW_QB_TOKEN)):
        credentials_for(expired_quickbooks)
    assert Connection.objects.get(pk=expired_quickbooks.pk).read_tokens()["refresh_token"] == "qb-refresh-2"


def test_the_next_quickbooks_refresh_spends_the_new_refresh_token(expired_quickbooks):
    with intuit(response(200, NEW_QB_TOKEN), response(200, {**NEW_QB_TOKEN, "refresh_token": "qb-refresh-3"})) as made:
        credentials_for(expired_quickbooks)
        from integrations.oauth import quickbooks_access_token

        quickbooks_access_token(Connection.objects.get(pk=expired_quickbooks.pk), force=True)
    assert parse_qs(made[1]["data"])["refresh_token"] == ["qb-refresh-2"]


def test_a_refused_quickbooks_refresh_is_reauth_and_needs_reconnect(expired_quickbooks):
    with intuit(response(400, {"error": "invalid_grant"})), pytest.raises(ToolError) as caught:
        credentials_for(expired_quickbooks)
    assert (caught.value.kind, Connection.objects.get(pk=expired_quickbooks.pk).status) == ("reauth", "needs_reconnect")


def test_a_refused_quickbooks_refresh_puts_a_reconnect_card_on_home(org, expired_quickbooks):
    with intuit(response(400, {"error": "invalid_grant"})), pytest.raises(ToolError):
        credentials_for(expired_quickbooks)
    assert Card.objects.get(organization=org).title == "Connect Fernhill Studio LLC again"


def test_a_quickbooks_token_endpoint_down_is_unavailable(expired_quickbooks):
    with intuit(response(502, "<html>bad gateway</html>")), pytest.raises(ToolError) as caught:
        credentials_for(expired_quickbooks)
    assert caught.value.kind == "unavailable"


def test_a_quickbooks_token_another_worker_refreshed_is_used_as_it_is(expired_quickbooks):
    stale = Connection.objects.get(pk=expired_quickbooks.pk)
    with intuit(response(200, NEW_QB_TOKEN)) as made:
        credentials_for(expired_quickbooks)
        assert credentials_for(stale) == "qb-access-2"
    assert len(made) == 1


def test_a_local_connection_has_no_credentials(local):
    assert credentials_for(local) is None


# --- QuickBooks: one refresh at a time, with no transaction open ---------------------------------------------


def test_a_quickbooks_refresh_another_worker_is_making_is_waited_for_and_its_token_used(expired_quickbooks):
    """Another worker holds the refresh claim: this one waits (no transaction, no row lock held) and uses the tokens
    that worker saved, without spending the refresh token again."""
    import datetime

    from django.utils import timezone

    from integrations.oauth import quickbooks_access_token
    from integrations.services import connection_tokens_save

    Connection.objects.filter(pk=expired_quickbooks.pk).update(
        refresh_claimed_until=timezone.now() + datetime.timedelta(seconds=60))
    waits = []

    def other_worker_finishes(seconds):
        waits.append(seconds)
        other = Connection.objects.get(pk=expired_quickbooks.pk)
        connection_tokens_save(
            connection=other,
            tokens={
                "access_token": "qb-access-9",
                "refresh_token": "qb-refresh-9",
                "expiry": (timezone.now() + datetime.timedelta(hours=1)).isoformat(),
            },
        )
        Connection.objects.filter(pk=other.pk).update(refresh_claimed_until=None)

    with intuit() as made:
        token = quickbooks_access_token(expired_quickbooks, sleep=other_worker_finishes)
    assert (token, made, len(waits)) == ("qb-access-9", [], 1)


def test_a_dead_workers_quickbooks_refresh_claim_is_taken_over_after_its_lease(expired_quickbooks):
    import datetime

    from django.utils import timezone

    from integrations.oauth import quickbooks_access_token

    Connection.objects.filter(pk=expired_quickbooks.pk).update(
        refresh_claimed_until=timezone.now() - datetime.timedelta(seconds=1))
    with intuit(response(200, NEW_QB_TOKEN)) as made:
        token = quickbooks_access_token(expired_quickbooks, sleep=lambda s: pytest.fail("it waited"))
    saved = Connection.objects.get(pk=expired_quickbooks.pk)
    assert (token, len(made), saved.refresh_claimed_until, saved.read_tokens()["refresh_token"]) == (
        "qb-access-2", 1, None, "qb-refresh-2"
    )


def test_a_quickbooks_refresh_held_too_long_by_another_worker_is_unavailable(expired_quickbooks):
    import datetime

    from django.utils import timezone

    from integrations.oauth import quickbooks_access_token

    Connection.objects.filter(pk=expired_quickbooks.pk).update(
        refresh_claimed_until=timezone.now() + datetime.timedelta(seconds=60))
    with intuit() as made, pytest.raises(ToolError) as caught:
        quickbooks_access_token(expired_quickbooks, sleep=lambda s: None)
    assert (caught.value.kind, made) == ("unavailable", [])


@pytest.mark.django_db(transaction=True)
def test_a_quickbooks_refresh_asks_intuit_with_no_transaction_open(org, app_settings, monkeypatch):
    from django.db import connection

    from integrations import oauth

    expired = save_quickbooks(org, expiry=an_hour_ago())
    seen = []
    real = oauth._quickbooks_refresh

    def refresh(conn, label):
        seen.append(connection.in_atomic_block)
        return real(conn, label)

    monkeypatch.setattr(oauth, "_quickbooks_refresh", refresh)
    with intuit(response(200, NEW_QB_TOKEN)):
        assert oauth.quickbooks_access_token(expired) == "qb-access-2"
    assert seen == [False]
