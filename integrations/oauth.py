"""The apps' OAuth: configuration, the web flows' two halves, and credentials that refresh on their own.

Configuration (Django settings of the same name win over the environment, which is what tests override):
- Google: GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, optional GOOGLE_REDIRECT_URI (default: this server's
  /connections/google/callback, as the browser reached it).
- QuickBooks: QUICKBOOKS_CLIENT_ID, QUICKBOOKS_CLIENT_SECRET, QUICKBOOKS_ENVIRONMENT ("sandbox", the default, or
  "production"), optional QUICKBOOKS_REDIRECT_URI (default /connections/quickbooks/callback).
- Microsoft (OneDrive): MICROSOFT_CLIENT_ID, MICROSOFT_CLIENT_SECRET, MICROSOFT_TENANT ("common", the default),
  optional MICROSOFT_REDIRECT_URI (default /connections/microsoft/callback). The identity platform's v2.0
  authorization code flow with PKCE, over plain HTTPS (see integrations/__init__.py, "OneDrive": why not MSAL).

Refresh: a token is refreshed when it has expired (google-auth's own margin for Google; a minute for QuickBooks),
saved back encrypted with a compare-and-set (integrations.services.connection_tokens_save), and kept past a
rollback of the tool's transaction (integrations.durable). No transaction is open while a token endpoint is asked
(roadstar/network.py). QuickBooks refreshes under a claim on the connection (one worker at a time), and keeps the
NEW refresh token every time: Intuit rotates it, and the old one stops working.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import os
import secrets
import time
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from core.errors import ToolError
from core.network import network_call
from integrations import catalog
from integrations.crypto import TokensUnreadable
from integrations.errors import label_for, network_error, signed_out
from integrations.models import Connection
from integrations.services import connection_tokens_save

GOOGLE_AUTH_URI = "https://accounts.google.com/o/oauth2/auth"
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
GOOGLE_USERINFO_URI = "https://openidconnect.googleapis.com/v1/userinfo"

QUICKBOOKS_API = {
    "sandbox": "https://sandbox-quickbooks.api.intuit.com",
    "production": "https://quickbooks.api.intuit.com",
}
_QUICKBOOKS_MARGIN = datetime.timedelta(minutes=1)


def setting(name: str) -> str | None:
    """One of the OAuth settings declared in roadstar/settings/base.py (None when empty)."""
    return getattr(settings, name) or None


REQUIRED_ENV = {
    "google": ("GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"),
    "quickbooks": ("QUICKBOOKS_CLIENT_ID", "QUICKBOOKS_CLIENT_SECRET"),
    "microsoft": ("MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET"),
}


def missing_settings(app: str) -> list[str]:
    """The environment variables still to set before the owner can connect `app`."""
    return [name for name in REQUIRED_ENV.get(app, ()) if not setting(name)]


def quickbooks_environment() -> str:
    env = (setting("QUICKBOOKS_ENVIRONMENT") or "sandbox").lower()
    return "production" if env in ("production", "prod") else "sandbox"


def _is_invalid_grant(data) -> bool:
    if isinstance(data, dict):
        return data.get("error") == "invalid_grant"
    return "invalid_grant" in str(data)


def _iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    if timezone.is_naive(value):  # google-auth keeps expiry as naive UTC
        value = value.replace(tzinfo=datetime.UTC)
    return value.isoformat()


def _tokens_of(connection: Connection) -> dict:
    try:
        return connection.read_tokens()
    except TokensUnreadable as exc:
        # The key changed since these were stored: only the owner connecting again gets new ones.
        raise signed_out(connection, label=label_for(connection)) from exc


def credentials_for(connection: Connection):
    """What a provider calls its app with, refreshed when it has expired (the new tokens are saved back).

    google: a `google.oauth2.credentials.Credentials` that also saves any later refresh (googleapiclient refreshes
    on a 401 by itself). quickbooks and microsoft: the access token (str), refreshed under a claim; the new refresh
    token is kept after every refresh. local: None. A refresh the app refuses (invalid_grant) marks the connection
    needs_reconnect and raises ToolError("reauth", card=…); a network failure raises ToolError("unavailable").
    """
    if connection.app == Connection.App.GOOGLE:
        return google_credentials(connection)
    if connection.app == Connection.App.QUICKBOOKS:
        return quickbooks_access_token(connection)
    if connection.app == Connection.App.MICROSOFT:
        return microsoft_access_token(connection)
    return None


# --- Google ---------------------------------------------------------------------------------------------------


def google_client_config(redirect_uri: str) -> dict:
    return {
        "web": {
            "client_id": setting("GOOGLE_CLIENT_ID"),
            "client_secret": setting("GOOGLE_CLIENT_SECRET"),
            "auth_uri": GOOGLE_AUTH_URI,
            "token_uri": GOOGLE_TOKEN_URI,
            "redirect_uris": [redirect_uri],
        }
    }


def google_scopes(write_groups=()) -> list[str]:
    """What a Google sign-in asks for: identity and every group's read scope, and write scopes for write_groups."""
    info = catalog.GOOGLE
    scopes = list(info.identity_scopes)
    for group in info.groups:
        scopes.extend(info.ask_read[group])
        if group in write_groups:
            scopes.extend(info.ask_write[group])
    return list(dict.fromkeys(scopes))


