"""The owner's pages and the OAuth web flows, with Google's and Intuit's endpoints answered here."""

import base64
import hashlib
from unittest import mock
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client

from core.models import Card
from integrations import catalog, services
from integrations.models import Connection
from integrations.signals import connected
from tests.factories import UserFactory
from tests.integrations.conftest import GOOGLE_READ, G
from tests.integrations.fakes import NO_APP_SETTINGS, intuit, response, unsigned_id_token

GOOGLE_TOKEN = {
    "access_token": "ya29.fresh", "refresh_token": "1//refresh", "expires_in": 3599, "token_type": "Bearer",
    "scope": " ".join(GOOGLE_READ), "id_token": unsigned_id_token({"email": "sam@fernhill.test", "sub": "1"}),
}


@pytest.fixture
def owner(org):
    client = Client()
    client.force_login(org.owner)
    return client


@pytest.fixture
def google_endpoint():
    """Google's token endpoint (and userinfo), as requests_oauthlib's session reaches them."""
    calls = []
    answers = {"token": GOOGLE_TOKEN, "userinfo": {"email": "sam@fernhill.test"}}

    def request(self, method, url, **kwargs):
        calls.append({"method": method, "url": url, **kwargs})
        return response(200, answers["userinfo" if "userinfo" in url else "token"], url=url)

    with mock.patch("requests_oauthlib.OAuth2Session.request", request):
        yield calls, answers


def _start(owner, app="google", **data):
    reply = owner.post(f"/connections/{app}/start", data)
    return reply, parse_qs(urlparse(reply["Location"]).query)


def _google_callback(owner, **extra):
    _, query = _start(owner)
    params = {"state": query["state"][0], "code": "4/auth-code", **extra}
    return owner.get("/connections/google/callback", params)


# --- pages ----------------------------------------------------------------------------------------------------


def test_the_pages_need_signing_in(org):
    assert Client().get("/connections/")["Location"].startswith("/login/")


def test_a_sign_in_without_a_workspace_finds_no_page(db):
    client = Client()
    client.force_login(UserFactory())
    assert client.get("/connections/").status_code == 404


def test_the_list_shows_the_workspaces_connections(owner, google):
    assert "sam@fernhill.test" in owner.get("/connections/").content.decode()


def test_the_list_never_shows_another_workspaces_connections(owner, other_org, app_settings):
    from tests.integrations.conftest import save_google

    save_google(other_org, account="alex@other.test")
    assert "alex@other.test" not in owner.get("/connections/").content.decode()


def test_the_connect_page_names_the_variables_to_set_when_google_is_not_set_up(owner, settings):
    for name, value in NO_APP_SETTINGS.items():
        setattr(settings, name, value)
    with mock.patch.dict("os.environ", {}, clear=False) as env:
        for name in NO_APP_SETTINGS:
            env.pop(name, None)
        page = owner.get("/connections/google/").content.decode()
    assert "GOOGLE_CLIENT_ID" in page and "GOOGLE_CLIENT_SECRET" in page and "/connections/google/callback" in page


def test_the_connect_page_offers_the_sign_in_when_set_up(owner, app_settings):
    assert 'action="/connections/google/start"' in owner.get("/connections/google/").content.decode()


def test_an_unknown_app_has_no_connect_page(owner):
    assert owner.get("/connections/dropbox/").status_code == 404


def test_starting_without_client_ids_goes_back_to_the_connect_page(owner, settings):
    settings.GOOGLE_CLIENT_ID = None
    with mock.patch.dict("os.environ", {}, clear=False) as env:
        env.pop("GOOGLE_CLIENT_ID", None)
        reply = owner.post("/connections/google/start")
    assert reply["Location"] == "/connections/google/"


# --- Google ---------------------------------------------------------------------------------------------------


def test_google_start_sends_the_owner_to_google_with_state(owner, app_settings):
    reply, query = _start(owner)
    assert reply["Location"].startswith("https://accounts.google.com/") and query["state"][0] == (
        owner.session["integrations.oauth.google"]["state"]
    )


