"""The owner's other apps, by their MCP address: Roadstar as an MCP client, signing in with OAuth.

The network half, with no database: every function here goes out (the app's metadata, its registration, its token
endpoint, its MCP server) and each first calls `network_call`, so none runs with a transaction open. The writes
are integrations/mcp_apps_services.py's; the tools over an app are tools/groups/apps.py's.

Sign-in, as the MCP authorization spec has a client do it, with the MCP SDK's own pieces where it has them (its
discovery-URL order, its metadata and registration models, PKCE parameters):
1. the protected-resource metadata (RFC 9728) names the app's authorization server and the resource;
2. the authorization server's metadata (RFC 8414 / OpenID discovery) names its endpoints and must offer S256;
3. Roadstar registers itself (RFC 7591) with its callback as the redirect URI;
4. the owner is sent to the authorize endpoint with a PKCE S256 challenge, a state and the resource (RFC 8707);
5. the callback trades the code (with the verifier) for tokens; refresh tokens are used as the app rotates them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import re
import secrets
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlencode, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth.oauth2 import PKCEParameters
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyUrl, ValidationError

from core.network import network_call

TIMEOUT = httpx2.Timeout(20.0, read=60.0)
URL_LIMIT = 500
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
CLIENT_NAME = "Roadstar"


class AppProblem(Exception):
    """The app can't be connected or used, for a reason the owner or an agent can read (message)."""


class AppUnreachable(AppProblem):
    """The app didn't answer (refused, timed out, DNS, TLS)."""


class AppSignedOut(AppProblem):
    """The app refuses Roadstar's sign-in (401 with fresh tokens, invalid_grant on a refresh)."""


def address_problem(url: str) -> str | None:
    """Why `url` can't be an app's MCP address, or None: https, or http to this machine only."""
    url = (url or "").strip()
    if not url:
        return "Give the app's MCP address, such as https://mcp.example.com/mcp."
    if len(url) > URL_LIMIT:
        return f"That address is {len(url)} characters; {URL_LIMIT} at most."
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return f"{url} isn't an address."
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and host in LOOPBACK:
        return None
    return f"{url} isn't an https address. An app's MCP address starts with https://."


def _get(http: httpx2.Client, url: str) -> httpx2.Response | None:
    try:
        return http.get(url, headers={"Accept": "application/json"})
    except httpx2.HTTPError as e:
        raise AppUnreachable(f"{urlsplit(url).netloc} didn't answer ({e.__class__.__name__}).") from e


def _json_model(response: httpx2.Response | None, model):
    if response is None or response.status_code != 200:
        return None
    try:
        return model.model_validate_json(response.content)
    except ValidationError:
        return None


@dataclass
class Discovered:
    resource: str
    metadata: OAuthMetadata


def discover(http: httpx2.Client, url: str) -> Discovered:
    """The app's resource and its authorization server's metadata."""
    network_call("an app's OAuth discovery")
    www_auth = None
    try:
        probe = http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"},
                          headers={"Accept": "application/json, text/event-stream"})
    except httpx2.HTTPError as e:
        raise AppUnreachable(f"Nothing answered at {url} ({e.__class__.__name__}).") from e
    if probe.status_code == 401:
        match = re.search(r'resource_metadata="([^"]+)"', probe.headers.get("www-authenticate", ""))
        www_auth = match.group(1) if match else None
    resource_meta = None
    for candidate in build_protected_resource_metadata_discovery_urls(www_auth, url):
        resource_meta = _json_model(_get(http, candidate), ProtectedResourceMetadata)
        if resource_meta is not None:
            break
    auth_server = str(resource_meta.authorization_servers[0]) if resource_meta else None
    resource = str(resource_meta.resource) if resource_meta else url
    metadata = None
    for candidate in build_oauth_authorization_server_metadata_discovery_urls(auth_server, url):
        metadata = _json_model(_get(http, candidate), OAuthMetadata)
        if metadata is not None:
            break
    if metadata is None:
        raise AppProblem(f"{url} doesn't say how to sign in to it (no OAuth metadata), so Roadstar can't connect it.")
    if "S256" not in (metadata.code_challenge_methods_supported or []):
        raise AppProblem(f"{urlsplit(url).netloc} doesn't offer PKCE with S256, which Roadstar signs in with.")
    return Discovered(resource=resource, metadata=metadata)