def google_flow(*, scopes: list[str], redirect_uri: str, state: str | None = None, code_verifier: str | None = None):
    from google_auth_oauthlib.flow import Flow

    return Flow.from_client_config(
        google_client_config(redirect_uri), scopes=scopes, redirect_uri=redirect_uri, state=state,
        code_verifier=code_verifier,
    )


def google_authorization(*, redirect_uri: str, write_groups=(), login_hint: str | None = None) -> dict:
    """The first half: where to send the owner, and what the session keeps for the callback (state, PKCE verifier)."""
    scopes = google_scopes(write_groups)
    flow = google_flow(scopes=scopes, redirect_uri=redirect_uri)
    extra = {"login_hint": login_hint} if login_hint else {}
    url, state = flow.authorization_url(
        prompt="consent", access_type="offline", include_granted_scopes="true", **extra
    )
    return {"url": url, "state": state, "code_verifier": flow.code_verifier, "scopes": scopes,
            "redirect_uri": redirect_uri}


def google_finish(*, code: str, pending: dict) -> dict:
    """The second half: trade the code for tokens (with the PKCE verifier), and read whose account it is.

    Returns {"account", "scopes", "tokens"}.
    """
    # Google answers with every scope granted so far (include_granted_scopes), which oauthlib would otherwise
    # refuse as "scope has changed".
    os.environ.setdefault("OAUTHLIB_RELAX_TOKEN_SCOPE", "1")
    flow = google_flow(
        scopes=pending["scopes"], redirect_uri=pending["redirect_uri"], state=pending["state"],
        code_verifier=pending["code_verifier"],
    )
    network_call("trading Google's code for tokens")
    token = flow.fetch_token(code=code)
    scopes = token.get("scope") or pending["scopes"]
    if isinstance(scopes, str):
        scopes = scopes.split()
    expires_at = token.get("expires_at")
    expiry = datetime.datetime.fromtimestamp(expires_at, datetime.UTC).isoformat() if expires_at else None
    return {
        "account": _google_email(flow, token),
        "scopes": list(scopes),
        "tokens": {"access_token": token["access_token"], "refresh_token": token.get("refresh_token"),
                   "expiry": expiry},
    }


def _google_email(flow, token: dict) -> str:
    id_token = token.get("id_token")
    if id_token:
        from google.auth import jwt

        # The id token came straight from Google's token endpoint over TLS, which OpenID Connect (3.1.3.7)
        # accepts in place of checking its signature.
        claims = jwt.decode(id_token, verify=False)
        if claims.get("email"):
            return claims["email"]
    # The flow's own OAuth2Session holds the new token and sends it as a bearer.
    response = flow.oauth2session.get(GOOGLE_USERINFO_URI, timeout=30)
    response.raise_for_status()
    return response.json()["email"]


def google_transport():
    """The HTTP transport google-auth refreshes tokens through (tests put a fake one here)."""
    import google.auth.transport.requests

    return google.auth.transport.requests.Request()


