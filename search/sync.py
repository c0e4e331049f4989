"""Copying the owner's accounts into search, where the owner turned search on (integrations.SearchCopy).

Built for the local providers, from their own tables: mail by message id, files by their change log, meetings by
(updated_at, id). Each part is paged in batches; every batch's items commit with the position they reached, so a
worker that dies mid-sync resumes where it stopped, and copying an item again is an upsert, never a second row.
The same positions keep the copy current afterwards (the sweep every minute, and a short catch-up before each
search). A message deleted at the source leaves the copy as it goes (search/signals.py).

Gmail's history API, Drive's changes API and Calendar's sync tokens are NOT built: a Google account's copy says so
on Connections and in search's `sources`, and mail.search/files.search keep reading it live.

Only one worker copies an account at a time: a claim with a lease (`claimed_until`), taken by a conditional
UPDATE; a dead worker's lease runs out and the next sweep takes over.
"""

from __future__ import annotations

import datetime
import logging
import secrets
import time

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from integrations.local.models_calendar import LocalEvent
from integrations.local.models_files import LocalFile, LocalFileChange
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage
from integrations.models import Connection, SearchCopy
from search import index

logger = logging.getLogger(__name__)

BATCH = 500
SWEEP_SECONDS = 40
LEASE = datetime.timedelta(minutes=5)
PARTS = (("mail", "mail"), ("files", "files"), ("meetings", "calendar"))  # (part, the group that serves it)


class NotBuilt(Exception):
    """This app's copy is not built (Google's history, changes and sync tokens)."""


def copies_built_for(connection: Connection) -> bool:
    return connection.app == Connection.App.LOCAL


def parts_of(connection: Connection) -> list[str]:
    return [part for part, group in PARTS if connection.serves(group)]


# --- claiming -------------------------------------------------------------------------------------------------


def _claim(copy_id: int) -> str | None:
    token, now = secrets.token_hex(8), timezone.now()
    taken = SearchCopy.objects.filter(pk=copy_id, on=True).filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    ).update(claim=token, claimed_until=now + LEASE)
    return token if taken else None


def _release(copy_id: int, token: str, **fields) -> None:
    SearchCopy.objects.filter(pk=copy_id, claim=token).update(claim="", claimed_until=None, **fields)


# --- one batch of each part -----------------------------------------------------------------------------------


def _mail_batch(connection, position, owner, size):
    after = position.get("mail", 0)
    rows = list(
        LocalMailMessage.objects.filter(connection=connection, id__gt=after)
        .exclude(box=LocalMailMessage.Box.DRAFT).select_related("thread").prefetch_related("attachments")
        .order_by("id")[:size]
    )
    entries = [entry for m in rows for entry in index.mail_entries(connection, m, owner)]
    return entries, [], ({"mail": rows[-1].id} if rows else {}), len(rows) == size


def _files_batch(connection, position, owner, size):
    """First every file by id (the change log's end noted first, so writes during the copy are caught after), then
    the change log from there."""
    names: dict = {}
    if not position.get("files_listed"):
        start = position.get("files_id", 0)
        if "files_change" not in position:
            position = {**position, "files_change": LocalFileChange.objects.filter(connection=connection)
                        .aggregate(n=Max("id"))["n"] or 0}
        rows = list(LocalFile.objects.filter(connection=connection, id__gt=start).order_by("id")[:size])
        entries = [index.file_entry(connection, f, owner, names) for f in rows if index.file_is_copied(f)]
        more = len(rows) == size
        moved = {"files_change": position["files_change"], "files_id": rows[-1].id if rows else start,
                 "files_listed": not more}
        return entries, [], moved, more
    start = position.get("files_change", 0)
    changes = list(LocalFileChange.objects.filter(connection=connection, id__gt=start).select_related("file")
                   .order_by("id")[:size])
    files = {c.file_id: c.file for c in changes}
    entries = [index.file_entry(connection, f, owner, names) for f in files.values() if index.file_is_copied(f)]
    gone = [f"files:{connection.account_key}:{f.file_id}" for f in files.values() if not index.file_is_copied(f)]
    return entries, gone, ({"files_change": changes[-1].id} if changes else {}), len(changes) == size


def _meetings_batch(connection, position, owner, size):
    at, last_id = position.get("meetings_at"), position.get("meetings_id", 0)
    rows = LocalEvent.objects.filter(connection=connection)
    if at:
        at = datetime.datetime.fromisoformat(at)
        rows = rows.filter(Q(updated_at__gt=at) | Q(updated_at=at, id__gt=last_id))
    rows = list(rows.order_by("updated_at", "id")[:size])
    entries = [index.meeting_entry(connection, e, owner) for e in rows if not e.cancelled]
    gone = [f"meeting:{connection.account_key}:{e.id}" for e in rows if e.cancelled]
    moved = {"meetings_at": rows[-1].updated_at.isoformat(), "meetings_id": rows[-1].id} if rows else {}
    return entries, gone, moved, len(rows) == size


