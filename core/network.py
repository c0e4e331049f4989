"""No transaction stays open across a network call.

Under the embedded default (SQLite, IMMEDIATE transactions) an open transaction holds the database's one write lock:
a slow mail server, Google, QuickBooks or the model would stop every other write in every process, and after the
busy timeout fail them. So each place that goes out to the network calls `network_call(what)` first: the SMTP
hand-off, Google's and Intuit's API calls (token refreshes happen inside them), the OAuth token exchanges, and the
model client. With a transaction of the project's own open, it raises `TransactionOpen` where
ROADSTAR_NETWORK_GUARD is "raise" (development and the tests) and logs an error elsewhere, where refusing would turn
a slow path into a failed one.

A test case's own wrapping transaction (pytest-django's `db`) is not counted: the code under test opened none.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)


class TransactionOpen(RuntimeError):
    pass


def transaction_open() -> bool:
    """Whether code (not a test case's wrapper) has a transaction open on any database."""
    for connection in connections.all(initialized_only=True):
        if any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks):
            return True
    return False


def network_call(what: str) -> None:
    if not transaction_open():
        return
    message = f"{what} was called with a database transaction open: it would hold the write lock across the network"
    if getattr(settings, "ROADSTAR_NETWORK_GUARD", "log") == "raise":
        raise TransactionOpen(message)
    logger.error(message, stack_info=True)
