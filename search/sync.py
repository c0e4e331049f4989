"""Copying the owner's accounts into search, where the owner turned search on (integrations.SearchCopy).

The local providers are copied from their own tables: mail by message id, files by their change log, meetings by
(updated_at, id); a message deleted at the source leaves the copy as it goes (search/signals.py). Google accounts
are copied through Google's own APIs (search/google_copy.py): Gmail's history, Drive's changes, Calendar's sync
tokens; OneDrive accounts by Graph's delta query (search/onedrive_copy.py). Each part is paged in batches;
every batch's items commit with the position they reached (the next page token, the historyId), so a worker
that dies mid-sync resumes where it stopped, and copying an item again is an upsert, never a second row. The same
positions keep the copy current afterwards (the sweep every minute, and for local accounts a short catch-up before
each search). A batch's calls to the app are made before its transaction.

Only one worker copies an account at a time: a claim with a lease (`claimed_until`), taken by a conditional
UPDATE; a dead worker's lease runs out and the next sweep takes over. The same `claimed_until`, with no claim,
holds off the copy of an account whose app is limiting requests or not answering (backing off 1, 2, 4 ... up to 60
minutes); an account whose sign-in was refused waits, where it stopped, for the owner to connect it again.
"""

from __future__ import annotations

import datetime
import logging
import secrets
import time
from collections.abc import Callable

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from core import queue
from core.errors import ToolError
from integrations.local.models_calendar import LocalEvent
from integrations.local.models_files import LocalFile, LocalFileChange
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage
from integrations.models import Connection, SearchCopy
from search import index
from search.google_copy import GOOGLE_BATCHES, Batch, Run
from search.models import SearchItem
from search.onedrive_copy import ONEDRIVE_BATCHES

logger = logging.getLogger(__name__)

BATCH = 500
SWEEP_SECONDS = 40
LEASE = datetime.timedelta(minutes=5)
PARTS = (("mail", "mail"), ("files", "files"), ("meetings", "calendar"))  # (part, the group that serves it)
BACKOFF_FIRST = datetime.timedelta(minutes=1)
BACKOFF_MOST = datetime.timedelta(minutes=60)


def copies_built_for(connection: Connection) -> bool:
    return connection.app in (Connection.App.LOCAL, Connection.App.GOOGLE, Connection.App.MICROSOFT)


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


def _mail_batch(connection, position, owner, size, run=None):
    after = position.get("mail", 0)
    rows = list(
        LocalMailMessage.objects.filter(connection=connection, id__gt=after)
        .exclude(box=LocalMailMessage.Box.DRAFT).select_related("thread").prefetch_related("attachments")
        .order_by("id")[:size]
    )
    entries = [entry for m in rows for entry in index.mail_entries(connection, m, owner)]
    return Batch(entries, [], ({"mail": rows[-1].id} if rows else {}), len(rows) == size)


def _files_batch(connection, position, owner, size, run=None):
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
        return Batch(entries, [], moved, more)
    start = position.get("files_change", 0)
    changes = list(LocalFileChange.objects.filter(connection=connection, id__gt=start).select_related("file")
                   .order_by("id")[:size])
    files = {c.file_id: c.file for c in changes}
    entries = [index.file_entry(connection, f, owner, names) for f in files.values() if index.file_is_copied(f)]
    gone = [f"files:{connection.account_key}:{f.file_id}" for f in files.values() if not index.file_is_copied(f)]
    return Batch(entries, gone, ({"files_change": changes[-1].id} if changes else {}), len(changes) == size)


def _meetings_batch(connection, position, owner, size, run=None):
    at, last_id = position.get("meetings_at"), position.get("meetings_id", 0)
    rows = LocalEvent.objects.filter(connection=connection)
    if at:
        at = datetime.datetime.fromisoformat(at)
        rows = rows.filter(Q(updated_at__gt=at) | Q(updated_at=at, id__gt=last_id))
    batch = list(rows.order_by("updated_at", "id")[:size])
    entries = [index.meeting_entry(connection, e, owner) for e in batch if not e.cancelled]
    gone = [f"meeting:{connection.account_key}:{e.id}" for e in batch if e.cancelled]
    moved = {"meetings_at": batch[-1].updated_at.isoformat(), "meetings_id": batch[-1].id} if batch else {}
    return Batch(entries, gone, moved, len(batch) == size)


BATCHES = {"mail": _mail_batch, "files": _files_batch, "meetings": _meetings_batch}


