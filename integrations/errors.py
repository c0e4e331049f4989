"""Provider failures mapped to the spec's error kinds, in one place (spec/reference/errors.md).

- `from_google_http_error(e, connection=, group=, asked_by=)` for googleapiclient's HttpError
- `from_quickbooks_response(response, connection=, asked_by=)` for a QuickBooks API answer that isn't 2xx
- `from_graph_response(response, connection=, group=, asked_by=)` for a Microsoft Graph answer that isn't 2xx
- `network_error(e, label)` for a request that got no answer (DNS, refused, timeout, TLS)
- `failure(connection, error)`: one account's ToolError as the spec's `Failure`, for a search's `failed`

Each returns a ToolError for the caller to raise. With a `connection`, the errors that need the owner (`reauth`)
come with their card on Home, as the spec asks: an expired sign-in marks the connection needs_reconnect, and a
missing write scope asks the owner to connect again for writing.
"""

from __future__ import annotations

import json

from core.errors import ToolError
from integrations import services

_RATE_REASONS = {
    "ratelimitexceeded", "userratelimitexceeded", "quotaexceeded", "dailylimitexceeded", "rate_limit_exceeded",
    "resource_exhausted", "backenderror_ratelimited",
}
_SCOPE_REASONS = {"insufficientpermissions", "access_token_scope_insufficient", "insufficientscopes"}