def register(http: httpx2.Client, metadata: OAuthMetadata, redirect_uri: str) -> OAuthClientInformationFull:
    if metadata.registration_endpoint is None:
        raise AppProblem("The app doesn't let Roadstar register itself (no dynamic client registration).")
    methods = metadata.token_endpoint_auth_methods_supported or ["client_secret_post"]
    auth_method: Literal["none", "client_secret_post"] = "none" if "none" in methods else "client_secret_post"
    body = OAuthClientMetadata(
        client_name=CLIENT_NAME, redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"], response_types=["code"],
        token_endpoint_auth_method=auth_method,
    ).model_dump(mode="json", exclude_none=True)
    network_call("an app's client registration")
    try:
        response = http.post(str(metadata.registration_endpoint), json=body)
    except httpx2.HTTPError as e:
        raise AppUnreachable(f"The app's registration didn't answer ({e.__class__.__name__}).") from e
    if response.status_code not in (200, 201):
        raise AppProblem(f"The app refused Roadstar's registration: {_oauth_error(response)}")
    try:
        return OAuthClientInformationFull.model_validate_json(response.content)
    except ValidationError as e:
        raise AppProblem("The app's answer to Roadstar's registration couldn't be read.") from e


def _oauth_error(response: httpx2.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    if isinstance(data, dict):
        return str(data.get("error_description") or data.get("error") or f"HTTP {response.status_code}")
    return f"HTTP {response.status_code}"


def start(*, url: str, redirect_uri: str) -> dict:
    """The first half: discover, register, and the address to send the owner to. Returns what the callback needs
    (kept in the owner's session) with `authorize_url`."""
    with httpx2.Client(timeout=TIMEOUT, follow_redirects=False) as http:
        found = discover(http, url)
        client = register(http, found.metadata, redirect_uri)
    pkce = PKCEParameters.generate()
    state = secrets.token_urlsafe(32)
    params = {
        "response_type": "code", "client_id": client.client_id, "redirect_uri": redirect_uri, "state": state,
        "code_challenge": pkce.code_challenge, "code_challenge_method": "S256", "resource": found.resource,
    }
    return {
        "url": url, "state": state, "verifier": pkce.code_verifier, "redirect_uri": redirect_uri,
        "authorize_url": f"{found.metadata.authorization_endpoint}?{urlencode(params)}",
        "oauth": {
            "client_id": client.client_id, "client_secret": client.client_secret,
            "token_endpoint": str(found.metadata.token_endpoint), "resource": found.resource,
        },
    }


def _tokens(response: httpx2.Response, previous_refresh: str | None = None) -> dict:
    data = response.json()
    expires_in = data.get("expires_in")
    expiry = (
        (datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=int(expires_in))).isoformat()
        if expires_in else None
    )
    return {"access_token": data["access_token"], "refresh_token": data.get("refresh_token") or previous_refresh,
            "expiry": expiry}


def _token_request(oauth: dict, form: dict) -> httpx2.Response:
    form = {**form, "client_id": oauth["client_id"], "resource": oauth["resource"]}
    if oauth.get("client_secret"):
        form["client_secret"] = oauth["client_secret"]
    network_call("an app's token endpoint")
    try:
        with httpx2.Client(timeout=TIMEOUT) as http:
            return http.post(oauth["token_endpoint"], data=form)
    except httpx2.HTTPError as e:
        raise AppUnreachable(f"The app's sign-in didn't answer ({e.__class__.__name__}).") from e