def _google_credentials_class():
    from google.auth import exceptions as auth_exceptions
    from google.oauth2.credentials import Credentials

    class RoadstarCredentials(Credentials):
        """Google credentials that save every refresh back to their connection, and map a refused one."""

        connection: Connection | None = None

        def refresh(self, request):
            network_call("refreshing a Google sign-in")
            connection = self.connection
            try:
                super().refresh(request)
            except auth_exceptions.RefreshError as e:
                if connection is None:
                    raise
                data = e.args[1] if len(e.args) > 1 else e.args[0] if e.args else ""
                if _is_invalid_grant(data):
                    raise signed_out(connection, label=f"Google ({connection.account})") from e
                if getattr(e, "retryable", False):
                    raise network_error(e, label=f"Google ({connection.account})") from e
                raise ToolError(
                    "vendor", f"Google refused to refresh {connection.account}'s sign-in: {e.args[0]}"
                ) from e
            except auth_exceptions.TransportError as e:
                if connection is None:
                    raise
                raise network_error(e, label=f"Google ({connection.account})") from e
            if connection is not None:
                connection_tokens_save(
                    connection=connection,
                    tokens={"access_token": self.token, "refresh_token": self.refresh_token,
                            "expiry": _iso(self.expiry)},
                )

    return RoadstarCredentials


def google_credentials(connection: Connection):
    tokens = _tokens_of(connection)
    expiry = connection.token_expires_at
    credentials = _google_credentials_class()(
        token=tokens.get("access_token"),
        refresh_token=tokens.get("refresh_token"),
        token_uri=GOOGLE_TOKEN_URI,
        client_id=setting("GOOGLE_CLIENT_ID"),
        client_secret=setting("GOOGLE_CLIENT_SECRET"),
        scopes=connection.scopes or None,
        # google-auth compares expiry with a naive UTC now.
        expiry=expiry.astimezone(datetime.UTC).replace(tzinfo=None) if expiry else None,
    )
    credentials.connection = connection
    if not credentials.valid:
        credentials.refresh(google_transport())
    return credentials


# --- QuickBooks -----------------------------------------------------------------------------------------------


def quickbooks_auth_client(*, redirect_uri: str = "", refresh_token: str | None = None, realm_id: str | None = None):
    """intuit-oauth's AuthClient. Its constructor fetches Intuit's discovery document over the network."""
    from intuitlib.client import AuthClient

    network_call("Intuit's OAuth client")
    return AuthClient(
        setting("QUICKBOOKS_CLIENT_ID"), setting("QUICKBOOKS_CLIENT_SECRET"),
        redirect_uri or setting("QUICKBOOKS_REDIRECT_URI") or "", quickbooks_environment(),
        refresh_token=refresh_token, realm_id=realm_id,
    )


def quickbooks_authorization(*, redirect_uri: str) -> dict:
    from intuitlib.enums import Scopes

    client = quickbooks_auth_client(redirect_uri=redirect_uri)
    url = client.get_authorization_url([Scopes.ACCOUNTING])
    return {"url": url, "state": client.state_token, "redirect_uri": redirect_uri}


def quickbooks_finish(*, code: str, realm_id: str, pending: dict) -> dict:
    """Trade the code for tokens. Returns {"scopes", "tokens"}; the company's name is read with the new token."""
    client = quickbooks_auth_client(redirect_uri=pending["redirect_uri"])
    client.get_bearer_token(code, realm_id=realm_id)
    return {"scopes": [catalog.QUICKBOOKS_ACCOUNTING], "tokens": _quickbooks_tokens(client)}


def _quickbooks_tokens(client) -> dict:
    expiry = timezone.now() + datetime.timedelta(seconds=int(client.expires_in or 3600))
    tokens = {"access_token": client.access_token, "refresh_token": client.refresh_token, "expiry": expiry.isoformat()}
    if client.x_refresh_token_expires_in:
        refresh_expiry = timezone.now() + datetime.timedelta(seconds=int(client.x_refresh_token_expires_in))
        tokens["refresh_expiry"] = refresh_expiry.isoformat()
    return tokens


def _quickbooks_fresh(connection: Connection) -> bool:
    expires = connection.token_expires_at
    return expires is not None and expires - _QUICKBOOKS_MARGIN > timezone.now()


