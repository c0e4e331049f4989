"""Copying a Google account into search: Gmail by its history, Drive by its changes, Calendar by its sync tokens.

Each part goes in two stages, both paged, every page committing with the position it reached (search/sync.py):

- **Listing** (the first sync, and a full resync): first the app's position of now (Gmail's historyId, Drive's
  changes token; Calendar gives its sync token on the listing's last page) and a mark of the time, then every item a
  page at a time, the next page's token kept after each page. When the listing ends, what this account had in the
  copy from before the mark and wasn't listed again is gone at the source and leaves the copy.
- **Keeping current**: history.list / changes.list / events.list with the sync token, from the kept position, a
  page at a time: items added or changed are read again and put, items deleted (or trashed, or cancelled) removed.
  A position the app no longer takes (Gmail's history after about a week, 404; Calendar's 410 Gone) starts the
  listing again.

Every call to Google happens here, before the transaction that writes the page (none stays open across a call).
Failures the owner or time must see to (rate_limited, unavailable, reauth) are raised to sync.copy_run, which backs
off or waits for the reconnect; an item that can't be read (a file whose text won't export) is copied without text.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.utils import timezone

from core.errors import ToolError
from integrations.files import content
from integrations.mail_text import address_list
from integrations.models import Connection
from integrations.providers.base import CursorExpired, FileData
from integrations.providers.registry import provider_for
from search import index

# Pages as Google serves them: a page's messages are read in batch requests of 50, inside one batch of the copy.
GMAIL_PAGE = 100
DRIVE_PAGE = 100
CALENDAR_PAGE = 250
# An attachment's text is copied up to this size; a larger one is listed by name (mail.read_attachment reads it).
MAX_ATTACHMENT = 10 * 1024 * 1024
_STOP_KINDS = ("rate_limited", "reauth", "unavailable")
_NOT_COPIED = {"DRAFT", "TRASH", "SPAM"}
_BULK_CATEGORIES = {"CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", "CATEGORY_FORUMS"}


@dataclass
class Batch:
    """What one step of copying one part gives back (every app's parts, local ones too)."""

    entries: list[index.Entry]
    gone: list[str]  # keys of items gone at the source
    moved: dict  # the position's new values; None removes a value
    more: bool  # more of this part to copy now
    found: int = 0  # items found at the source, for the first sync's progress
    gone_prefixes: list[str] = field(default_factory=list)  # a deleted message's attachments: "mail:k:a:<id>."
    sweep: tuple[str, str] | None = None  # (key prefix, mark): items copied before the mark are gone at the source


class Run:
    """One copy run of one Google account: its providers (with a test's transport) and what it looked up."""

    def __init__(self, connection: Connection, http: dict | None = None):
        self.connection = connection
        self.http = http or {}
        self._providers: dict = {}
        self._labels: dict[str, str] | None = None
        self.folders: dict[str, tuple[str, list[str]]] = {}

    def provider(self, group: str):
        if group not in self._providers:
            options = {"http": self.http[group]} if group in self.http else {}
            self._providers[group] = provider_for(self.connection, group, **options)
        return self._providers[group]

    def label_name(self, label: str) -> str:
        # Gmail's own labels are their ids (INBOX, SENT, STARRED); the owner's are Label_12: their names are asked
        # for once a run, and only when a message has one.
        if not label.startswith("Label_"):
            return label
        if self._labels is None:
            self._labels = self.provider("mail").label_names()
        return self._labels.get(label, label)


def _now() -> str:
    return timezone.now().isoformat()


def _text(data: FileData) -> tuple[str, str]:
    try:
        extracted = content.extract(data)
    except ToolError as e:
        return "", f"no text: {e.message}"
    if extracted.image is not None:
        return "", "a picture: no text to search"
    return extracted.text, "text" if extracted.text.strip() else "no text found (a scan?)"


# --- Gmail ----------------------------------------------------------------------------------------------------


def _attachment_text(run: Run, message_id: str, attachment, where) -> tuple[str, str]:
    kind = content.kind_of(attachment.mime_type, attachment.name)
    if kind == "image":
        return "", "a picture: no text to search"
    if kind == "file" and not content.is_text_mime(content.mime_of(attachment.name, attachment.mime_type)):
        return "", "no text: not a kind of file with text to read"
    if attachment.size > MAX_ATTACHMENT:
        return "", "no text copied: over 10 MB; read it with mail.read_attachment"
    gmail_id, inline = where
    try:
        data = inline if gmail_id is None else run.provider("mail").attachment_bytes(message_id, gmail_id)
    except ToolError as e:
        if e.kind in _STOP_KINDS:
            raise
        return "", f"no text: {e.message}"
    return _text(FileData(attachment.name, attachment.mime_type, data))


def gmail_entries(run: Run, copied, owner: set[str]) -> list[index.Entry]:
    """A Gmail message as the copy holds it, the way index.mail_entries makes a local one: the email, and each
    attachment with its text, in the message's thread."""
    connection, key = run.connection, run.connection.account_key
    message = copied.message
    gmail_id = message.id.split(":", 1)[1]
    thread_id = message.thread_id.split(":", 1)[1]
    senders = address_list(message.sender)
    to, cc = address_list(message.to), address_list(message.cc)
    people = [("from", n, a, a in owner) for n, a in senders] + [("to", n, a, a in owner) for n, a in to + cc]
    sent = "SENT" in copied.labels
    thread = f"mail:{key}:t:{thread_id}"
    places = [f"label:{run.label_name(label)}" for label in copied.labels]
    url = run.provider("mail").url(thread_id)
    common = dict(source=connection.account, connection_id=connection.id, thread=thread, date=message.date,
                  people=people, sender=message.sender, recipients=[*message.to, *message.cc],
                  dir="sent" if sent else "received", places=places, url=url)
    attachments, files = [], []
    for attachment in message.attachments:
        text, quality = _attachment_text(run, gmail_id, attachment, copied.parts.get(attachment.id, (None, b"")))
        item_id = f"mail:{key}:a:{attachment.id.split(':', 1)[1]}"
        attachments.append({"id": item_id, "name": attachment.name, "quality": quality})
        files.append(index.Entry(key=item_id, type=index.file_type(attachment.mime_type), title=attachment.name,
                                 body=text, **common))
    if sent:
        bulk = bool(to + cc) and all(index.is_bulk(a, "") for _, a in to + cc)  # only to machines' addresses
    else:
        bulk = bool(_BULK_CATEGORIES & set(copied.labels)) or index.is_bulk(senders[0][1] if senders else "",
                                                                           message.text)
    email = index.Entry(key=f"mail:{key}:m:{gmail_id}", type="email", title=message.subject or "(no subject)",
                        body=message.text, bulk=bulk, has_attachment=bool(attachments),
                        starred="STARRED" in copied.labels, attachments=attachments, **common)
    return [email, *files]


def _gmail_read(run: Run, ids: list[str], owner: set[str]) -> tuple[list, list[str], list[str]]:
    """Read these messages as they are now: copied, or gone (deleted, in the trash or spam, a draft)."""
    key = run.connection.account_key
    entries, gone, prefixes = [], [], []
    found = run.provider("mail").copied_messages(ids)
    for gmail_id in dict.fromkeys(ids):
        copied = found.get(gmail_id)
        if copied is None or _NOT_COPIED & set(copied.labels):
            gone.append(f"mail:{key}:m:{gmail_id}")
            prefixes.append(f"mail:{key}:a:{gmail_id}.")
            continue
        entries += gmail_entries(run, copied, owner)
    return entries, gone, prefixes


def gmail_batch(connection, position: dict, owner: set[str], size: int, run: Run) -> Batch:
    gmail = run.provider("mail")
    key = connection.account_key
    if position.get("gmail_history") and not position.get("gmail_mark"):
        try:
            history = gmail.history(start=position["gmail_history"], page=position.get("gmail_history_page"))
        except CursorExpired:
            # Older than Gmail keeps: list the whole mailbox again (what was deleted meanwhile goes at its end).
            return Batch([], [], {"gmail_history": None, "gmail_history_page": None}, True)
        entries, gone, prefixes = _gmail_read(run, history.changed, owner)
        deleted = history.deleted
        gone += [f"mail:{key}:m:{i}" for i in deleted]
        prefixes += [f"mail:{key}:a:{i}." for i in deleted]
        if history.next_page:
            return Batch(entries, gone, {"gmail_history_page": history.next_page}, True, gone_prefixes=prefixes)
        return Batch(entries, gone, {"gmail_history": history.history_id, "gmail_history_page": None}, False,
                     gone_prefixes=prefixes)
    moved, found, page = {}, 0, position.get("gmail_page")
    mark = position.get("gmail_mark")
    if not mark:
        # The historyId of now, before the first page: what changes while the listing goes on is caught after it.
        mark = _now()
        history_id, found = gmail.mailbox()
        moved, page = {"gmail_history": history_id, "gmail_mark": mark, "gmail_history_page": None}, None
    listed = gmail.message_ids(page=page, size=min(size, GMAIL_PAGE))
    entries, gone, prefixes = _gmail_read(run, listed.items, owner)
    if listed.next_page:
        return Batch(entries, gone, {**moved, "gmail_page": listed.next_page}, True, found, prefixes)
    return Batch(entries, gone, {**moved, "gmail_page": None, "gmail_mark": None}, False, found, prefixes,
                 sweep=(f"mail:{key}:", mark))


# --- Drive ----------------------------------------------------------------------------------------------------


def _folder_path(run: Run, parents: list[str]) -> str:
    """The folders a file is in, as the owner reads them ("Clients › Juniper Dental"); My Drive itself left out."""
    drive = run.provider("files")
    names: list[str] = []
    seen: set[str] = set()
    parent = parents[0] if parents else None
    while parent and parent not in seen and len(seen) < 20:
        seen.add(parent)
        if parent not in run.folders:
            try:
                run.folders[parent] = drive.folder(parent)
            except ToolError as e:
                if e.kind in _STOP_KINDS:
                    raise
                run.folders[parent] = ("", [])
        name, above = run.folders[parent]
        if not above:
            break  # the top (My Drive, or a shared drive's root)
        names.append(name)
        parent = above[0]
    return " › ".join(reversed([n for n in names if n]))


def drive_entry(run: Run, f: dict, owner: set[str]) -> index.Entry:
    connection = run.connection
    text, _quality = run.provider("files").copy_text(f)
    user = f.get("lastModifyingUser") or {}
    author = (user.get("emailAddress") or "").lower()
    path = _folder_path(run, list(f.get("parents") or []))
    modified = f.get("modifiedTime")
    return index.Entry(
        key=f"files:{connection.account_key}:{f['id']}", type=index.file_type(f.get("mimeType", "")),
        source=connection.account, connection_id=connection.id, title=f.get("name", ""), body=text,
        date=datetime.datetime.fromisoformat(modified.replace("Z", "+00:00")) if modified else timezone.now(),
        people=[("author", user.get("displayName", ""), author, author in owner)] if author else [],
        places=[path] if path else [], url=f.get("webViewLink") or "",
        added_by=user.get("displayName") or user.get("emailAddress") or "",
    )


def drive_batch(connection, position: dict, owner: set[str], size: int, run: Run) -> Batch:
    drive = run.provider("files")
    key = connection.account_key
    if position.get("drive_changes") and not position.get("drive_mark"):
        try:
            changes = drive.copy_changes(token=position["drive_changes"], size=min(size, DRIVE_PAGE))
        except CursorExpired:
            return Batch([], [], {"drive_changes": None}, True)
        entries = [drive_entry(run, f, owner) for f in changes.files]
        gone = [f"files:{key}:{file_id}" for file_id in changes.gone]
        if changes.next_page:
            return Batch(entries, gone, {"drive_changes": changes.next_page}, True)
        return Batch(entries, gone, {"drive_changes": changes.new_start}, False)
    moved, page, mark = {}, position.get("drive_page"), position.get("drive_mark")
    if not mark:
        mark = _now()
        moved, page = {"drive_changes": drive.copy_start(), "drive_mark": mark}, None
    listed = drive.copy_files(page=page, size=min(size, DRIVE_PAGE))
    entries = [drive_entry(run, f, owner) for f in listed.items]
    if listed.next_page:
        return Batch(entries, [], {**moved, "drive_page": listed.next_page}, True, len(entries))
    return Batch(entries, [], {**moved, "drive_page": None, "drive_mark": None}, False, len(entries),
                 sweep=(f"files:{key}:", mark))


# --- Calendar -------------------------------------------------------------------------------------------------


def calendar_batch(connection, position: dict, owner: set[str], size: int, run: Run) -> Batch:
    calendar = run.provider("calendar")
    key = connection.account_key
    mark = position.get("calendar_mark")
    listing = bool(mark) or not position.get("calendar_sync")
    moved = {}
    if listing and not mark:
        mark = _now()
        moved = {"calendar_mark": mark, "calendar_page": None}
    try:
        page = calendar.copy_events(sync_token=None if listing else position["calendar_sync"],
                                    page=moved.get("calendar_page", position.get("calendar_page")),
                                    size=min(size, CALENDAR_PAGE))
    except CursorExpired:
        return Batch([], [], {"calendar_sync": None, "calendar_page": None}, True)  # 410 Gone: list it all again
    entries = []
    for event in page.events:
        meeting = event.meeting
        guests = [g.lower() for g in meeting.guests]
        people = [("from", "", event.organizer, event.organizer in owner)] + [("to", "", g, g in owner)
                                                                             for g in guests]
        entries.append(index.Entry(
            key=f"meeting:{key}:{meeting.id.split(':', 1)[1]}", type="meeting", source=connection.account,
            connection_id=connection.id, title=meeting.title, body=event.text, date=meeting.start, people=people,
            recipients=guests, url=meeting.url,
        ))
    gone = [f"meeting:{key}:{event_id}" for event_id in page.cancelled]
    found = len(entries) if listing else 0
    if page.next_page:
        return Batch(entries, gone, {**moved, "calendar_page": page.next_page}, True, found)
    done = {**moved, "calendar_sync": page.sync_token, "calendar_page": None, "calendar_mark": None}
    return Batch(entries, gone, done, False, found, sweep=(f"meeting:{key}:", mark) if listing and mark else None)


GOOGLE_BATCHES = {"mail": gmail_batch, "files": drive_batch, "meetings": calendar_batch}
