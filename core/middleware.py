"""A database busy past its timeout, on any page: Roadstar's own "busy, try again" answer, never the 500 page.

Under the embedded default (SQLite) a write waits for another process's write lock up to the busy timeout, then
fails with "database is locked". The REST API and use_tool answer that themselves (a 503 in the API's error
shape, `unavailable` to an agent); this catches it for every other view: the owner's pages, Home's forms and
the live fetches. A view's write runs in one transaction, which rolled back, so the page can say nothing was
done; it still points at Home, which shows what was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from core.errors import busy_error, is_busy

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2


class BusyDatabaseMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not (isinstance(exception, OperationalError) and is_busy(exception)):
            return None
        logger.warning("%s %s: the database stayed busy: %s", request.method, request.path, exception)
        if request.headers.get("X-Requested-With") == "fetch":
            # The live pages show this text beside the form that sent it (static/roadstar/live.js).
            reply = HttpResponse(busy_error().message, status=503, content_type="text/plain; charset=utf-8")
        else:
            # Rendered without the request: the user and session may need the database that is busy.
            reply = HttpResponse(render_to_string("503.html"), status=503)
        reply["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return reply