BATCHES = {"mail": _mail_batch, "files": _files_batch, "meetings": _meetings_batch}


def count_at_source(connection: Connection) -> int:
    total = 0
    if connection.serves("mail"):
        messages = LocalMailMessage.objects.filter(connection=connection).exclude(box=LocalMailMessage.Box.DRAFT)
        total += messages.count() + LocalMailAttachment.objects.filter(message__in=messages).count()
    if connection.serves("files"):
        files = LocalFile.objects.filter(connection=connection, trashed=False)
        total += files.exclude(mime_type=index.FOLDER_MIME).count()
    if connection.serves("calendar"):
        total += LocalEvent.objects.filter(connection=connection, cancelled=False).count()
    return total


# --- copying --------------------------------------------------------------------------------------------------


def copy_run(connection: Connection, *, batch: int = BATCH, max_batches: int | None = None,
             max_seconds: float | None = None) -> str:
    """Copy what is new in one account since its positions, batch by batch, under the claim. Returns the state.
    With max_batches or max_seconds it stops there (releasing its claim), and the next run goes on from there."""
    copy = SearchCopy.objects.filter(connection=connection).first()
    if copy is None or not copy.on:
        return "off"
    if not copies_built_for(connection):
        SearchCopy.objects.filter(pk=copy.pk).update(
            state=SearchCopy.State.FAILED,
            error=f"Copying {connection.app_info.label} accounts into search isn't built yet; their mail and files "
                  "are still searched live.")
        return SearchCopy.State.FAILED
    token = _claim(copy.pk)
    if token is None:
        return "busy"
    owner = index.owner_addresses(connection)
    org = connection.organization
    done_batches = 0
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    stopped = False
    try:
        starting = (SearchCopy.State.WAITING, SearchCopy.State.OFF, SearchCopy.State.FAILED)
        if copy.state in starting and not copy.first_synced_at:
            SearchCopy.objects.filter(pk=copy.pk, claim=token).update(
                state=SearchCopy.State.COPYING, total=count_at_source(connection))
        for part in parts_of(connection):
            while True:
                if (max_batches is not None and done_batches >= max_batches) or (
                        deadline is not None and time.monotonic() > deadline):
                    stopped = True
                    break
                copy.refresh_from_db(fields=["position", "copied", "claim"])
                if copy.claim != token:
                    return "busy"  # the lease ran out and another worker took over
                entries, gone, moved, more = BATCHES[part](connection, copy.position, owner, batch)
                with transaction.atomic():
                    index.put(org, entries)
                    index.remove(org.id, gone)
                    position = {**copy.position, **moved}
                    # The position commits with the items: a crash after this batch resumes after it.
                    SearchCopy.objects.filter(pk=copy.pk, claim=token).update(
                        position=position, copied=copy.copied + len(entries),
                        claimed_until=timezone.now() + LEASE)
                done_batches += 1
                if not more:
                    break
        if stopped:
            _release(copy.pk, token)
            return SearchCopy.State.COPYING
        now = timezone.now()
        first = SearchCopy.objects.filter(pk=copy.pk).values_list("first_synced_at", flat=True).first()
        _release(copy.pk, token, state=SearchCopy.State.CURRENT, synced_at=now, first_synced_at=first or now, error="")
        return SearchCopy.State.CURRENT
    except Exception as e:
        logger.exception("copying %s into search failed", connection.account)
        _release(copy.pk, token, state=SearchCopy.State.FAILED, error=str(e)[:500])
        return SearchCopy.State.FAILED


def sweep() -> None:
    """Every minute: copy what is new in every account with search on, and drop the copies of accounts turned off."""
    for copy in SearchCopy.objects.select_related("connection__organization").filter(
        connection__status=Connection.Status.CONNECTED
    ):
        if copy.on:
            # A first sync of a large account goes on over several sweeps: each stops well inside the task's time.
            copy_run(copy.connection, max_seconds=SWEEP_SECONDS)
        else:
            drop_copy(copy.connection)


def drop_copy(connection: Connection) -> None:
    from search.models import SearchItem

    SearchItem.objects.filter(connection=connection).delete()


def catch_up_for_search(org) -> None:
    """Before a search: one short batch of what is new in each current local account, so mail that came a moment
    ago is found. An account mid-sync, or claimed by a worker, is left to it."""
    for copy in SearchCopy.objects.select_related("connection__organization").filter(
        connection__organization=org, on=True, state=SearchCopy.State.CURRENT,
        connection__app=Connection.App.LOCAL, connection__status=Connection.Status.CONNECTED,
    ):
        copy_run(copy.connection, batch=200, max_batches=len(parts_of(copy.connection)))
