"""Outside apps that sign in through Roadstar: the writes and reads behind the OAuth authorization server.

The protocol (metadata, the /authorize, /token, /register and /revoke endpoints, PKCE's check, the redirect
URI's exact match, the client's authentication) is the MCP SDK's (`mcp.server.auth`), served beside /mcp; it
calls mcp_server.oauth_provider, which calls these, in a worker thread. What is Roadstar's own is here:

- a registration keeps the app's name and redirect URIs; a redirect URI is https, or http to this machine
  (loopback) for a desktop app, and nothing else; a confidential client's secret is kept encrypted;
- an authorization request waits for the owner's consent page (`McpOAuthRequest`), which names the app and
  where it sends them back; approving makes the app's connection (an McpToken with its own OUTSIDE
  conversation, working as the agent the owner chose) and a single-use code; refusing sends the app
  `access_denied`;
- tokens: access tokens an hour long, refresh tokens rotated on every use, every one bound to the resource it
  was asked for (RFC 8707: Roadstar's /mcp, nothing else), only their SHA-256 kept, each the workspace's;
- a code used twice, or a refresh token used twice, is a stolen copy or a replay: refused, and the connection's
  tokens revoked (RFC 6749 §4.1.2, OAuth 2.1's refresh-token rotation);
- Disconnect (mcp_server.services.mcp_token_revoke) revokes the connection: its tokens stop at once.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.db import transaction
from django.utils import timezone

from agents.models import Agent, Conversation
from core.errors import ToolError
from integrations import crypto
from mcp_server.models import McpOAuthClient, McpOAuthCode, McpOAuthRequest, McpOAuthToken, McpToken
from mcp_server.services import TOUCH_EVERY, token_hash

ACCESS_TTL = datetime.timedelta(hours=1)
REFRESH_TTL = datetime.timedelta(days=30)
CODE_TTL = datetime.timedelta(minutes=5)
REQUEST_TTL = datetime.timedelta(minutes=15)

ACCESS_PREFIX = "rsa_"
REFRESH_PREFIX = "rsr_"
CODE_PREFIX = "rsc_"
NAME_LIMIT = 200
REDIRECT_URIS_LIMIT = 10
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


class RedirectUriRefused(ValueError):
    """A redirect URI Roadstar won't send an owner to: not https, and not this machine's loopback."""


def redirect_uri_problem(uri: str) -> str | None:
    """Why `uri` can't be a redirect URI, or None. https anywhere (a web app), http only to the loopback
    address (a desktop app listening on this machine, RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2)."""
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:
        return f"{uri!r} is not an address"
    if parts.fragment:
        return f"{uri} has a fragment (#…); a redirect URI can't"
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return None
    return f"{uri} is neither https nor http to this machine (127.0.0.1, localhost, [::1])"


def same_resource(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


# --- registration (RFC 7591) --------------------------------------------------------------------------------------


def oauth_client_register(*, client_id: str, metadata: dict, secret: str | None) -> McpOAuthClient:
    """Keep an app's registration. `metadata` is the SDK's validated registration, without the secret."""
    uris = [str(u) for u in metadata.get("redirect_uris") or []]
    if not uris:
        raise RedirectUriRefused("redirect_uris: give at least one")
    if len(uris) > REDIRECT_URIS_LIMIT:
        raise RedirectUriRefused(f"redirect_uris: {len(uris)} given; {REDIRECT_URIS_LIMIT} at most")
    for uri in uris:
        problem = redirect_uri_problem(uri)
        if problem:
            raise RedirectUriRefused(f"redirect_uris: {problem}")
    name = " ".join(str(metadata.get("client_name") or "").split())[:NAME_LIMIT] or "An app with no name"
    return McpOAuthClient.objects.create(
        client_id=client_id, name=name, redirect_uris=uris, metadata=metadata,
        secret_encrypted=crypto.encrypt({"secret": secret}) if secret else "",
    )


def oauth_client(client_id: str) -> tuple[McpOAuthClient, str | None] | None:
    """The registered app and its secret (None for a public client), or None."""
    row = McpOAuthClient.objects.filter(client_id=client_id).first()
    if row is None:
        return None
    secret = crypto.decrypt(row.secret_encrypted).get("secret") if row.secret_encrypted else None
    return row, secret


# --- the authorization request and the owner's consent --------------------------------------------------------


def oauth_request_open(
    *, client_id: str, state: str | None, scopes: list[str], code_challenge: str, redirect_uri: str,
    redirect_uri_explicit: bool, resource: str,
) -> str:
    """Keep an authorization request the SDK checked (client, redirect URI, PKCE challenge) until the owner
    answers it on the consent page; returns the key in that page's address."""
    key = secrets.token_urlsafe(32)
    McpOAuthRequest.objects.create(
        key_hash=token_hash(key), client_id=client_id, state=state or "", scopes=scopes,
        code_challenge=code_challenge, redirect_uri=redirect_uri, redirect_uri_explicit=redirect_uri_explicit,
        resource=resource, expires_at=timezone.now() + REQUEST_TTL,
    )
    return key


