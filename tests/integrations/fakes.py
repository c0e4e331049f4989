"""Stand-ins for the apps' far ends: token endpoints, Intuit's discovery document, complete fake providers.

Nothing here reaches the network: every HTTP exchange the code under test makes is answered from these.
"""

from __future__ import annotations

import base64
import json
from contextlib import contextmanager
from unittest import mock

import requests

from integrations.providers import registry
from integrations.providers.base import GROUP_BASES

GOOGLE_SETTINGS = {"GOOGLE_CLIENT_ID": "cid.apps.googleusercontent.com", "GOOGLE_CLIENT_SECRET": "g-secret"}
QUICKBOOKS_SETTINGS = {
    "QUICKBOOKS_CLIENT_ID": "qb-client", "QUICKBOOKS_CLIENT_SECRET": "qb-secret", "QUICKBOOKS_ENVIRONMENT": "sandbox",
}
NO_APP_SETTINGS = {k: None for k in (*GOOGLE_SETTINGS, *QUICKBOOKS_SETTINGS)}

INTUIT_DISCOVERY = {
    "issuer": "https://oauth.platform.intuit.com/op/v1",
    "authorization_endpoint": "https://appcenter.intuit.com/connect/oauth2",
    "token_endpoint": "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
    "userinfo_endpoint": "https://sandbox-accounts.platform.intuit.com/v1/openid_connect/userinfo",
    "revocation_endpoint": "https://developer.api.intuit.com/v2/oauth2/tokens/revoke",
    "jwks_uri": "https://oauth.platform.intuit.com/op/v1/jwks",
}


def response(
    status: int, body: dict | str = "", headers: dict | None = None, url: str = "https://x.test/"
) -> requests.Response:
    """A requests.Response as a server would send it."""
    r = requests.Response()
    r.url, r.request = url, requests.Request("POST", url).prepare()
    r.status_code = status
    r._content = (json.dumps(body) if isinstance(body, dict) else body).encode()
    r.headers.update({"Content-Type": "application/json", **(headers or {})})
    return r


def unsigned_id_token(claims: dict) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


class GoogleTokenEndpoint:
    """google-auth's transport (google.auth.transport.Request): answers a refresh with a fixed status and JSON."""

    class _Response:
        def __init__(self, status, body):
            self.status, self.headers, self.data = (
                status,
                {"content-type": "application/json"},
                json.dumps(body).encode(),
            )

    def __init__(self, status: int, body: dict):
        self.status, self.body, self.calls = status, body, []

    def __call__(self, url, method="GET", body=None, headers=None, timeout=None, **kwargs):
        self.calls.append({"url": url, "method": method, "body": body})
        return self._Response(self.status, self.body)


@contextmanager
def intuit(*answers: requests.Response):
    """Intuit's discovery document, and its token endpoint answering `answers` in turn. Yields the requests made."""
    from intuitlib.client import AuthClient

    made = []
    queue = list(answers)

    def request(self, method, url, **kwargs):
        made.append({"method": method, "url": url, **kwargs})
        return queue.pop(0)

    with mock.patch("intuitlib.client.get_discovery_doc", return_value=INTUIT_DISCOVERY), \
            mock.patch.object(AuthClient, "request", request):
        yield made


def complete_provider(group: str, name: str = "Fake"):
    """A provider class of `group` with every abstract method filled in (for the registry's tests)."""
    base = GROUP_BASES[group]
    body = {method: (lambda self, *a, **k: None) for method in base.__abstractmethods__}
    return type(f"{name}{group.title()}Provider", (base,), body)


@contextmanager
def providers(*pairs: tuple[str, str]):
    """The provider registry holding exactly complete fakes for `pairs` [(app, group)], restored afterwards."""
    saved, saved_loaded = registry.PROVIDERS, registry._loaded
    registry.PROVIDERS = saved.without(*saved)
    registry._loaded = True
    try:
        for app, group in pairs:
            registry.register_provider(app, group, complete_provider(group, name=app.title()))
        yield registry.PROVIDERS
    finally:
        registry.PROVIDERS = saved
        registry._loaded = saved_loaded


ALL_REAL = [("google", "mail"), ("google", "files"), ("google", "calendar"), ("microsoft", "files"),
            ("quickbooks", "books")]
