"""Outside apps sign in through Roadstar (the MCP authorization spec): the MCP SDK's own OAuth client
(`mcp.client.auth.OAuthClientProvider` over streamable HTTP) discovers, registers, is sent to the owner's consent
page, and gets tokens, against roadstar.asgi.application served by uvicorn on 127.0.0.1 in a thread.

The consent page is driven by an HTTP client holding the owner's session (GET the page, POST its form with the
CSRF token), not by Chromium: the same page and form, without the browser's start-up on a shared machine.
Then what the spec refuses: a code used twice, a wrong verifier, a foreign or plain-http redirect URI, a token
for another resource, an open redirect; Disconnect revokes at once; refresh tokens rotate.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
import uvicorn
from django.test import Client as DjangoClient
from django.test import override_settings
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from mcp_server import oauth, services
from mcp_server.models import McpOAuthToken, McpToken
from records.models import Contact
from tests.mcp_server.conftest import run

pytestmark = pytest.mark.django_db(transaction=True)

CALLBACK = "http://127.0.0.1:53682/callback"


@pytest.fixture(scope="module")
def live_url():
    """Roadstar on 127.0.0.1, with ROADSTAR_URL its own address: the issuer and the resource apps ask for."""
    from roadstar.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    overridden = override_settings(ROADSTAR_URL=url)
    overridden.enable()
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn didn't start"
        time.sleep(0.02)
    yield url
    server.should_exit = True
    thread.join(timeout=15)
    sock.close()
    overridden.disable()


@pytest.fixture
def owner_cookies(org):
    """The owner's signed-in session, as cookies for an HTTP client."""
    client = DjangoClient()
    client.force_login(org.owner)
    return {"sessionid": client.cookies["sessionid"].value}


class Memory:
    """The app's own token storage (TokenStorage), in memory."""

    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Refused(Exception):
    """The owner said no: the app's callback got an error, not a code."""


class Owner:
    """The owner at the consent page, in an HTTP client with their session: follows the app's authorize link to
    the page, answers it, and hands back where the browser was sent (never following it)."""

    def __init__(self, cookies: dict, *, agent=None, answer: str = "approve"):
        self.cookies, self.agent, self.answer = cookies, agent, answer
        self.page = ""
        self.sent_to = ""

    async def visit(self, authorize_url: str) -> None:
        async with httpx2.AsyncClient(cookies=self.cookies, timeout=30) as http:
            first = await http.get(authorize_url)
            assert first.status_code == 302, first.text
            consent_url = first.headers["location"]
            page = await http.get(consent_url)
            assert page.status_code == 200, page.text
            self.page = page.text
            csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            form = {"csrfmiddlewaretoken": csrf, "answer": self.answer}
            if self.agent is not None:
                form["agent"] = str(self.agent.id)
            answered = await http.post(consent_url, data=form, headers={"Referer": consent_url})
            assert answered.status_code == 302, answered.text
            self.sent_to = answered.headers["location"]

    async def callback(self) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(self.sent_to).query)
        if "code" not in query:
            raise Refused(query["error"][0])
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])


def app_metadata(name="Desk helper", redirect=CALLBACK, auth="none") -> OAuthClientMetadata:
    return OAuthClientMetadata(
        client_name=name, redirect_uris=[redirect], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method=auth,
    )


async def sign_in_and_use(url: str, owner: Owner, storage: Memory, *calls):
    auth = OAuthClientProvider(
        server_url=f"{url}/mcp", client_metadata=app_metadata(), storage=storage,
        redirect_handler=owner.visit, callback_handler=owner.callback,
    )
    async with httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30.0, read=60.0)) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            results = [await client.call_tool(name, args) for name, args in calls]
    return names, results


def text(result) -> dict:
    return json.loads(result.content[0].text)


# --- the whole sign-in, with the SDK's client ----------------------------------------------------------------------


