"""The live Home: the one place services call to tell the owner's open pages that something changed.

`notify(org_id, what)` sends, once the current transaction commits (at once outside one), a small message to the
workspace's group on the channel layer. Every page the owner has open holds a websocket in that group
(`home.consumers.LiveConsumer`, at /ws/home/) and fetches the fresh part of itself over plain HTTP, signed in
as the owner: the message says only *what* changed, never the data, so nothing crosses workspaces by it.

`what` is one of WHATS. `conversation` names the chat or thread a "chat" message was added to, so a chat page
refetches only for its own chat.

Services call it, never views (DESIGN.md §2), and a failure to deliver never fails the service: the change is
committed and the page catches up at its next refetch.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from core.inputs import Uuid

logger = logging.getLogger(__name__)

EVENT_TYPE = "live.update"  # the consumer's handler: live_update
WHATS = frozenset({"work", "cards", "chat", "asks", "summary", "pages"})  # pages: a research page or its comments


def group_name(org_id: Uuid | str) -> str:
    """The channel-layer group of one workspace (a UUID: letters, digits and hyphens, as group names allow)."""
    return f"org.{org_id}"


def notify(org_id: Uuid | str, what: str, *, conversation: Uuid | str | None = None) -> None:
    """After commit, tell the workspace's open pages that `what` changed."""
    if what not in WHATS:
        raise ValueError(f"live.notify: {what!r} is not one of {sorted(WHATS)}")
    message = {"type": EVENT_TYPE, "what": what, "conversation": str(conversation) if conversation else None}
    group = group_name(org_id)
    transaction.on_commit(lambda: send_now(group, message), robust=True)


def send_now(group: str, message: dict[str, Any]) -> None:
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    try:
        layer = get_channel_layer()
        if layer is None:
            return
        blocking = getattr(layer, "group_send_blocking", None)
        if blocking is not None:
            blocking(group, message)  # the SQLite layer needs no event loop: cheaper in the worker
        else:
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # the change is committed; the page catches up at its next refetch
        logger.warning("live update to %s not delivered", group, exc_info=True)