def test_google_start_keeps_the_pkce_verifier_in_the_session(owner, app_settings):
    _, query = _start(owner)
    verifier = owner.session["integrations.oauth.google"]["code_verifier"]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    assert (query["code_challenge"][0], query["code_challenge_method"][0]) == (challenge, "S256")


def test_google_start_asks_for_offline_access_with_consent(owner, app_settings):
    _, query = _start(owner)
    assert (query["access_type"], query["prompt"], query["include_granted_scopes"]) == (
        ["offline"],
        ["consent"],
        ["true"],
    )


def test_google_start_asks_to_read_only_first(owner, app_settings):
    _, query = _start(owner)
    assert set(query["scope"][0].split()) == set(GOOGLE_READ)


def test_connecting_again_for_writing_asks_for_the_write_scopes_of_that_group(owner, app_settings):
    _, query = _start(owner, write="mail")
    assert set(query["scope"][0].split()) == set(GOOGLE_READ) | {G + "gmail.compose", G + "gmail.send"}


def test_connecting_an_account_again_hints_its_address(owner, google):
    _, query = _start(owner, account=google.account_key)
    assert query["login_hint"] == ["sam@fernhill.test"]


def test_the_google_callback_stores_the_connection(org, owner, app_settings, google_endpoint):
    _google_callback(owner)
    connection = Connection.objects.get(organization=org)
    assert (connection.app, connection.account, connection.groups, connection.read_tokens()["refresh_token"]) == (
        "google", "sam@fernhill.test", ["mail", "files", "calendar"], "1//refresh"
    )


def test_the_google_callback_sends_the_pkce_verifier_to_googles_token_endpoint(owner, app_settings, google_endpoint):
    calls, _ = google_endpoint
    _, query = _start(owner)
    verifier = owner.session["integrations.oauth.google"]["code_verifier"]
    owner.get("/connections/google/callback", {"state": query["state"][0], "code": "4/auth-code"})
    assert (calls[0]["url"], calls[0]["data"]["code_verifier"], calls[0]["data"]["code"]) == (
        "https://oauth2.googleapis.com/token", verifier, "4/auth-code"
    )


def test_the_google_callback_reads_the_account_from_userinfo_without_an_id_token(org, owner, app_settings,
                                                                                 google_endpoint):
    calls, answers = google_endpoint
    answers["token"] = {k: v for k, v in GOOGLE_TOKEN.items() if k != "id_token"}
    answers["userinfo"] = {"email": "studio@fernhill.test"}
    _google_callback(owner)
    assert Connection.objects.get(organization=org).account == "studio@fernhill.test"


def test_the_google_callback_goes_to_the_list_saying_what_was_connected(owner, app_settings, google_endpoint):
    reply = _google_callback(owner)
    page = owner.get(reply["Location"]).content.decode()
    assert reply["Location"] == "/connections/" and "Connected sam@fernhill.test" in page


def test_the_google_callback_resolves_the_card_that_asked(org, owner, app_settings, google_endpoint):
    card, _ = services.connect_card_open(org=org, app="google", group="mail", asked_by=services.Asker("a-1", "t-1"))
    _google_callback(owner)
    card.refresh_from_db()
    assert card.resolved_at is not None and card.data["asked_by"] == {"agent_id": "a-1", "conversation_id": "t-1"}


def test_the_google_callback_tells_the_runtime_through_the_signal(org, owner, app_settings, google_endpoint,
                                                                   django_capture_on_commit_callbacks):
    card, _ = services.connect_card_open(org=org, app="google", group="mail")
    heard = []
    receiver = lambda sender, **kw: heard.append((kw["connection"].account, [c.id for c in kw["cards"]]))  # noqa: E731
    connected.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            _google_callback(owner)
    finally:
        connected.disconnect(receiver)
    assert heard == [("sam@fernhill.test", [card.id])]


def test_a_callback_with_another_state_connects_nothing(org, owner, app_settings, google_endpoint):
    _start(owner)
    reply = owner.get("/connections/google/callback", {"state": "forged", "code": "4/auth-code"})
    assert (reply.status_code, Connection.objects.filter(organization=org).count()) == (400, 0)


def test_a_callback_can_not_be_replayed(org, owner, app_settings, google_endpoint):
    _, query = _start(owner)
    params = {"state": query["state"][0], "code": "4/auth-code"}
    owner.get("/connections/google/callback", params)
    assert owner.get("/connections/google/callback", params).status_code == 400