def test_an_app_signs_in_through_the_owners_consent_and_uses_the_tools(live_url, owner_cookies, desk, dana):
    owner, storage = Owner(owner_cookies, agent=desk), Memory()
    names, (made, checked) = run(
        sign_in_and_use, live_url, owner, storage,
        ("use_tool", {"name": "contacts.create", "input": {"name": "Priya Shah"}}),
        ("use_tool", {"name": "contacts.update", "input": {"contactId": str(dana.id), "name": "Dana W."}}),
    )
    # The consent page named the app and where it sends the owner back.
    assert "Desk helper" in owner.page and "127.0.0.1:53682" in owner.page and "Client desk" in owner.page
    assert names == ["hand_off", "remember", "browse_tools", "find_tools", "use_tool", "skills"]
    assert Contact.objects.get(id=text(made)["id"]).name == "Priya Shah"
    # Signing in gives no owner's yes: a change to the owner's record still waits for it.
    assert "not_done_yet" in text(checked) and Contact.objects.get(id=dana.id).name == "Dana Whitfield"
    connection = McpToken.objects.get(client__isnull=False)
    assert connection.agent == desk and connection.organization == desk.organization
    assert connection.name == "Desk helper" and connection.last_used_at is not None
    # Stored hashed: neither token's value is in the database.
    tokens = McpOAuthToken.objects.filter(connection=connection)
    values = {storage.tokens.access_token, storage.tokens.refresh_token}
    assert {t.kind for t in tokens} == {"access", "refresh"}
    assert not values & {t.token_hash for t in tokens}
    assert all(t.resource == f"{live_url}/mcp" for t in tokens)


