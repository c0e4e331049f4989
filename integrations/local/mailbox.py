"""The local mailbox's writes: messages into threads, attachments' bytes on disk, and importing .mbox / .eml.

Bytes live in a folder per workspace, content-addressed (`<root>/<org id>/<sha256[:2]>/<sha256>`), the root being
ROADSTAR_MAIL_ROOT (a setting or the environment; default BASE_DIR/var/mail). A blob is written before the row that
points at it, under a name only its own bytes give, so a rolled-back transaction leaves at worst an unused file,
never a wrong one. Held emails' attachments are kept the same way.
"""

from __future__ import annotations

import datetime
import email
import hashlib
import mailbox
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from email import policy
from email.utils import parsedate_to_datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import ToolError
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage, LocalMailThread
from integrations.mail_text import address_list, html_to_text, person

# --- blobs ----------------------------------------------------------------------------------------------------


def mail_root() -> Path:
    return Path(settings.ROADSTAR_MAIL_ROOT)


def _blob_path(org_id, sha: str) -> Path:
    return mail_root() / str(org_id) / sha[:2] / sha


def blob_put(org_id, data: bytes) -> str:
    sha = hashlib.sha256(data).hexdigest()
    path = _blob_path(org_id, sha)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    return sha


def blob_get(org_id, sha: str) -> bytes:
    try:
        return _blob_path(org_id, sha).read_bytes()
    except FileNotFoundError as exc:
        raise ToolError("not_found", "That attachment's file is missing from Roadstar's mail folder.") from exc


# --- messages -------------------------------------------------------------------------------------------------


def new_key() -> str:
    return secrets.token_hex(8)


@dataclass
class Incoming:
    """One message to keep in the local mailbox."""

    sender: str
    to: list[str]
    subject: str
    text: str
    date: datetime.datetime
    box: str = LocalMailMessage.Box.INBOX
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    message_id: str = ""
    in_reply_to: str = ""
    references: str = ""
    attachments: list[tuple[str, str, bytes]] = field(default_factory=list)  # (name, mime type, bytes)
    thread_key: str | None = None  # put it in this thread (replies Roadstar sends, the example workspace)
    key: str | None = None


def _people(message: Incoming) -> str:
    pairs = address_list([message.sender, *message.to, *message.cc, *message.bcc])
    return " ".join(f"{name} {address}".strip().lower() for name, address in pairs)


def _thread_for(connection, message: Incoming) -> LocalMailThread:
    if message.thread_key:
        thread = LocalMailThread.objects.filter(connection=connection, key=message.thread_key).first()
        if thread is None:
            thread = LocalMailThread.objects.create(
                connection=connection, key=message.thread_key, subject=message.subject, last_at=message.date
            )
        return thread
    # A reply joins the thread of a message it names (In-Reply-To, References), as mail clients thread.
    named = message.references.split() + ([message.in_reply_to] if message.in_reply_to else [])
    if named:
        earlier = (
            LocalMailMessage.objects.filter(connection=connection, message_id__in=named)
            .select_related("thread").order_by("-date").first()
        )
        if earlier is not None:
            return earlier.thread
    return LocalMailThread.objects.create(
        connection=connection, key=new_key(), subject=message.subject, last_at=message.date
    )


def message_store(connection, message: Incoming) -> LocalMailMessage:
    """Keep one message (and its attachments) in its thread; the thread's newest time moves on."""
    blobs = [(name, mime, data, blob_put(connection.organization_id, data)) for name, mime, data in message.attachments]
    with transaction.atomic():
        thread = _thread_for(connection, message)
        stored = LocalMailMessage.objects.create(
            connection=connection, thread=thread, key=message.key or new_key(), box=message.box,
            message_id=message.message_id, in_reply_to=message.in_reply_to, references=message.references,
            sender=message.sender, to=message.to, cc=message.cc, bcc=message.bcc, people=_people(message),
            date=message.date, subject=message.subject, text=message.text,
        )
        LocalMailAttachment.objects.bulk_create([
            LocalMailAttachment(connection=connection, message=stored, key=new_key(), name=name, mime_type=mime,
                                size=len(data), sha256=sha)
            for name, mime, data, sha in blobs
        ])
        if message.box != LocalMailMessage.Box.DRAFT and message.date > thread.last_at:
            LocalMailThread.objects.filter(pk=thread.pk).update(last_at=message.date)
    return stored


