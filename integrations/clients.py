"""Calling the apps' APIs with a connection: the one place real providers build clients and meet failures.

- `google_service(connection, "gmail", "v1", http=None)`: a googleapiclient resource on the connection's
  credentials (refreshed and saved on their own), or on `http` in tests (HttpMock / HttpMockSequence: `build` can't
  take both). The discovery documents ship with the client: no network.
- `google_execute(request, connection=, group=, asked_by=)`: runs a request, mapping HttpError and network
  failures to the spec's kinds (integrations.errors).
- `graph_request(connection, "GET", "/me/drive/root/children")`: Microsoft Graph v1.0 with a bearer token refreshed
  on its own (and once more on a 401), errors mapped; `raw=True` gives the response (a file's bytes).
- `quickbooks_request(connection, "GET", "query", params={...})`: the QuickBooks Online REST API under
  /v3/company/<realm>/, with a bearer token refreshed on its own (and once more on a 401), errors mapped.
"""

from __future__ import annotations

import requests

from core.errors import ToolError
from core.network import network_call
from integrations.errors import from_google_http_error, from_graph_response, from_quickbooks_response, network_error
from integrations.oauth import (
    QUICKBOOKS_API,
    credentials_for,
    microsoft_access_token,
    quickbooks_access_token,
    quickbooks_environment,
)

# The oldest minor version Intuit still serves (minor versions 1 to 74 were retired in 2025).
QUICKBOOKS_MINOR_VERSION = "75"
TIMEOUT = 30


def google_service(connection, api: str, version: str, *, http=None):
    from googleapiclient.discovery import build

    if http is not None:
        return build(api, version, http=http, cache_discovery=False, static_discovery=True)
    return build(api, version, credentials=credentials_for(connection), cache_discovery=False, static_discovery=True)


def _network_errors() -> tuple[type[BaseException], ...]:
    import httplib2
    from google.auth import exceptions as auth_exceptions

    return (httplib2.HttpLib2Error, OSError, auth_exceptions.TransportError)


def google_execute(request, *, connection, group: str | None = None, asked_by=None, num_retries: int = 0):
    """Run a googleapiclient request. `num_retries` retries 429s and 5xx with backoff (googleapiclient's own)."""
    from googleapiclient.errors import HttpError
    from googleapiclient.http import BatchHttpRequest

    network_call("a Google API call")
    try:
        if isinstance(request, BatchHttpRequest):
            # Each part's answer goes to the batch's callback; a failure of the whole batch is raised here.
            return request.execute()
        return request.execute(num_retries=num_retries)
    except HttpError as e:
        raise from_google_http_error(e, connection=connection, group=group, asked_by=asked_by) from e
    except ToolError:
        raise
    except _network_errors() as e:
        raise network_error(e, label=f"Google ({connection.account})") from e


def quickbooks_url(connection, path: str) -> str:
    return f"{QUICKBOOKS_API[quickbooks_environment()]}/v3/company/{connection.realm_id}/{path.lstrip('/')}"


def quickbooks_request(
    connection, method: str, path: str, *, params: dict | None = None, json: dict | None = None, asked_by=None,
    session=None,
) -> dict:
    """One QuickBooks API call; its JSON answer. `session` is a requests.Session (tests pass a fake one)."""
    network_call("a QuickBooks API call")
    http = session or requests
    params = {"minorversion": QUICKBOOKS_MINOR_VERSION, **(params or {})}
    url = quickbooks_url(connection, path)

    def send(*, force: bool) -> requests.Response:
        token = quickbooks_access_token(connection, force=force)
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        try:
            return http.request(method, url, params=params, json=json, headers=headers, timeout=TIMEOUT)
        except requests.RequestException as e:
            raise network_error(e, label=f"QuickBooks Online ({connection.account})") from e

    response = send(force=False)
    if response.status_code == 401:
        # A 401 with a token we thought valid: it was revoked or rotated elsewhere. Refresh once and try again.
        response = send(force=True)
    if not 200 <= response.status_code < 300:
        raise from_quickbooks_response(response, connection=connection, asked_by=asked_by)
    return response.json()


def quickbooks_company_name(*, access_token: str, realm_id: str, session=None) -> str | None:
    """The company's name, read right after connecting; None when QuickBooks doesn't say."""
    network_call("reading the QuickBooks company's name")
    http = session or requests
    url = f"{QUICKBOOKS_API[quickbooks_environment()]}/v3/company/{realm_id}/companyinfo/{realm_id}"
    try:
        response = http.request(
            "GET", url, params={"minorversion": QUICKBOOKS_MINOR_VERSION}, timeout=TIMEOUT,
            headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json"},
        )
        if response.status_code != 200:
            return None
        return (response.json().get("CompanyInfo") or {}).get("CompanyName") or None
    except (requests.RequestException, ValueError):
        return None


GRAPH = "https://graph.microsoft.com/v1.0"


def graph_session():
    """What Graph is called through when a provider was given no session (tests put a recorded Graph here)."""
    return requests


def graph_request(
    connection, method: str, path: str, *, params: dict | None = None, json: dict | None = None,
    data: bytes | None = None, headers: dict | None = None, raw: bool = False, session=None, asked_by=None,
    absolute: bool = False, authorize: bool = True,
):
    """One Microsoft Graph call under /v1.0 (or, `absolute`, to a URL Graph gave: an upload session's). Its JSON
    answer, or with `raw` the response itself. `session` is a requests.Session (tests pass a recorded one). A file's
    content answers 302 to a pre-authorized download address, which requests follows without the bearer token."""
    network_call("a Microsoft Graph call")
    http = session or graph_session()
    url = path if absolute else GRAPH + path
    label = f"OneDrive ({connection.account})"

    def send(*, force: bool) -> requests.Response:
        sent = dict(headers or {})
        if authorize:
            sent["Authorization"] = f"Bearer {microsoft_access_token(connection, force=force)}"
        sent.setdefault("Accept", "application/json")
        try:
            return http.request(method, url, params=params, json=json, data=data, headers=sent, timeout=TIMEOUT)
        except requests.RequestException as e:
            raise network_error(e, label=label) from e

    response = send(force=False)
    if response.status_code == 401 and authorize:
        # Revoked or rotated elsewhere since it was stored: refresh once and try again.
        response = send(force=True)
    if not 200 <= response.status_code < 300:
        raise from_graph_response(response, connection=connection, asked_by=asked_by)
    if raw:
        return response
    if response.status_code == 204 or not response.content:
        return {}
    return response.json()
