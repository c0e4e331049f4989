"""Hooks other parts of Roadstar listen to.

`connected` is sent after the transaction that made or renewed a connection commits, with:
- `org`: the Organization;
- `connection`: the Connection, status connected;
- `cards`: the connect / reconnect cards it resolved. Each card's `data["asked_by"]` is
  `{"agent_id", "conversation_id"}` of the first conversation that asked, and `data["askers"]` every one of them,
  so the agents runtime can tell each agent that asked (spec: "When the owner connects it, a note tells you").

    from integrations.signals import connected

    @receiver(connected)
    def tell_askers(sender, *, org, connection, cards, **kwargs): ...
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.dispatch import Signal

from core.registry import Registry

connected = Signal()


# The apps' events (new mail, a changed doc, a new meeting, an invoice overdue or paid) are routines' to record and
# match. Routines sits above this app, so it hands its `event_emit` in when it loads (routines/hooks.py): an
# event is then written in the caller's transaction, as before, and matched after commit.
@dataclass(frozen=True)
class EventRecorder:
    """`record(*, org, kind, keys, payload=None, text="")` records one event and returns it."""

    name: str
    record: Callable[..., Any]


EVENT_RECORDER: Registry[str, EventRecorder] = Registry("event recorder", EventRecorder, single=True)


def event_emit(*, org, kind: str, keys: list[str], payload: dict | None = None, text: str = ""):
    """Tell routines of one of the apps' events; returns the recorded event."""
    recorder = EVENT_RECORDER.only()
    if recorder is None:
        raise RuntimeError("no event recorder is registered: the routines app records the apps' events")
    return recorder.record(org=org, kind=kind, keys=keys, payload=payload, text=text)
