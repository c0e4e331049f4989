"""The API's one error shape, `{"error": kind, "message": ...}`, for every failure, with the HTTP status that fits.

`kind` is always one of the 12 of spec/reference/errors.md (`core.errors.ERROR_KINDS`), the same words an agent
reads from a tool: a service's ToolError keeps its kind and message, DRF's own errors (validation, sign-in,
permission, 404, method) are put in the same words, and anything unexpected is logged here and answered as
`unknown_outcome` (it may or may not have happened), never with a traceback.

This module is REST_FRAMEWORK["EXCEPTION_HANDLER"]: every DRF view of the project answers errors through it.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import OperationalError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.errors import ERROR_KINDS, ToolError, busy_error, is_busy

logger = logging.getLogger(__name__)

# The status each kind is answered with when a service raises it. The API's own sign-in failure is `reauth` with
# 401 (see `exception_handler`); a service's `reauth` is about a connected app, not the caller's sign-in, so 409.
STATUS_OF_KIND = {
    "bad_input": status.HTTP_400_BAD_REQUEST,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "not_found": status.HTTP_404_NOT_FOUND,
    "changed": status.HTTP_409_CONFLICT,
    "not_connected": status.HTTP_409_CONFLICT,
    "reauth": status.HTTP_409_CONFLICT,
    "too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "unsupported": status.HTTP_422_UNPROCESSABLE_ENTITY,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
    "vendor": status.HTTP_502_BAD_GATEWAY,
    "unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
    "unknown_outcome": status.HTTP_502_BAD_GATEWAY,
}

UNEXPECTED = (
    "Something went wrong on Roadstar's side, and it may or may not have happened. Read the record again before "
    "you try once more."
)


def error_body(kind: str, message: str, *, card: str | None = None) -> dict:
    if kind not in ERROR_KINDS:
        raise ValueError(f"{kind!r} is not one of the spec's error kinds")
    body = {"error": kind, "message": message}
    if card is not None:
        body["card"] = card
    return body


def error_response(kind: str, message: str, *, status_code: int | None = None, card: str | None = None,
                   headers: dict | None = None) -> Response:
    return Response(
        error_body(kind, message, card=card), status=status_code or STATUS_OF_KIND[kind], headers=headers
    )


def tool_error_response(error: ToolError) -> Response:
    return error_response(error.kind, error.message, card=error.card)


# DRF's exceptions, by class (the first that matches): the kind, and the message when DRF's own says too little.
_DRF_KINDS: list[tuple[type, str, str | None]] = [
    (exceptions.ValidationError, "bad_input", None),
    (exceptions.ParseError, "bad_input", None),
    (exceptions.NotAuthenticated, "reauth",
     "Sign in first: send 'Authorization: Token <your token>' (python manage.py api_token USERNAME makes one), "
     "or use a signed-in session."),
    (exceptions.AuthenticationFailed, "reauth", None),
    (exceptions.PermissionDenied, "forbidden", None),
    (exceptions.NotFound, "not_found", "Nothing at that id or address in this workspace."),
    (exceptions.MethodNotAllowed, "unsupported", None),
    (exceptions.NotAcceptable, "unsupported", None),
    (exceptions.UnsupportedMediaType, "unsupported", None),
    (exceptions.Throttled, "rate_limited", None),
]


def _where(prefix: str, key) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    if key in ("non_field_errors", "__all__"):
        return prefix
    return f"{prefix}.{key}" if prefix else str(key)


def validation_message(detail, prefix: str = "") -> str:
    """DRF's error detail as one line, each problem naming where it is (`people[3].role: …`), as tools do."""
    problems: list[str] = []

    def walk(value, where: str):
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, _where(where, key))
        elif isinstance(value, list):
            if all(not isinstance(v, (dict, list)) for v in value):
                text = " ".join(str(v) for v in value)
                if text:
                    problems.append(f"{where or 'input'}: {text}")
            else:
                for i, inner in enumerate(value):
                    if inner:
                        walk(inner, _where(where, i))
        else:
            problems.append(f"{where or 'input'}: {value}")

    walk(detail, prefix)
    return "; ".join(problems) or "The input can't run as written."


def _drf_response(exc: exceptions.APIException) -> Response:
    headers = {}
    # NotAuthenticated's challenge and Throttled's wait, where the exception has them.
    auth_header, wait = getattr(exc, "auth_header", None), getattr(exc, "wait", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    if wait:
        headers["Retry-After"] = str(int(wait))
    kind, message = next(
        ((kind, message) for cls, kind, message in _DRF_KINDS if isinstance(exc, cls)),
        ("bad_input" if exc.status_code < 500 else "unknown_outcome", None),
    )
    if message is None:
        message = validation_message(exc.detail) if isinstance(exc, exceptions.ValidationError) else str(exc.detail)
    return error_response(kind, message, status_code=exc.status_code, headers=headers)


def exception_handler(exc, context):
    """REST_FRAMEWORK's EXCEPTION_HANDLER: every exception a DRF view raises becomes the one error shape."""
    set_rollback()
    if isinstance(exc, ToolError):
        return tool_error_response(exc)
    if isinstance(exc, Http404):
        return error_response("not_found", "Nothing at that id or address in this workspace.")
    if isinstance(exc, DjangoPermissionDenied):
        return error_response("forbidden", "This sign-in may not do that.")
    if isinstance(exc, RequestDataTooBig):
        return error_response("too_large", "The request is larger than Roadstar takes; send less at a time.")
    if isinstance(exc, SuspiciousOperation):
        # Django's refusals of a malformed request (too many fields in a query string, …).
        return error_response("bad_input", f"The request can't be read as sent: {exc}")
    if isinstance(exc, exceptions.APIException):
        return _drf_response(exc)
    if isinstance(exc, OperationalError) and is_busy(exc):
        # Another process held the database's write lock past the busy timeout: nothing was written.
        busy = busy_error()
        return error_response(busy.kind, busy.message, headers={"Retry-After": "1"})
    view = context.get("view")
    logger.exception("Unexpected error in %s", type(view).__name__ if view is not None else "an API view")
    return error_response("unknown_outcome", UNEXPECTED, status_code=status.HTTP_500_INTERNAL_SERVER_ERROR)
