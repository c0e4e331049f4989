"""Reads kept for the length of one piece of work: inside `reads_kept()`, a read marked `@kept` that is asked for
again with the same arguments is answered with what it read the first time.

For reads asked for many times over within one short piece of work that can't sensibly pass the result along:
browse_tools' description asks each optional tool group whether the workspace has it on, and the five research
groups each read the same settings row (issue 13). Outside a `reads_kept()` block a kept read reads every time,
so nothing is held longer than the block that asked for it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

R = TypeVar("R")

_kept: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("roadstar_kept_reads", default=None)


@contextlib.contextmanager
def reads_kept() -> Iterator[None]:
    """Kept reads are read once inside this block (and the blocks within it: the outermost one holds them)."""
    if _kept.get() is not None:
        yield
        return
    token = _kept.set({})
    try:
        yield
    finally:
        _kept.reset(token)


def _key_of(value: Any) -> Any:
    # A model instance is its row: two instances of one workspace are the same argument.
    pk = getattr(value, "pk", None)
    return (type(value), pk) if pk is not None else value


def kept(read: Callable[..., R]) -> Callable[..., R]:
    """Marks a read (keyword arguments only) as kept inside a reads_kept() block."""

    @functools.wraps(read)
    def wrapper(**kwargs: Any) -> R:
        held = _kept.get()
        if held is None:
            return read(**kwargs)
        key = (read, tuple(sorted((name, _key_of(value)) for name, value in kwargs.items())))
        if key not in held:
            held[key] = read(**kwargs)
        kept_value: R = held[key]
        return kept_value

    return wrapper