# --- importing ------------------------------------------------------------------------------------------------


def _header(message, name: str) -> str:
    value = message.get(name)
    return str(value).strip() if value is not None else ""


def _date(message) -> datetime.datetime:
    try:
        parsed = parsedate_to_datetime(_header(message, "Date"))
    except (TypeError, ValueError, IndexError):
        parsed = None
    if parsed is None:
        return timezone.now()
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)


def _body_and_files(message) -> tuple[str, list[tuple[str, str, bytes]]]:
    plain, html, files = None, None, []
    for part in message.walk() if message.is_multipart() else [message]:
        if part.is_multipart():
            continue
        filename = part.get_filename()
        disposition = part.get_content_disposition()
        if filename or disposition == "attachment":
            files.append((filename or "attachment", part.get_content_type(), part.get_payload(decode=True) or b""))
            continue
        try:
            content = part.get_content()
        except (LookupError, UnicodeDecodeError):
            content = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
        if not isinstance(content, str):
            continue
        if part.get_content_type() == "text/plain" and plain is None:
            plain = content
        elif part.get_content_type() == "text/html" and html is None:
            html = content
    return (plain if plain is not None else html_to_text(html or "")).strip(), files


def incoming_from_bytes(raw: bytes, *, owner: set[str]) -> Incoming:
    """One RFC 5322 message as the local mailbox keeps it; mail from the owner's own addresses is `sent`."""
    message = email.message_from_bytes(raw, policy=policy.default)
    text, files = _body_and_files(message)
    sender = _header(message, "From")
    senders = address_list(sender)
    box = LocalMailMessage.Box.SENT if senders and senders[0][1] in owner else LocalMailMessage.Box.INBOX

    return Incoming(
        sender=sender, to=_listed(message, "To"), cc=_listed(message, "Cc"), bcc=_listed(message, "Bcc"),
        subject=_header(message, "Subject"), text=text, date=_date(message), box=box,
        message_id=_header(message, "Message-ID"), in_reply_to=_header(message, "In-Reply-To"),
        references=" ".join(_header(message, "References").split()), attachments=files,
    )


def _listed(message, name: str) -> list[str]:
    return [person(n, a) for n, a in address_list([str(v) for v in message.get_all(name) or []])]


def mail_import(connection, paths: list[Path], *, owner: set[str]) -> tuple[int, int]:
    """Import .mbox and .eml files (or folders of them) into a local connection's mailbox, oldest first, so replies
    find their threads. Returns (imported, skipped): a Message-ID the mailbox holds already is skipped."""
    raws: list[bytes] = []
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for item in files:
            if item.suffix.lower() == ".mbox" or (item.suffix == "" and item.name.lower().endswith("mbox")):
                box = mailbox.mbox(str(item), create=False)
                raws.extend(box.get_bytes(key) for key in box.keys())
            elif item.suffix.lower() == ".eml":
                raws.append(item.read_bytes())
    messages = sorted((incoming_from_bytes(raw, owner=owner) for raw in raws), key=lambda m: m.date)
    known = set(
        LocalMailMessage.objects.filter(connection=connection)
        .exclude(message_id="")
        .values_list("message_id", flat=True)
    )
    imported = skipped = 0
    for message in messages:
        if message.message_id and message.message_id in known:
            skipped += 1
            continue
        message_store(connection, message)
        if message.message_id:
            known.add(message.message_id)
        imported += 1
    return imported, skipped
