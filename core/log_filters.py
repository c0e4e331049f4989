"""The console log's filters (settings.LOGGING): a refused request is one line, not a traceback.

Django logs every 4xx it answers from an exception (a 403 for a missing permission or a failed CSRF check, a 400
for a bad request) with that exception's traceback. The traceback says nothing about Roadstar's health, and a
browser's refused form would fill a screen of the console `make run` is read in; the line itself (the status and
path) is kept. A 5xx keeps its traceback: that is an error worth reading."""

from __future__ import annotations

import logging


class RefusalsInOneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        refused = status is not None and 400 <= status < 500
        if refused or record.name.startswith("django.security."):
            record.exc_info = None
            record.exc_text = None
        return True
