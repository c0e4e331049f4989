"""`kind:doc.changed` events: each files account's changed files since its cursor, for routines.

`docs_watch` (a worker task, every few minutes) asks each connected files account for what changed since the
last look (`FilesProvider.changes`), and tells each changed file (folders aside) once per look as an event with
the key `doc:<account key>:<file id>` (the file's full id, as tools give it). The event's `text` is the file's
title and the start of its text, so routines that `ask` in words can match it. The first look at an account only
notes where it starts from. A look commits its cursor together with its events; of two workers racing on the
same account, the second writes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import ToolError
from core.timefmt import iso
from integrations.durable import kept
from integrations.files.services import EVENT_TEXT_CHARS, Ref, file_text
from integrations.local.models_files import FilesWatch
from integrations.models import Connection
from integrations.providers.base import FileMeta
from integrations.providers.registry import provider_for
from integrations.signals import event_emit

logger = logging.getLogger(__name__)

# (task, schedule name, every so many minutes), as integrations.tasks_apps.SCHEDULES lists the other watches.
SCHEDULES = (("integrations.files.events.docs_watch", "changed docs", 5),)
# A look reads the text of at most this many changed files; the rest are told by their title.
TEXT_READS_PER_LOOK = 20
_READABLE = ("doc", "sheet", "slides", "pdf")


def docs_watch() -> int:
    """Every connected files account's changed files, as events. Returns how many were told."""
    rows = Connection.objects.filter(status=Connection.Status.CONNECTED).select_related("organization")
    told = 0
    for connection in rows:
        if not connection.serves("files"):
            continue
        try:
            told += len(docs_watch_one(connection))
        except Exception:  # one account's failure must not keep the others' changes from being told
            logger.exception("docs watch of %s failed", connection.account_key)
    return told


def docs_watch_one(connection: Connection, **options) -> list:
    """One account's changed files since the last look. `options` go to its provider (tests: a fake transport)."""
    watch, _ = FilesWatch.objects.get_or_create(connection=connection)
    try:
        provider = provider_for(connection, "files", **options)
        with kept():  # a card or a refreshed token stands whatever happens next
            changes = provider.changes(watch.cursor or None)
            texts = _texts(provider, [m for m in changes.items if m.kind != "folder"])
    except ToolError as error:
        logger.warning("docs watch of %s: %s %s", connection.account_key, error.kind, error.message)
        return []
    with transaction.atomic():
        won = FilesWatch.objects.filter(pk=watch.pk, cursor=watch.cursor).update(
            cursor=changes.cursor, polled_at=timezone.now()
        )
        if not won:
            return []  # another worker looked at the same time and told these
        return [doc_event(connection, meta, texts.get(meta.id, "")) for meta in changes.items if meta.kind != "folder"]


def _texts(provider, changed: list[FileMeta]) -> dict[str, str]:
    texts = {}
    for meta in [m for m in changed if m.kind in _READABLE][:TEXT_READS_PER_LOOK]:
        ref = Ref(provider.connection, provider, meta.id.split(":", 1)[1], meta)
        try:
            texts[meta.id] = file_text(ref, meta).text[:EVENT_TEXT_CHARS]
        except ToolError as error:
            if error.kind in ("reauth", "rate_limited", "unavailable"):
                raise
            texts[meta.id] = ""  # a file with no words to read is still told, by its title
    return texts


def doc_event(connection: Connection, meta: FileMeta, text: str):
    """The routines Event for a changed doc."""
    payload: dict[str, Any] = {
        "id": meta.id, "title": meta.name, "type": meta.kind, "url": meta.url, "source": connection.account,
    }
    if meta.modified is not None:
        payload["modified"] = iso(meta.modified)
    if meta.modified_by:
        payload["who"] = meta.modified_by
    return event_emit(
        org=connection.organization, kind="doc.changed", keys=[f"doc:{meta.id}"], payload=payload,
        text=f"{meta.name}\n\n{text}".strip() if text else meta.name,
    )