REFRESH_LEASE = datetime.timedelta(seconds=60)  # longer than a refresh may take (its timeout is 30 s)
REFRESH_WAIT = 45  # seconds a worker waits for another's refresh before it answers unavailable


def quickbooks_access_token(connection: Connection, *, force: bool = False, sleep=time.sleep) -> str:
    """A valid access token, refreshed when it has expired (or when `force`, after a 401): Intuit rotates refresh
    tokens (rotating_access_token)."""
    return rotating_access_token(connection, label=f"QuickBooks Online ({connection.account})", force=force,
                                 sleep=sleep, fresh=_quickbooks_fresh, refresh=_quickbooks_refresh)


Refreshed = tuple[dict | None, ToolError | Literal["signed_out"] | None]  # new tokens, or why not


def rotating_access_token(connection: Connection, *, label: str, force: bool, sleep,
                          fresh: Callable[[Connection], bool], refresh: Callable[[Connection, str], Refreshed]) -> str:
    """A valid access token of an app that rotates its refresh tokens (QuickBooks, Microsoft), so that two workers
    must never spend the same one. The worker that refreshes holds a claim on the connection (a conditional write,
    committed), not a row lock: no transaction stays open while the app is asked. The others wait for its tokens;
    a claim older than REFRESH_LEASE is a dead worker's."""
    if not force and fresh(connection):
        return _tokens_of(connection)["access_token"]
    seen = connection.token_version
    waited = 0.0
    while True:
        now = timezone.now()
        won = Connection.objects.filter(pk=connection.pk).filter(
            Q(refresh_claimed_until__isnull=True) | Q(refresh_claimed_until__lt=now)
        ).update(refresh_claimed_until=now + REFRESH_LEASE)
        _copy_tokens(Connection.objects.get(pk=connection.pk), connection)
        if won:
            break
        if connection.token_version != seen and fresh(connection):
            return _tokens_of(connection)["access_token"]  # the other worker's refresh
        if waited >= REFRESH_WAIT:
            raise ToolError("unavailable", f"{label}: another worker is refreshing its sign-in. Try again shortly.")
        sleep(0.5)
        waited += 0.5
    tokens: dict | None = None
    failure: ToolError | Literal["signed_out"] | None = None
    try:
        # Unless another worker refreshed before this claim: then its tokens are the ones to use.
        if not fresh(connection) or (force and connection.token_version == seen):
            tokens, failure = refresh(connection, label)
            if tokens is not None:
                connection_tokens_save(connection=connection, tokens=tokens)
    finally:
        Connection.objects.filter(pk=connection.pk).update(refresh_claimed_until=None)
    if isinstance(failure, ToolError):
        raise failure
    if failure == "signed_out":
        raise signed_out(connection, label=label)
    if tokens is None:  # another worker refreshed before this claim
        return _tokens_of(connection)["access_token"]
    return tokens["access_token"]


def _quickbooks_refresh(
    connection: Connection, label: str
) -> tuple[dict | None, ToolError | Literal["signed_out"] | None]:
    """New tokens from Intuit, or why not: "signed_out" (refused: connect again) or the ToolError to raise."""
    from intuitlib.exceptions import AuthClientError

    try:
        refresh_token = connection.read_tokens().get("refresh_token")
    except TokensUnreadable:
        return None, "signed_out"
    if not refresh_token:
        return None, "signed_out"
    try:
        client = quickbooks_auth_client(refresh_token=refresh_token, realm_id=connection.realm_id)
        client.refresh()
    except AuthClientError as e:
        try:
            body = e.response.json()
        except ValueError:
            body = e.content
        if _is_invalid_grant(body):
            return None, "signed_out"
        if e.status_code >= 500:
            return None, ToolError(
                "unavailable", f"{label} didn't answer properly (HTTP {e.status_code}). Try again later."
            )
        return None, ToolError("vendor", f"{label} refused to refresh its sign-in: HTTP {e.status_code}")
    except requests.RequestException as e:
        return None, network_error(e, label=label)
    return _quickbooks_tokens(client), None