def oauth_request(key: str) -> McpOAuthRequest | None:
    """The request waiting for an answer under this key: None when unknown, answered or expired."""
    if not key:
        return None
    return (
        McpOAuthRequest.objects.select_related("client")
        .filter(key_hash=token_hash(key), answered_at__isnull=True, expires_at__gt=timezone.now())
        .first()
    )


def with_params(uri: str, **params: str) -> str:
    """`uri` with these query parameters added to its own (a redirect URI may have a query; RFC 6749 §3.1.2)."""
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True) + [(k, v) for k, v in params.items() if v]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _answer(key: str) -> McpOAuthRequest:
    row = (
        McpOAuthRequest.objects.select_for_update().select_related("client")
        .filter(key_hash=token_hash(key)).first()
    )
    if row is None or row.answered_at is not None or row.expires_at <= timezone.now():
        raise ToolError(
            "not_found", "This sign-in has expired or was already answered; start it again from the app."
        )
    row.answered_at = timezone.now()
    row.save(update_fields=["answered_at"])
    return row


def oauth_consent_approve(*, org, key: str, agent: Agent) -> tuple[McpToken, str]:
    """The owner lets the app in, working as `agent`: its connection and a single-use code. Returns the
    connection and the address to send the owner's browser back to (the app's registered redirect URI)."""
    if agent.organization_id != org.id:
        raise ToolError("not_found", f"No agent {agent.name!r} in this workspace.")
    code = CODE_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        request = _answer(key)
        conversation = Conversation.objects.create(
            organization=org, agent=agent, kind=Conversation.Kind.OUTSIDE, title=request.client.name[:120]
        )
        connection = McpToken.objects.create(
            organization=org, agent=agent, conversation=conversation, client=request.client,
            name=request.client.name[:120],
            # The row's own token is never shown: the app signs in with the access tokens below.
            token_hash=token_hash(secrets.token_urlsafe(32)), hint="OAuth",
        )
        McpOAuthCode.objects.create(
            code_hash=token_hash(code), organization=org, connection=connection, client=request.client,
            scopes=request.scopes, code_challenge=request.code_challenge, redirect_uri=request.redirect_uri,
            redirect_uri_explicit=request.redirect_uri_explicit, resource=request.resource,
            expires_at=timezone.now() + CODE_TTL,
        )
    return connection, with_params(request.redirect_uri, code=code, state=request.state)


def oauth_consent_refuse(*, key: str) -> str:
    """The owner refuses: the app hears `access_denied` at its redirect URI; nothing is made."""
    with transaction.atomic():
        request = _answer(key)
    return with_params(
        request.redirect_uri, error="access_denied", error_description="The owner said no.", state=request.state
    )


# --- codes and tokens -------------------------------------------------------------------------------------------


@dataclass
class Issued:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: list[str]


def _issue(connection_id, org_id, client_id: str, scopes: list[str], resource: str) -> Issued:
    access = ACCESS_PREFIX + secrets.token_urlsafe(32)
    refresh = REFRESH_PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    common = {"organization_id": org_id, "connection_id": connection_id, "client_id": client_id,
              "scopes": scopes, "resource": resource}
    McpOAuthToken.objects.bulk_create([
        McpOAuthToken(token_hash=token_hash(access), kind=McpOAuthToken.Kind.ACCESS, expires_at=now + ACCESS_TTL,
                      **common),
        McpOAuthToken(token_hash=token_hash(refresh), kind=McpOAuthToken.Kind.REFRESH,
                      expires_at=now + REFRESH_TTL, **common),
    ])
    return Issued(access, refresh, int(ACCESS_TTL.total_seconds()), scopes)