def count_at_source(connection: Connection) -> int:
    """What the first sync will copy, counted before it starts: the local tables' rows. A Google account's parts
    count themselves as they are listed (Gmail's message count, Drive's and Calendar's pages), no call made here."""
    total = 0
    if connection.app != Connection.App.LOCAL:
        return total
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
             max_seconds: float | None = None, yield_when: Callable[[], bool] | None = None,
             http: dict | None = None) -> str:
    """Copy what is new in one account since its positions, batch by batch, under the claim. Returns the state.
    With max_batches or max_seconds it stops there (releasing its claim), and the next run goes on from there; so
    it does after any batch where `yield_when()` says another task waits for the worker.
    `http` ({"mail": transport, ...}) is a test's recorded Google answers."""
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
    remote = {Connection.App.GOOGLE: GOOGLE_BATCHES, Connection.App.MICROSOFT: ONEDRIVE_BATCHES}
    batches: dict[str, Callable[..., Batch]] = remote.get(connection.app, BATCHES)  # type: ignore[call-overload]
    run = Run(connection, http) if connection.app in remote else None
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
                        deadline is not None and time.monotonic() > deadline) or (
                        done_batches and yield_when is not None and yield_when()):
                    stopped = True
                    break
                copy.refresh_from_db(fields=["position", "copied", "total", "claim", "first_synced_at"])
                if copy.claim != token:
                    return "busy"  # the lease ran out and another worker took over
                # The app is asked here, with no transaction open; what it answered is written below in one.
                step = batches[part](connection, copy.position, owner, batch, run)
                _write(org, connection, copy, token, step)
                done_batches += 1
                if not step.more:
                    break
        if stopped:
            _release(copy.pk, token)
            return SearchCopy.State.COPYING
        now = timezone.now()
        first = SearchCopy.objects.filter(pk=copy.pk).values_list("first_synced_at", flat=True).first()
        _release(copy.pk, token, state=SearchCopy.State.CURRENT, synced_at=now, first_synced_at=first or now, error="")
        return SearchCopy.State.CURRENT
    except ToolError as e:
        if e.kind in ("rate_limited", "unavailable"):
            return _back_off(copy, token, e)
        if e.kind == "reauth":
            # The connection is marked needs_reconnect with its card on Home (integrations.errors.signed_out): the
            # sweep leaves it until the owner connects it again, then the copy goes on from its position.
            _release(copy.pk, token, error=f"{connection.account} needs signing in again; the copy goes on from "
                                           "where it stopped once it is connected again.")
            return "reauth"
        logger.exception("copying %s into search failed", connection.account)
        _release(copy.pk, token, state=SearchCopy.State.FAILED, error=e.message[:500])
        return SearchCopy.State.FAILED
    except Exception as e:
        logger.exception("copying %s into search failed", connection.account)
        _release(copy.pk, token, state=SearchCopy.State.FAILED, error=str(e)[:500])
        return SearchCopy.State.FAILED


def _write(org, connection: Connection, copy: SearchCopy, token: str, step: Batch) -> None:
    """One batch's items, removals and position, in one transaction: a crash after it resumes after this batch."""
    gone = list(step.gone)
    with transaction.atomic():
        if step.gone_prefixes:
            prefixed = Q()
            for prefix in step.gone_prefixes:
                prefixed |= Q(key__startswith=prefix)
            gone += SearchItem.objects.filter(organization=org, connection=connection).filter(prefixed).values_list(
                "key", flat=True)
        threads = set(SearchItem.objects.filter(organization=org, key__in=gone).exclude(thread="").values_list(
            "thread", flat=True)) if gone else set()
        index.put(org, step.entries)
        index.remove(org.id, gone)
        if step.sweep:
            # The end of a full listing: what the copy held from before it began and wasn't listed again is gone.
            prefix, mark = step.sweep
            swept = SearchItem.objects.filter(organization=org, connection=connection, key__startswith=prefix,
                                              copied_at__lt=datetime.datetime.fromisoformat(mark))
            threads |= set(swept.exclude(thread="").values_list("thread", flat=True))
            swept.delete()
        if threads:
            index.thread_states(org, threads)  # who wrote last may have changed
        position = {k: v for k, v in {**copy.position, **step.moved, "backoff": None}.items() if v is not None}
        fields = {"position": position, "copied": copy.copied + len(step.entries),
                  "claimed_until": timezone.now() + LEASE, "error": ""}
        if step.found and not copy.first_synced_at:
            fields["total"] = copy.total + step.found
        SearchCopy.objects.filter(pk=copy.pk, claim=token).update(**fields)


def _back_off(copy: SearchCopy, token: str, error: ToolError) -> str:
    """The app is limiting requests (429, 403 rateLimitExceeded) or not answering: stop here and hold the copy off
    for a while, longer each time in a row, then go on from the same position."""
    tries = int(copy.position.get("backoff") or 0) + 1
    wait = min(BACKOFF_MOST, BACKOFF_FIRST * 2 ** (tries - 1))
    until = timezone.now() + wait
    why = "is limiting requests" if error.kind == "rate_limited" else "isn't answering"
    SearchCopy.objects.filter(pk=copy.pk, claim=token).update(
        claim="", claimed_until=until, position={**copy.position, "backoff": tries},
        error=f"Google {why}; copying goes on in {int(wait.total_seconds() // 60)} minute"
              f"{'' if wait == BACKOFF_FIRST else 's'}, from where it stopped.")
    return "paused"


def sweep() -> None:
    """Every minute: copy what is new in every account with search on, and drop the copies of accounts turned off."""
    for copy in SearchCopy.objects.select_related("connection__organization").filter(
        connection__status=Connection.Status.CONNECTED
    ):
        if copy.on:
            # A first sync of a large account goes on over several sweeps: each stops well inside the task's time,
            # and sooner when a task (an owner's message) waits behind it for the embedded default's one worker.
            copy_run(copy.connection, max_seconds=SWEEP_SECONDS, yield_when=queue.others_waiting)
        else:
            drop_copy(copy.connection)


def drop_copy(connection: Connection) -> None:
    SearchItem.objects.filter(connection=connection).delete()


def catch_up_for_search(org) -> None:
    """Before a search: one short batch of what is new in each current local account, so mail that came a moment
    ago is found. An account mid-sync, or claimed by a worker, is left to it."""
    for copy in SearchCopy.objects.select_related("connection__organization").filter(
        connection__organization=org, on=True, state=SearchCopy.State.CURRENT,
        connection__app=Connection.App.LOCAL, connection__status=Connection.Status.CONNECTED,
    ):
        copy_run(copy.connection, batch=200, max_batches=len(parts_of(copy.connection)))