def _copy_tokens(source: Connection, target: Connection) -> None:
    target.tokens, target.token_version = source.tokens, source.token_version
    target.token_expires_at, target.status = source.token_expires_at, source.status


# --- Microsoft (OneDrive) -------------------------------------------------------------------------------------
#
# The Microsoft identity platform's v2.0 endpoints, called directly: the authorization code flow with PKCE (RFC
# 7636) and the refresh token grant. Microsoft rotates refresh tokens like Intuit, so a refresh goes under the same
# claim as QuickBooks' (one worker spends a refresh token; the new one is kept every time).

MICROSOFT_LOGIN = "https://login.microsoftonline.com"
MICROSOFT_GRAPH_ME = "https://graph.microsoft.com/v1.0/me"
_MICROSOFT_MARGIN = datetime.timedelta(minutes=2)


def microsoft_session():
    """The HTTP session the identity platform's token endpoint is called through (tests put a fake one here)."""
    return requests.Session()


def _microsoft_endpoint(kind: str) -> str:
    tenant = setting("MICROSOFT_TENANT") or "common"
    return f"{MICROSOFT_LOGIN}/{tenant}/oauth2/v2.0/{kind}"


def microsoft_scopes(write_groups=()) -> list[str]:
    """What a Microsoft sign-in asks for: identity, offline access and files' read scope (and write when asked).
    Graph's permissions go fully named (https://graph.microsoft.com/Files.Read.All); the token answers short names."""
    info = catalog.MICROSOFT
    scopes = [s if s in ("openid", "email", "offline_access", "profile") else catalog.MS_GRAPH + s
              for s in info.identity_scopes]
    for group in info.groups:
        scopes.extend(catalog.MS_GRAPH + s for s in info.ask_read[group])
        if group in write_groups:
            scopes.extend(catalog.MS_GRAPH + s for s in info.ask_write[group])
    return list(dict.fromkeys(scopes))


def microsoft_granted(scope_text: str) -> list[str]:
    """The permissions a token answer granted, as the catalog names them (the Graph prefix taken off)."""
    return [s[len(catalog.MS_GRAPH):] if s.startswith(catalog.MS_GRAPH) else s for s in scope_text.split()]


def microsoft_authorization(*, redirect_uri: str, write_groups=(), login_hint: str | None = None) -> dict:
    """The first half: where to send the owner, and what the session keeps for the callback (state, PKCE verifier)."""
    verifier = secrets.token_urlsafe(64)[:96]
    state = secrets.token_urlsafe(24)
    scopes = microsoft_scopes(write_groups)
    # RFC 7636's S256: the verifier's SHA-256, base64url without padding.
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).decode().rstrip("=")
    params = {
        "client_id": setting("MICROSOFT_CLIENT_ID"), "response_type": "code", "redirect_uri": redirect_uri,
        "response_mode": "query", "scope": " ".join(scopes), "state": state, "code_challenge": challenge,
        "code_challenge_method": "S256",
        # select_account, so an owner signed in to one Microsoft account can connect another.
        "prompt": "select_account",
    }
    if login_hint:
        params["login_hint"] = login_hint
    return {"url": f"{_microsoft_endpoint('authorize')}?{urlencode(params)}", "state": state,
            "code_verifier": verifier, "scopes": scopes, "redirect_uri": redirect_uri}


class MicrosoftRefused(Exception):
    """The token endpoint refused: `error` is its code (invalid_grant: the sign-in is no longer good)."""

    def __init__(self, error: str, description: str = ""):
        super().__init__(f"{error}: {description}" if description else error)
        self.error = error


def _microsoft_token(data: dict) -> dict:
    """One call to the token endpoint. Raises MicrosoftRefused for a 4xx answer, ToolError for the rest."""
    network_call("the Microsoft identity platform's token endpoint")
    body = {"client_id": setting("MICROSOFT_CLIENT_ID"), "client_secret": setting("MICROSOFT_CLIENT_SECRET"), **data}
    try:
        response = microsoft_session().post(_microsoft_endpoint("token"), data=body, timeout=30,
                                            headers={"Accept": "application/json"})
    except requests.RequestException as e:
        raise network_error(e, label="Microsoft") from e
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    if 400 <= response.status_code < 500:
        raise MicrosoftRefused(str(answer.get("error") or f"HTTP {response.status_code}"),
                               str(answer.get("error_description") or "")[:300])
    if response.status_code >= 500 or not answer.get("access_token"):
        raise ToolError("unavailable", f"Microsoft didn't answer properly (HTTP {response.status_code}). Try again "
                                       "later.")
    return answer