def test_the_metadata_names_the_endpoints_pkce_s256_only(live_url):
    meta = httpx2.get(f"{live_url}/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == live_url
    assert meta["authorization_endpoint"] == f"{live_url}/authorize"
    assert meta["registration_endpoint"] == f"{live_url}/register"
    assert meta["code_challenge_methods_supported"] == ["S256"]
    resource = httpx2.get(f"{live_url}/.well-known/oauth-protected-resource/mcp").json()
    assert resource["resource"] == f"{live_url}/mcp" and resource["authorization_servers"] == [live_url]


def test_the_owner_refusing_sends_access_denied_and_makes_nothing(live_url, owner_cookies, desk):
    owner = Owner(owner_cookies, agent=desk, answer="refuse")
    # The SDK's client finds no code at its callback; its task groups wrap what the callback raised.
    with pytest.raises(BaseExceptionGroup) as caught:
        run(sign_in_and_use, live_url, owner, Memory())
    assert caught.group_contains(Refused, match="access_denied", depth=None)
    query = parse_qs(urlsplit(owner.sent_to).query)
    assert owner.sent_to.startswith(CALLBACK) and query["error"] == ["access_denied"]
    assert not McpToken.objects.filter(client__isnull=False).exists()


# --- by hand: each step the SDK's client takes, so each refusal can be tried ---------------------------------------


def register(url, redirect=CALLBACK, auth="none"):
    return httpx2.post(f"{url}/register", json=app_metadata(redirect=redirect, auth=auth).model_dump(mode="json"))


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def authorize_url(url, client_id, challenge, *, redirect=CALLBACK, resource=None, state="s1"):
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "state": state,
              "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource or f"{url}/mcp"}
    return f"{url}/authorize?{urlencode(params)}"


def approved_code(url, cookies, agent, client_id, challenge, **kwargs) -> str:
    owner = Owner(cookies, agent=agent)
    run(owner.visit, authorize_url(url, client_id, challenge, **kwargs))
    query = parse_qs(urlsplit(owner.sent_to).query)
    assert query["state"] == [kwargs.get("state", "s1")]
    return query["code"][0]


def exchange(url, client_id, code, verifier, redirect=CALLBACK):
    return httpx2.post(f"{url}/token", data={
        "grant_type": "authorization_code", "client_id": client_id, "code": code, "code_verifier": verifier,
        "redirect_uri": redirect,
    })


def mcp_status(url, access_token) -> int:
    headers = {"Authorization": f"Bearer {access_token}", "Accept": "application/json, text/event-stream"}
    response = httpx2.post(
        f"{url}/mcp", headers=headers,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    return response.status_code


@pytest.fixture
def app_client(live_url):
    registered = register(live_url)
    assert registered.status_code == 201, registered.text
    return registered.json()["client_id"]


def test_a_code_used_twice_is_refused_and_revokes_what_it_gave(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    first = exchange(live_url, app_client, code, verifier)
    assert first.status_code == 200, first.text
    assert mcp_status(live_url, first.json()["access_token"]) == 200
    again = exchange(live_url, app_client, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # The replay revoked the tokens the code gave: a thief's copy of the code is worth nothing, and neither is
    # what it was traded for.
    assert mcp_status(live_url, first.json()["access_token"]) == 401


def test_a_wrong_verifier_is_refused(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    wrong = exchange(live_url, app_client, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert exchange(live_url, app_client, code, verifier).status_code == 200


def test_plain_pkce_is_refused(live_url, app_client):
    params = {"response_type": "code", "client_id": app_client, "redirect_uri": CALLBACK, "state": "s",
              "code_challenge": "x" * 43, "code_challenge_method": "plain"}
    refused = httpx2.get(f"{live_url}/authorize?{urlencode(params)}")
    assert refused.status_code == 302 and "error=invalid_request" in refused.headers["location"]
    assert "/connections/mcp/authorize/" not in refused.headers["location"]


@pytest.mark.parametrize("uri", [
    "http://app.example.com/callback", "ftp://example.com/cb", "cursor://callback", "https://app.example.com/cb#x",
])
def test_a_redirect_uri_neither_https_nor_loopback_is_refused_at_registration(live_url, uri):
    refused = register(live_url, redirect=uri)
    assert refused.status_code == 400 and refused.json()["error"] in ("invalid_redirect_uri", "invalid_client_metadata")


def test_https_and_loopback_redirect_uris_register(live_url):
    assert register(live_url, redirect="https://app.example.com/callback").status_code == 201
    assert register(live_url, redirect="http://localhost:3000/cb").status_code == 201


def test_an_unregistered_redirect_uri_is_never_redirected_to(live_url, app_client):
    """An open redirect: an authorize link naming the attacker's address gets an error page, not a redirect."""
    verifier, challenge = pkce()
    response = httpx2.get(authorize_url(live_url, app_client, challenge, redirect="https://evil.example/steal"))
    assert response.status_code == 400 and "location" not in response.headers


def test_a_token_for_another_resource_is_refused(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    response = httpx2.get(authorize_url(live_url, app_client, challenge, resource="https://other.example/mcp"))
    assert response.status_code == 302
    sent = response.headers["location"]
    assert sent.startswith(CALLBACK) and "error=invalid_target" in sent  # the app hears why; no consent page


def test_a_token_issued_for_another_resource_gets_401_at_mcp(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    access = exchange(live_url, app_client, code, verifier).json()["access_token"]
    McpOAuthToken.objects.filter(kind="access").update(resource="https://other.example/mcp")
    assert mcp_status(live_url, access) == 401


def test_refresh_tokens_rotate_and_a_replayed_one_revokes_the_connection(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    first = exchange(live_url, app_client, code, verifier).json()

    def refresh(token):
        return httpx2.post(f"{live_url}/token", data={
            "grant_type": "refresh_token", "client_id": app_client, "refresh_token": token})

    second = refresh(first["refresh_token"])
    assert second.status_code == 200 and second.json()["refresh_token"] != first["refresh_token"]
    assert second.json()["expires_in"] == 3600
    assert mcp_status(live_url, second.json()["access_token"]) == 200
    replay = refresh(first["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert mcp_status(live_url, second.json()["access_token"]) == 401
    assert refresh(second.json()["refresh_token"]).status_code == 400


def test_an_expired_access_token_is_refused(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    access = exchange(live_url, app_client, code, verifier).json()["access_token"]
    McpOAuthToken.objects.filter(kind="access").update(expires_at="2020-01-01T00:00:00Z")
    assert mcp_status(live_url, access) == 401


def test_disconnect_revokes_at_once(live_url, owner_cookies, desk, app_client, org):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    tokens = exchange(live_url, app_client, code, verifier).json()
    assert mcp_status(live_url, tokens["access_token"]) == 200
    connection = McpToken.objects.get(client_id=app_client)
    page = httpx2.get(f"{live_url}/connections/mcp/", cookies=owner_cookies).text
    assert "Desk helper" in page and "works as Client desk" in page and "Disconnect" in page
    services.mcp_token_revoke(org=org, token_id=connection.id)
    assert mcp_status(live_url, tokens["access_token"]) == 401
    refreshed = httpx2.post(f"{live_url}/token", data={
        "grant_type": "refresh_token", "client_id": app_client, "refresh_token": tokens["refresh_token"]})
    assert refreshed.status_code == 400


def test_the_app_signing_itself_out_disconnects_it(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    code = approved_code(live_url, owner_cookies, desk, app_client, challenge)
    tokens = exchange(live_url, app_client, code, verifier).json()
    # The SDK's revocation request model wants the client_secret field present, empty for a public client.
    revoked = httpx2.post(f"{live_url}/revoke", data={
        "client_id": app_client, "client_secret": "", "token": tokens["access_token"]})
    assert revoked.status_code == 200
    assert mcp_status(live_url, tokens["access_token"]) == 401
    assert McpToken.objects.get(client_id=app_client).revoked_at is not None


def test_a_consent_link_is_answered_once_and_only_by_a_signed_in_owner(live_url, owner_cookies, desk, app_client):
    verifier, challenge = pkce()
    consent = httpx2.get(authorize_url(live_url, app_client, challenge)).headers["location"]
    anonymous = httpx2.get(consent)
    assert anonymous.status_code == 302 and "/login/" in anonymous.headers["location"]
    with httpx2.Client(cookies=owner_cookies) as http:
        page = http.get(consent)
        # The answer's redirect goes to the app: the page's CSP lets its form go there, and only there.
        assert "form-action 'self' http://127.0.0.1:53682;" in page.headers["content-security-policy"] + ";"
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        first = http.post(consent, data={"csrfmiddlewaretoken": csrf, "agent": str(desk.id)},
                          headers={"Referer": consent})
        assert first.status_code == 302 and first.headers["location"].startswith(CALLBACK)
        second = http.post(consent, data={"csrfmiddlewaretoken": csrf, "agent": str(desk.id)},
                           headers={"Referer": consent})
        assert second.status_code == 404 and "location" not in second.headers
        assert "expired" in second.text


def test_another_workspaces_agent_cant_be_chosen(live_url, owner_cookies, app_client, other_org):
    from tests.factories import AgentFactory

    theirs = AgentFactory(organization=other_org, name="Their desk")
    verifier, challenge = pkce()
    consent = httpx2.get(authorize_url(live_url, app_client, challenge)).headers["location"]
    with httpx2.Client(cookies=owner_cookies) as http:
        page = http.get(consent)
        assert "Their desk" not in page.text
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        refused = http.post(consent, data={"csrfmiddlewaretoken": csrf, "agent": str(theirs.id)},
                            headers={"Referer": consent})
    assert refused.status_code == 400 and "Choose which agent" in refused.text
    assert not McpToken.objects.filter(client_id=app_client).exists()


def test_registration_keeps_a_secret_encrypted(live_url):
    registered = register(live_url, auth="client_secret_post").json()
    row, secret = oauth.oauth_client(registered["client_id"])
    assert secret == registered["client_secret"] and registered["client_secret"] not in row.secret_encrypted


# --- the official TypeScript SDK's client ---------------------------------------------------------------------------

TS_CLIENT = Path(__file__).parent / "ts_client"


def test_the_typescript_sdk_client_signs_in_and_uses_the_tools(live_url, owner_cookies, desk, dana):
    """A client no one here wrote: @modelcontextprotocol/sdk's, in node (tests/mcp_server/ts_client/sign_in.mjs),
    the consent given by an HTTP client with the owner's session."""
    node = shutil.which("node")
    if node is None or not (TS_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("needs node, and `npm install` in tests/mcp_server/ts_client (the TypeScript MCP SDK)")
    done = subprocess.run(
        [node, "sign_in.mjs", f"{live_url}/mcp", owner_cookies["sessionid"], str(desk.id)],
        cwd=TS_CLIENT, capture_output=True, text=True, timeout=120,
    )
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    out = json.loads(lines[-1])
    assert "error" not in out, out["error"]
    assert out["tools"] == ["hand_off", "remember", "browse_tools", "find_tools", "use_tool", "skills"]
    assert [c["name"] for c in out["contacts"]["items"]] == ["Dana Whitfield"]
    assert out["refused"] == 401
    connection = McpToken.objects.get(client__name="TypeScript desk")
    assert connection.agent == desk and mcp_status(live_url, out["access"]) == 200


def test_a_plain_http_address_elsewhere_keeps_tokens_working(settings):
    """OAuth wants an https issuer: on http://studio.lan Roadstar serves /mcp with connection tokens only."""
    from mcp_server.server import build_app, signs_in_apps

    settings.ROADSTAR_URL = "http://studio.lan:8000"
    settings.ALLOWED_HOSTS = ["studio.lan"]
    assert not signs_in_apps()
    app, _ = build_app()
    paths = {getattr(route, "path", "") for route in app.routes}
    assert "/mcp" in paths and "/authorize" not in paths
    settings.ROADSTAR_URL = "https://studio.example.com"
    assert signs_in_apps()
