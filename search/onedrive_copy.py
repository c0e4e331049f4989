"""Copying a OneDrive account into search, by Graph's delta query on the owner's own drive.

The first round of the delta lists every item, a page at a time (each page's nextLink kept as the position, so a
worker that dies mid-listing resumes there); its last page gives the deltaLink, the position the next round starts
from. A round from a deltaLink gives what was added, changed or deleted since. When the first listing (or a listing
after Graph answered 410 resyncRequired to a kept token) ends, what this account had in the copy from before the
listing's mark and wasn't listed again is gone at the source and leaves the copy, as with Drive.

Files shared with the owner from other drives and SharePoint's libraries are not in the owner's drive's delta: they
are found live by files.search, which keeps searching what the copy doesn't hold.
"""

from __future__ import annotations

from django.utils import timezone

from core.errors import ToolError
from integrations.providers.base import CursorExpired
from search import index
from search.google_copy import Batch, Run

_STOP_KINDS = ("rate_limited", "reauth", "unavailable")


def _path(run: Run, parent: dict) -> str:
    """The folders a file is in, as the owner reads them ("Clients › Juniper Dental"); the drive's root left out.
    Graph gives a parent's path ("/drive/root:/Clients/Juniper Dental"), so no folder is asked for."""
    path = parent.get("path") or ""
    _, _, below = path.partition("root:")
    return " › ".join(part for part in below.split("/") if part)


def onedrive_entry(run: Run, item: dict, owner: set[str]) -> index.Entry:
    connection = run.connection
    provider = run.provider("files")
    text, _quality = provider.copy_text(item)
    user = ((item.get("lastModifiedBy") or {}).get("user")) or {}
    author = (user.get("email") or "").lower()
    meta = provider.meta(item)
    path = _path(run, item.get("parentReference") or {})
    return index.Entry(
        key=f"files:{connection.account_key}:{provider.local_id(item)}", type=index.file_type(meta.mime_type),
        source=connection.account, connection_id=connection.id, title=meta.name, body=text,
        date=meta.modified or timezone.now(),
        people=[("author", user.get("displayName", ""), author, author in owner)] if author else [],
        places=[path] if path else [], url=meta.url, added_by=user.get("displayName") or author,
    )


def onedrive_batch(connection, position: dict, owner: set[str], size: int, run: Run) -> Batch:
    provider = run.provider("files")
    key = connection.account_key
    moved: dict = {}
    mark = position.get("onedrive_mark")
    link = position.get("onedrive_next") or position.get("onedrive_delta")
    if link is None and not mark:
        mark = timezone.now().isoformat()  # the first round: every item is listed from here
        moved["onedrive_mark"] = mark
    try:
        page = provider.delta(link)
    except CursorExpired:
        # Graph's 410 resyncRequired: list everything again; what was deleted meanwhile goes at the listing's end.
        return Batch([], [], {"onedrive_next": None, "onedrive_delta": None, "onedrive_mark": None}, True)
    entries = []
    for item in page.items:
        try:
            entries.append(onedrive_entry(run, item, owner))
        except ToolError as error:
            if error.kind in _STOP_KINDS:
                raise
    gone = [f"files:{key}:{local}" for local in page.gone]
    found = len(entries) if mark else 0
    if page.next_link:
        return Batch(entries, gone, {**moved, "onedrive_next": page.next_link}, True, found)
    done = {**moved, "onedrive_next": None, "onedrive_delta": page.delta_link, "onedrive_mark": None}
    return Batch(entries, gone, done, False, found, sweep=(f"files:{key}:", mark) if mark else None)


ONEDRIVE_BATCHES = {"files": onedrive_batch}