def _google_reasons(content: bytes) -> tuple[set[str], str]:
    """The lower-cased reasons Google gave (errors[].reason, details[].reason, status) and its message."""
    try:
        data = json.loads(content.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return set(), ""
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        # The OAuth endpoints answer {"error": "invalid_grant", "error_description": "..."}.
        if isinstance(error, str):
            return {error.lower()}, str(data.get("error_description") or error)
        return set(), ""
    reasons = set()
    for item in (error.get("errors") or []) + (error.get("details") or []):
        if isinstance(item, dict) and item.get("reason"):
            reasons.add(str(item["reason"]).lower())
    if error.get("status"):
        reasons.add(str(error["status"]).lower())
    return reasons, str(error.get("message") or "")


def label_for(connection, group: str | None = None, default: str = "") -> str:
    """How messages name an account: "Gmail (sam@fernhill.test)"."""
    if connection is None:
        return default
    info = connection.app_info
    if group and group in info.group_labels:
        return f"{info.group_labels[group]} ({connection.account})"
    return f"{info.label} ({connection.account})"


def from_google_http_error(e, *, connection=None, group: str | None = None, asked_by=None) -> ToolError:
    status = int(getattr(e.resp, "status", 0) or 0)
    reasons, message = _google_reasons(e.content or b"")
    message = message or getattr(e, "reason", "") or f"HTTP {status}"
    label = label_for(connection, group, "Google")
    if status == 429 or (status == 403 and reasons & _RATE_REASONS):
        return ToolError("rate_limited", f"{label} is limiting requests: {message}. Wait, then try once more.")
    if status == 401:
        return signed_out(connection, label=label, asked_by=asked_by)
    if status == 403 and reasons & _SCOPE_REASONS:
        return needs_write(connection, group=group, label=label, asked_by=asked_by)
    if status == 403:
        return ToolError("forbidden", f"{label} doesn't allow this: {message}")
    if status in (404, 410):
        return ToolError("not_found", f"Nothing at that id in {label}, or it was moved: {message}")
    if status == 412:
        return ToolError("changed", f"It changed in {label} since it was read: {message}. Read it again first.")
    if status == 413:
        return ToolError("too_large", f"Too large for {label}: {message}")
    if status >= 500:
        return ToolError("unavailable", f"{label} didn't answer properly (HTTP {status}). Try again later.")
    return ToolError("vendor", f"{label} said: {message}")


def _quickbooks_fault(response) -> tuple[str, str]:
    """QuickBooks' first error (code, message). Faults come as {"Fault": {"Error": [...]}} or, for auth, lower-case."""
    try:
        data = response.json()
    except ValueError:
        return "", (getattr(response, "text", "") or "")[:300]
    if not isinstance(data, dict):
        return "", ""
    fault = data.get("Fault") or data.get("fault") or {}
    errors = fault.get("Error") or fault.get("error") or []
    if not errors or not isinstance(errors[0], dict):
        return "", str(data.get("error_description") or data.get("error") or "")
    first = errors[0]
    code = str(first.get("code") or "")
    text = first.get("Detail") or first.get("detail") or first.get("Message") or first.get("message") or ""
    return code, str(text)


def from_quickbooks_response(response, *, connection=None, asked_by=None) -> ToolError:
    status = int(response.status_code)
    code, message = _quickbooks_fault(response)
    message = message or f"HTTP {status}"
    label = label_for(connection, "books", "QuickBooks Online")
    if status == 429 or code == "3001":
        return ToolError("rate_limited", f"{label} is limiting requests. Wait, then try once more.")
    if status == 401 or code in ("100", "3200"):
        return signed_out(connection, label=label, asked_by=asked_by)
    if status == 403:
        return ToolError("forbidden", f"{label} doesn't allow this: {message}")
    if status == 404 or code == "610":
        return ToolError("not_found", f"Nothing at that id in {label}: {message}")
    if code == "5010":
        return ToolError("changed", f"It changed in {label} since it was read. Read it again first.")
    if status >= 500:
        return ToolError("unavailable", f"{label} didn't answer properly (HTTP {status}). Try again later.")
    return ToolError("vendor", f"{label} said: {message}")


def _graph_error(response) -> tuple[str, str]:
    """Microsoft Graph's error: {"error": {"code": "itemNotFound", "message": "...", "innerError": {...}}}."""
    try:
        data = response.json()
    except ValueError:
        return "", (getattr(response, "text", "") or "")[:300]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        inner = error.get("innererror") or error.get("innerError") or {}
        code = str(error.get("code") or "")
        if isinstance(inner, dict) and inner.get("code"):
            code = f"{code} {inner['code']}"
        return code, str(error.get("message") or "")[:300]
    if isinstance(error, str):
        return error, str(data.get("error_description") or "")[:300]
    return "", ""


def from_graph_response(response, *, connection=None, group: str | None = "files", asked_by=None) -> ToolError:
    """A Microsoft Graph answer that isn't 2xx, as the spec's kind (learn.microsoft.com/graph/errors)."""
    status = int(response.status_code)
    code, message = _graph_error(response)
    message = message or f"HTTP {status}"
    label = label_for(connection, group, "Microsoft")
    lowered = code.lower()
    if status == 429 or "activitylimitreached" in lowered or "throttled" in lowered:
        return ToolError("rate_limited", f"{label} is limiting requests: {message}. Wait, then try once more.")
    if status == 401:
        return signed_out(connection, label=label, asked_by=asked_by)
    if status == 403 and ("accessdenied" in lowered and "scope" in message.lower()
                          or "insufficient" in lowered or "authorization_requestdenied" in lowered):
        return needs_write(connection, group=group, label=label, asked_by=asked_by)
    if status == 403:
        return ToolError("forbidden", f"{label} doesn't allow this: {message}")
    if status == 404:
        return ToolError("not_found", f"Nothing at that id in {label}, or it was moved or deleted: {message}")
    if status == 410:
        return ToolError("not_found", f"{label} no longer has that: {message}")
    if status in (409, 412):
        return ToolError("changed", f"It changed in {label} since it was read: {message}. Read it again first.")
    if status in (413, 507):
        return ToolError("too_large", f"Too large for {label}: {message}")
    if status == 400 and "invalidrequest" in lowered and "search" in message.lower():
        return ToolError("bad_input", f"query: {label} couldn't read that search: {message}")
    if status >= 500:
        return ToolError("unavailable", f"{label} didn't answer properly (HTTP {status}). Try again later.")
    return ToolError("vendor", f"{label} said: {message}")


def failure(connection, error: ToolError) -> dict:
    """One account's failure in a search across accounts: the spec's `Failure`, for `failed`."""
    return {
        "source": connection.account,
        "kind": error.kind,
        "message": error.message,
        "integration": connection.app,
        "connection": connection.account_key,
    }


def network_error(e: BaseException, *, label: str) -> ToolError:
    return ToolError("unavailable", f"{label} didn't answer ({e.__class__.__name__}). Try again later, or say so.")


def signed_out(connection, *, label: str, asked_by=None) -> ToolError:
    """The app no longer accepts the connection's sign-in: mark it needs_reconnect, with the card to fix it."""
    if connection is None:
        return ToolError("reauth", f"{label} needs signing in again.")
    card = services.connection_needs_reconnect(connection=connection, asked_by=asked_by)
    return ToolError(
        "reauth",
        f"{label} needs signing in again. A card on Home asks {_owner(connection)} to connect it again; carry on "
        "with the rest.",
        card=card.title,
    )


def needs_write(connection, *, group: str | None, label: str, asked_by=None) -> ToolError:
    """The connection reads but may not write here: a card asks the owner to connect again for writing."""
    if connection is None:
        return ToolError("reauth", f"{label} doesn't allow writing yet.")
    groups = [group] if group else list(connection.groups)
    card = services.reconnect_card_open(connection=connection, write_groups=groups, asked_by=asked_by)
    return ToolError(
        "reauth",
        f"{label} is connected for reading only. A card on Home asks {_owner(connection)} to connect it again for "
        "writing; carry on with the rest.",
        card=card.title,
    )


def _owner(connection) -> str:
    return connection.organization.owner_first_name
