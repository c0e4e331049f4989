"""Lines Home lists under Your work that wait before they go (a sent email held for two minutes, with Undo).

The app that holds them registers a source here (from its hooks.py, core.registry); Home (above every app) reads
them all without knowing the apps.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from core.models import Organization
from core.registry import Registry


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


@dataclass(frozen=True)
class HeldSource:
    """One app's held lines: `lines(org)`, in a fixed number of queries."""

    name: str  # the app's: "mail"
    lines: Callable[[Organization], list[HeldLine]]


# The mail app registers its held emails (integrations/hooks.py); Home lists every source's lines, soonest to go first.
HELD_SOURCES: Registry[str, HeldSource] = Registry("held-lines source", HeldSource)