def test_a_refused_consent_connects_nothing_and_says_so(org, owner, app_settings):
    _, query = _start(owner)
    reply = owner.get("/connections/google/callback", {"state": query["state"][0], "error": "access_denied"})
    assert (
        "Nothing was connected" in reply.content.decode() and not Connection.objects.filter(organization=org).exists()
    )


def test_a_sign_in_that_allowed_none_of_the_apps_says_so(org, owner, app_settings, google_endpoint):
    _, answers = google_endpoint
    answers["token"] = {**GOOGLE_TOKEN, "scope": "openid " + G + "userinfo.email"}
    assert "none of Gmail, Drive or Calendar" in _google_callback(owner).content.decode()


def test_a_token_endpoint_that_refuses_the_code_shows_a_page_to_start_again(org, owner, app_settings):
    def refuse(self, method, url, **kwargs):
        return response(400, {"error": "invalid_grant", "error_description": "Bad Request"}, url=url)

    with mock.patch("requests_oauthlib.OAuth2Session.request", refuse):
        reply = _google_callback(owner)
    assert reply.status_code == 502 and not Connection.objects.filter(organization=org).exists()


# --- QuickBooks -----------------------------------------------------------------------------------------------

QB_TOKEN = {"access_token": "qb-access", "refresh_token": "qb-refresh", "expires_in": 3600,
            "x_refresh_token_expires_in": 8726400, "token_type": "bearer"}


def _quickbooks_callback(owner, company=None, realm="9130357"):
    with intuit() as made:
        _, query = _start(owner, app="quickbooks")
    company_info = response(200, {"CompanyInfo": {"CompanyName": company}}) if company else response(500, "")
    with intuit(response(200, QB_TOKEN)) as made, mock.patch("requests.request", return_value=company_info):
        reply = owner.get("/connections/quickbooks/callback",
                          {"state": query["state"][0], "code": "AB11", "realmId": realm})
    return reply, made


def test_quickbooks_start_sends_the_owner_to_intuit_with_state(owner, app_settings):
    with intuit():
        reply, query = _start(owner, app="quickbooks")
    assert reply["Location"].startswith("https://appcenter.intuit.com/connect/oauth2") and (
        query["state"][0] == owner.session["integrations.oauth.quickbooks"]["state"]
    ) and query["scope"] == [catalog.QUICKBOOKS_ACCOUNTING]


def test_the_quickbooks_callback_trades_the_code_for_tokens(owner, app_settings):
    _, made = _quickbooks_callback(owner, company="Fernhill Studio LLC")
    assert parse_qs(made[0]["data"])["code"] == ["AB11"]


def test_the_quickbooks_callback_stores_the_company_with_its_realm(org, owner, app_settings):
    _quickbooks_callback(owner, company="Fernhill Studio LLC")
    connection = Connection.objects.get(organization=org)
    assert (connection.app, connection.account, connection.realm_id, connection.groups,
            connection.read_tokens()["refresh_token"]) == (
        "quickbooks", "Fernhill Studio LLC", "9130357", ["books"], "qb-refresh"
    )


def test_a_quickbooks_company_that_gives_no_name_is_named_by_its_id(org, owner, app_settings):
    _quickbooks_callback(owner)
    assert Connection.objects.get(organization=org).account == "QuickBooks company 9130357"


def test_the_quickbooks_callback_resolves_the_books_card(org, owner, app_settings):
    card, _ = services.connect_card_open(org=org, app="quickbooks", group="books")
    _quickbooks_callback(owner, company="Fernhill Studio LLC")
    assert Card.objects.get(pk=card.pk).resolved_at is not None


def test_connecting_the_same_quickbooks_company_again_keeps_its_key(org, owner, app_settings):
    _quickbooks_callback(owner, company="Fernhill Studio LLC")
    key = Connection.objects.get(organization=org).account_key
    _quickbooks_callback(owner, company="Fernhill Studio")
    assert list(Connection.objects.filter(organization=org).values_list("account_key", "account")) == [
        (key, "Fernhill Studio")
    ]
