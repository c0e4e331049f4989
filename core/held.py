"""Lines Home lists under Your work that wait before they go (a sent email held for two minutes, with Undo).

The app that holds them registers a source here; Home (above every app) reads them all without knowing the apps.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from core.models import Organization


@dataclass(frozen=True)
class HeldLine:
    """Something that waits before it goes, such as a sent email held for two minutes, with Undo until then.

    `held_until` drives the countdown on Home (partials/held_line.html); `undo_url` is a POST endpoint of the
    app that holds it, which stops it and returns to `next`.
    """

    id: str
    text: str  # "Client desk is sending Dana Whitfield “Your quote”"
    held_until: datetime.datetime
    undo_url: str
    open_url: str = ""  # a page with the whole of it (recipients, text, attachments), when its app has one


# Each source is `fn(org) -> list[HeldLine]`, a fixed number of queries. The mail app registers its held emails
# with `@core.held.held_source` when it loads; Home lists every source's lines, soonest to go first.
HELD_SOURCES: list[Callable[[Organization], list[HeldLine]]] = []


def held_source(fn: Callable[[Organization], list[HeldLine]]) -> Callable[[Organization], list[HeldLine]]:
    if fn not in HELD_SOURCES:
        HELD_SOURCES.append(fn)
    return fn