def _microsoft_tokens(answer: dict) -> dict:
    expiry = timezone.now() + datetime.timedelta(seconds=int(answer.get("expires_in") or 3600))
    return {"access_token": answer["access_token"], "refresh_token": answer.get("refresh_token"),
            "expiry": expiry.isoformat()}


def microsoft_finish(*, code: str, pending: dict) -> dict:
    """The second half: trade the code (with the PKCE verifier) for tokens, and read whose account it is.

    Returns {"account", "scopes", "tokens"}."""
    answer = _microsoft_token({
        "grant_type": "authorization_code", "code": code, "redirect_uri": pending["redirect_uri"],
        "code_verifier": pending["code_verifier"], "scope": " ".join(pending["scopes"]),
    })
    scopes = microsoft_granted(answer.get("scope") or " ".join(pending["scopes"]))
    return {"account": _microsoft_account(answer), "scopes": scopes, "tokens": _microsoft_tokens(answer)}


def _microsoft_account(answer: dict) -> str:
    """The account's sign-in name: the id token's (straight from the token endpoint over TLS, which OpenID Connect
    3.1.3.7 accepts in place of its signature), else Graph's /me."""
    id_token = answer.get("id_token")
    if id_token:
        from google.auth import jwt

        claims = jwt.decode(id_token, verify=False)
        for claim in ("email", "preferred_username", "upn"):
            if claims.get(claim) and "@" in str(claims[claim]):
                return str(claims[claim])
    network_call("reading whose Microsoft account it is")
    response = microsoft_session().get(MICROSOFT_GRAPH_ME, timeout=30, params={"$select": "mail,userPrincipalName"},
                                       headers={"Authorization": f"Bearer {answer['access_token']}"})
    response.raise_for_status()
    me = response.json()
    return str(me.get("mail") or me.get("userPrincipalName"))


def _microsoft_fresh(connection: Connection) -> bool:
    expires = connection.token_expires_at
    return expires is not None and expires - _MICROSOFT_MARGIN > timezone.now()


def microsoft_access_token(connection: Connection, *, force: bool = False, sleep=time.sleep) -> str:
    """A valid Graph access token, refreshed when it has expired (or when `force`, after a 401): Microsoft rotates
    refresh tokens too (rotating_access_token)."""
    return rotating_access_token(connection, label=f"OneDrive ({connection.account})", force=force, sleep=sleep,
                                 fresh=_microsoft_fresh, refresh=_microsoft_refresh)


def _microsoft_refresh(
    connection: Connection, label: str
) -> tuple[dict | None, ToolError | Literal["signed_out"] | None]:
    try:
        refresh_token = connection.read_tokens().get("refresh_token")
    except TokensUnreadable:
        return None, "signed_out"
    if not refresh_token:
        return None, "signed_out"
    scopes = [catalog.MS_GRAPH + s if "." in s else s for s in connection.scopes] or microsoft_scopes()
    try:
        answer = _microsoft_token({"grant_type": "refresh_token", "refresh_token": refresh_token,
                                   "scope": " ".join(dict.fromkeys([*scopes, "offline_access"]))})
    except MicrosoftRefused as refused:
        # invalid_grant: consent withdrawn, password changed, the refresh token expired (90 days unused) or revoked;
        # interaction_required: the tenant asks for a new sign-in (MFA, conditional access).
        if refused.error in ("invalid_grant", "interaction_required", "consent_required", "unauthorized_client"):
            return None, "signed_out"
        return None, ToolError("vendor", f"{label}: Microsoft refused to refresh the sign-in ({refused}).")
    except ToolError as error:
        return None, error
    tokens = _microsoft_tokens(answer)
    if not tokens.get("refresh_token"):
        tokens["refresh_token"] = refresh_token
    return tokens, None