def _revoke_connection_tokens(connection_id) -> None:
    McpOAuthToken.objects.filter(connection_id=connection_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def oauth_code(*, client_id: str, code: str) -> McpOAuthCode | None:
    """The unused code for this client. A code presented again after its use is a replay: the tokens it gave
    are revoked (RFC 6749 §4.1.2), and it finds nothing."""
    row = (
        McpOAuthCode.objects.select_related("connection")
        .filter(code_hash=token_hash(code or ""), client_id=client_id)
        .first()
    )
    if row is None or row.connection.revoked_at is not None:
        return None
    if row.used_at is not None:
        _revoke_connection_tokens(row.connection_id)
        return None
    return row


def oauth_code_exchange(*, code_hash: str) -> Issued | None:
    """Use the code once: its tokens, or None when another request used it first."""
    with transaction.atomic():
        used = McpOAuthCode.objects.filter(code_hash=code_hash, used_at__isnull=True).update(used_at=timezone.now())
        if not used:
            return None
        row = McpOAuthCode.objects.get(code_hash=code_hash)
        return _issue(row.connection_id, row.organization_id, row.client_id, row.scopes, row.resource)


def oauth_refresh(*, client_id: str, refresh_token: str) -> McpOAuthToken | None:
    """The live refresh token for this client. One presented again after its rotation is a replay: the
    connection's tokens are revoked, and it finds nothing."""
    if not (refresh_token or "").startswith(REFRESH_PREFIX):
        return None
    row = (
        McpOAuthToken.objects.select_related("connection")
        .filter(token_hash=token_hash(refresh_token), kind=McpOAuthToken.Kind.REFRESH, client_id=client_id)
        .first()
    )
    if row is None or row.revoked_at is not None or row.connection.revoked_at is not None:
        return None
    if row.used_at is not None:
        _revoke_connection_tokens(row.connection_id)
        return None
    return row


def oauth_refresh_exchange(*, token_hash_: str, scopes: list[str]) -> Issued | None:
    """Rotate: the refresh token is used up, and a new access and refresh token are issued."""
    with transaction.atomic():
        used = McpOAuthToken.objects.filter(
            token_hash=token_hash_, kind=McpOAuthToken.Kind.REFRESH, used_at__isnull=True, revoked_at__isnull=True
        ).update(used_at=timezone.now())
        if not used:
            return None
        row = McpOAuthToken.objects.get(token_hash=token_hash_)
        return _issue(row.connection_id, row.organization_id, row.client_id, scopes, row.resource)


def oauth_access_sign_in(plaintext: str) -> tuple[McpToken, McpOAuthToken] | None:
    """The connection a live access token signs in as, and the token (its resource, expiry); None for an
    unknown, expired or revoked token or a disconnected app."""
    if not plaintext or not plaintext.startswith(ACCESS_PREFIX):
        return None
    now = timezone.now()
    row = (
        McpOAuthToken.objects.select_related(
            "connection", "connection__agent", "connection__organization", "connection__conversation"
        )
        .filter(token_hash=token_hash(plaintext), kind=McpOAuthToken.Kind.ACCESS, revoked_at__isnull=True,
                expires_at__gt=now, connection__revoked_at__isnull=True)
        .first()
    )
    if row is None:
        return None
    connection = row.connection
    if connection.last_used_at is None or now - connection.last_used_at > TOUCH_EVERY:
        McpToken.objects.filter(id=connection.id).update(last_used_at=now)
        connection.last_used_at = now
    return connection, row


def oauth_access(*, plaintext: str) -> McpOAuthToken | None:
    """A live access token, for the revocation endpoint (which checks it is the asking client's)."""
    if not (plaintext or "").startswith(ACCESS_PREFIX):
        return None
    return McpOAuthToken.objects.filter(
        token_hash=token_hash(plaintext), kind=McpOAuthToken.Kind.ACCESS, revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).first()


def oauth_token_revoke(*, token_hash_: str, client_id: str) -> None:
    """The app signs itself out (RFC 7009): its connection is disconnected, all its tokens with it. An unknown
    token changes nothing, as the RFC asks."""
    row = (
        McpOAuthToken.objects.filter(token_hash=token_hash_, client_id=client_id)
        .select_related("connection").first()
    )
    if row is None:
        return
    with transaction.atomic():
        _revoke_connection_tokens(row.connection_id)
        now = timezone.now()
        McpToken.objects.filter(id=row.connection_id, revoked_at__isnull=True).update(revoked_at=now)
        Conversation.objects.filter(id=row.connection.conversation_id, closed_at__isnull=True).update(closed_at=now)
