"""Writes that must stand even when the tool's transaction rolls back.

`use_tool` runs a tool in one transaction, and a tool that fails (a ToolError) rolls it back. Some writes made on
the way to that failure must survive it: the card that the `not_connected` error points the agent to, a
connection marked needs_reconnect, and above all a refreshed token (QuickBooks rotates its refresh token: losing
the new one loses the connection). `keep(write)` runs the write now, and if the surrounding `kept()` scope ends
in an exception (after its transaction rolled back), runs it again on its own. Writes given to `keep` must
therefore be idempotent (card_open finds the open card; token writes compare-and-set on token_version).

The pipeline wraps each tool run in `kept()`; a task or view that calls providers in its own transaction should
do the same: `with kept(), transaction.atomic(): ...`. Outside any scope, `keep` simply runs the write once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.db import transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")

_scopes: ContextVar[tuple[list, ...]] = ContextVar("integrations_durable_scopes", default=())


def keep(write: Callable[[], T]) -> T:
    result = write()
    scopes = _scopes.get()
    if scopes:
        scopes[-1].append(write)
    return result


@contextmanager
def kept() -> Iterator[None]:
    writes: list = []
    token = _scopes.set(_scopes.get() + (writes,))
    try:
        yield
    except BaseException:
        _scopes.reset(token)
        _replay(writes)
        raise
    else:
        _scopes.reset(token)
        # An outer scope may still roll back what this one committed into (a savepoint): hand the writes on.
        outer = _scopes.get()
        if outer and writes:
            outer[-1].extend(writes)


def _replay(writes: list) -> None:
    outer = _scopes.get()
    for write in writes:
        try:
            with transaction.atomic():
                write()
        except Exception:
            logger.exception("a write kept past a rollback failed when replayed")
            continue
        if outer:
            outer[-1].append(write)