def finish(*, pending: dict, code: str) -> dict:
    """The second half: the code and the verifier for tokens."""
    response = _token_request(pending["oauth"], {
        "grant_type": "authorization_code", "code": code, "code_verifier": pending["verifier"],
        "redirect_uri": pending["redirect_uri"],
    })
    if response.status_code != 200:
        raise AppProblem(f"The app didn't accept the sign-in: {_oauth_error(response)}")
    return _tokens(response)


def refresh(*, oauth: dict, tokens: dict) -> dict:
    """New tokens from the refresh token (the app may rotate it: the new one is kept)."""
    if not tokens.get("refresh_token"):
        raise AppSignedOut("The app's sign-in ran out and it gave no way to renew it.")
    response = _token_request(oauth, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    if response.status_code in (400, 401):
        raise AppSignedOut(f"The app stopped accepting Roadstar's sign-in: {_oauth_error(response)}")
    if response.status_code != 200:
        raise AppUnreachable(f"The app's sign-in answered HTTP {response.status_code}.")
    return _tokens(response, tokens.get("refresh_token"))


def expired(tokens: dict, *, margin: datetime.timedelta = datetime.timedelta(seconds=60)) -> bool:
    expiry = tokens.get("expiry")
    if not expiry:
        return False
    return datetime.datetime.fromisoformat(expiry) - margin <= datetime.datetime.now(datetime.UTC)


# --- the app's MCP server ------------------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    instructions: str
    tools: list[dict]


def _run(coroutine_fn, *args):
    """Run an async SDK call from sync code: here, or in a thread of its own when this thread has a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_fn(*args))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine_fn(*args)).result()


def _unreachable(error: BaseException) -> bool:
    if isinstance(error, httpx2.TransportError):
        return True
    for inner in getattr(error, "exceptions", ()) or ():
        if _unreachable(inner):
            return True
    cause = error.__cause__ or error.__context__
    return cause is not None and cause is not error and _unreachable(cause)


async def _session(url: str, access_token: str, work, statuses: list[int]):
    async def seen(response):
        statuses.append(response.status_code)

    headers = {"Authorization": f"Bearer {access_token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT, event_hooks={"response": [seen]}) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await work(client)


def _call(url: str, access_token: str, work):
    network_call("an app's MCP server")
    # The SDK's client reports an HTTP 401 as a JSON-RPC error like any other: the statuses the app answered with
    # tell a refused sign-in apart.
    statuses: list[int] = []
    try:
        return _run(_session, url, access_token, work, statuses)
    except Exception as error:
        if 401 in statuses:
            raise AppSignedOut("The app refused Roadstar's sign-in.") from error
        if _unreachable(error):
            raise AppUnreachable(f"{urlsplit(url).netloc} didn't answer.") from error
        raise AppProblem(f"{urlsplit(url).netloc} answered in a way Roadstar couldn't read.") from error


def read_server(*, url: str, access_token: str) -> Server:
    """The app's name, instructions and tools (every page), as it declares them."""

    async def work(client):
        tools, cursor = [], None
        while True:
            listed = await client.list_tools(cursor=cursor)
            tools += listed.tools
            cursor = listed.next_cursor
            if not cursor:
                break
        server = client.server_info
        name = (server.title or server.name) if server is not None else ""
        return Server(
            name=name or urlsplit(url).hostname or "app", instructions=client.instructions or "",
            tools=[{
                "name": t.name, "title": t.title or (t.annotations.title if t.annotations else None) or "",
                "description": t.description or "", "inputSchema": t.input_schema,
                "annotations": t.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
                if t.annotations else {},
            } for t in tools],
        )

    return _call(url, access_token, work)


def call_tool(*, url: str, access_token: str, name: str, arguments: dict):
    """Call one of the app's tools: the SDK's CallToolResult."""

    async def work(client):
        return await client.call_tool(name, arguments)

    return _call(url, access_token, work)
