"""The mail tools' work, the same on every mail app: search across accounts, threads read without quoted text,
attachments read like files, drafts, and what an email goes out with (its account, recipients, attachments).

The two-minute hold of mail.send is integrations.mail_hold; new-mail events are integrations.tasks_mail.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models.functions import Lower

from contacts.services import log_write
from contacts.shapes import local_time_words
from core.actors import Actor
from core.errors import ToolError
from integrations.errors import failure
from integrations.files.services import file_ref
from integrations.ids import join_id, split_id
from integrations.local.models_mail import HeldEmail
from integrations.mail_text import (
    MAX_ATTACHMENTS,
    address_list,
    attachment_content,
    owner_addresses,
    plain_address,
    strip_quoted,
)
from integrations.models import Connection
from integrations.providers.base import FileData, Hit, MailProvider, MailQuery, MailThread, OutgoingMail
from integrations.providers.registry import provider_for
from integrations.selectors import connections_for, require_connection
from integrations.services import Asker
from records.models import Contact, ContactEmail, LogEntry

TEXT_PAGE = 30_000  # as files.read: the rest comes with nextOffset
HELD_PREFIX = "held-"  # a new email's thread id until it has gone: `<account>:held-<trigger>`


def mail_provider(connection: Connection, asker: Asker | None = None) -> MailProvider:
    return provider_for(connection, "mail", asked_by=asker)


# --- search ---------------------------------------------------------------------------------------------------


def _fingerprint(query: MailQuery, source: str | None) -> str:
    words = [query.text, query.sender, query.to, str(query.after), str(query.before), str(query.has_attachment), source]
    return hashlib.sha1(json.dumps(words).encode()).hexdigest()[:12]


def _page_decode(page: str, fingerprint: str) -> dict[str, list]:
    try:
        data = json.loads(base64.urlsafe_b64decode(page.encode() + b"=" * (-len(page) % 4)))
        states = data["a"]
        ok = data.get("f") == fingerprint and isinstance(states, dict) and all(
            isinstance(v, list) and len(v) == 2 and isinstance(v[0], str | None) and isinstance(v[1], int)
            and not isinstance(v[1], bool) and 0 <= v[1] <= 500
            for v in states.values()
        )
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        ok = False
    if not ok:
        raise ToolError("bad_input", "page: not a nextPage this search gave; pass nextPage back with the same query")
    return states


def _page_encode(states: dict[str, list], fingerprint: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"f": fingerprint, "a": states}, separators=(",", ":")).encode()).decode(
    ).rstrip("=")


def _people_counts(hits: list[Hit]) -> dict[str, int]:
    """Who is on the most of these threads, most first: `counts.people`, by address, named where a name is known."""
    shown: dict[str, str] = {}
    counts: dict[str, int] = {}
    for hit in hits:
        for person in dict.fromkeys(hit.people or []):
            address = plain_address(person)
            if address not in shown or shown[address] == address:
                shown[address] = person
            counts[address] = counts.get(address, 0) + 1
    ranked = sorted(counts.items(), key=lambda pair: -pair[1])
    return {shown[address]: count for address, count in ranked}


_OLDEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)


def _when(hit: Hit) -> datetime.datetime:
    return hit.date or _OLDEST  # a hit without a date sorts last


@dataclass
class _Searched:
    """One account's part of a search page: its hits not shown yet, and where its pages go on."""

    connection: Connection
    items: list[Hit]
    more: str | None  # the account's next page token
    token: str | None  # the page these items came from
    skip: int  # how many of that page earlier pages showed
    used: int = 0  # how many of `items` this page shows

    @property
    def head(self) -> Hit | None:
        return self.items[self.used] if self.used < len(self.items) else None


def mail_search(*, org, asker: Asker, query: MailQuery, source: str | None, limit: int, page: str | None,
                skip_accounts: frozenset[str] = frozenset()) -> dict:
    """Threads newest first across every connected mail account (`source` narrows them), a page at a time.

    Each account is searched for `limit` threads from where its last page stopped; the merged page takes hits only
    down to the oldest buffered hit of an account with more to give, so no thread is skipped or shown twice.
    `nextPage` keeps each account's own page token and how many of that page were shown already.
    """
    accounts = connections_for(org=org, group="mail", source=source, include_stopped=True)
    if not accounts:
        every = connections_for(org=org, group="mail", include_stopped=True)
        if source and every:
            names = ", ".join(c.account for c in every)
            raise ToolError(
                "bad_input", f"source: no mail account's name contains {source!r}; the accounts are {names}"
            )
        require_connection(org=org, group="mail", asked_by=asker)
    # The accounts search's copy holds whole are searched there (search/takeover.py), not here.
    accounts = [c for c in accounts if c.account_key not in skip_accounts]
    fingerprint = _fingerprint(query, source)
    states = _page_decode(page, fingerprint) if page else None
    searched, failed, parts = [], [], []
    for connection in accounts:
        if states is not None and connection.account_key not in states:
            continue  # that account had nothing more (or wasn't there) when the first page was given
        token, skip = states[connection.account_key] if states is not None else (None, 0)
        try:
            require_connection(org=org, group="mail", account_key=connection.account_key, asked_by=asker)
            provider = mail_provider(connection, asker)
            found = provider.search(query, limit=limit + skip, page=token)
            if len(found.items) <= skip and found.next_page:
                # That page was all shown already (an app may give short pages): its next one, from the top.
                token, skip = found.next_page, 0
                found = provider.search(query, limit=limit, page=token)
        except ToolError as error:
            failed.append(failure(connection, error))
            continue
        searched.append(connection.account)
        parts.append(_Searched(connection, found.items[skip:], found.next_page, token, skip))
    # Unseen hits of an account with more pages are no newer than its oldest buffered one: stop there.
    frontier = max((_when(p.items[-1]) for p in parts if p.more and p.items), default=_OLDEST)
    # Merge newest first, each account's hits in its own order, so what is shown of each is a prefix of its page.
    chosen: list[tuple[Hit, _Searched]] = []
    while len(chosen) < limit:
        ready = [(p.head, p) for p in parts if p.head is not None and _when(p.head) >= frontier]
        if not ready:
            break
        head, part = max(ready, key=lambda ready_part: _when(ready_part[0]))
        chosen.append((head, part))
        part.used += 1
    after: dict[str, list] = {}
    for part in parts:
        if part.used < len(part.items):
            after[part.connection.account_key] = [part.token, part.skip + part.used]
        elif part.more:
            after[part.connection.account_key] = [part.more, 0]
    result = {
        "hits": [hit.as_result(source=part.connection.account) for hit, part in chosen],
        "searched": searched,
        "failed": failed,
        "counts": {"people": _people_counts([hit for hit, _ in chosen])},
    }
    if after:
        result["nextPage"] = _page_encode(after, fingerprint)
    return result


# --- read -----------------------------------------------------------------------------------------------------


def _size_words(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{max(1, round(size / 1024))} KB"


def thread_text(thread: MailThread, *, time_zone: str) -> str:
    """A thread as its messages, oldest first, each with sender, recipients, date and its own words only."""
    blocks = []
    for message in thread.messages:
        lines = [f"From: {message.sender}"]
        if message.to:
            lines.append("To: " + ", ".join(message.to))
        if message.cc:
            lines.append("Cc: " + ", ".join(message.cc))
        lines.append(f"Date: {local_time_words(message.date, time_zone)}")
        if message.subject and message.subject != thread.subject:
            lines.append(f"Subject: {message.subject}")
        if message.attachments:
            lines.append("Attachments: " + "; ".join(f"{a.name} ({_size_words(a.size)})" for a in message.attachments))
        blocks.append("\n".join(lines) + "\n\n" + strip_quoted(message.text))
    return "\n\n---\n\n".join(blocks)


def _paged(content: dict, offset: int) -> dict:
    text = content["text"]
    if offset and offset >= len(text):
        raise ToolError("bad_input", f"offset: the text is {len(text)} characters long; give an offset below that")
    content["text"] = text[offset : offset + TEXT_PAGE]
    if offset + TEXT_PAGE < len(text):
        content["nextOffset"] = offset + TEXT_PAGE
    return content


def mail_read(*, org, asker: Asker, thread_id: str, attachment: str | None, offset: int) -> dict:
    connection, local = split_id(thread_id, org=org)
    connection = require_connection(org=org, group="mail", account_key=connection.account_key, asked_by=asker)
    if local.startswith(HELD_PREFIX):
        held = held_content(org=org, connection=connection, local=local)
        if isinstance(held, dict):
            return _paged(held, offset)
        local = held
    provider = mail_provider(connection, asker)
    thread = provider.read_thread(local)
    if attachment:
        attached_to, attachment_local = split_id(attachment, org=org)
        full = join_id(attached_to, attachment_local)
        listed = next((a for m in thread.messages for a in m.attachments if a.id == full), None)
        if attached_to.pk != connection.pk or listed is None:
            raise ToolError("not_found", f"No attachment {attachment} in that thread: read the thread for its "
                                         "attachments' ids.")
        data = provider.read_attachment(local, attachment_local)
        content = {"title": data.name, "url": thread.url, **attachment_content(data), "id": full,
                   "source": connection.account}
        return _paged(content, offset)
    content = {
        "title": thread.subject or "(no subject)",
        "url": thread.url,
        "text": thread_text(thread, time_zone=org.time_zone),
        "id": thread.id,
        "source": connection.account,
    }
    attachments = [{"id": a.id, "name": a.name, "size": a.size} for m in thread.messages for a in m.attachments]
    if attachments:
        content["attachments"] = attachments
    return _paged(content, offset)


# --- a new email's thread id before it has gone ---------------------------------------------------------------


def _held_of(*, org, connection, local: str) -> HeldEmail:
    number = local[len(HELD_PREFIX):]
    held = (
        HeldEmail.objects.filter(organization=org, connection=connection, number=int(number)).first()
        if number.isdigit() else None
    )
    if held is None:
        raise ToolError("not_found", f"No email {join_id(connection, local)} in this workspace: search again.")
    return held


def held_thread(*, org, connection, local: str) -> str:
    """The app's own thread id of a held email that has gone; bad_input while it waits."""
    held = _held_of(org=org, connection=connection, local=local)
    if held.state == HeldEmail.State.SENT and held.sent_thread_id:
        return split_id(held.sent_thread_id, org=org)[1]
    if held.state == HeldEmail.State.UNDONE:
        raise ToolError("bad_input", "threadId: that email was undone and never sent; write a new one")
    if held.state == HeldEmail.State.UNSURE:
        raise ToolError("bad_input", "threadId: nobody knows yet whether that email went (a card on Home asks "
                                     f"{org.owner_first_name}); reply in a thread of the recipient's instead")
    raise ToolError("bad_input", f"threadId: that email hasn't gone yet (it goes at "
                                 f"{local_time_words(held.send_at, org.time_zone)}); reply once it has")


def held_content(*, org, connection, local: str) -> dict | str:
    """mail.read of `<account>:held-<n>`: the app's own id of the thread it went in, or (while it waits, or if it
    never went) the email itself as Content."""
    held = _held_of(org=org, connection=connection, local=local)
    if held.state == HeldEmail.State.SENT and held.sent_thread_id:
        return split_id(held.sent_thread_id, org=org)[1]
    notes: dict[str, str] = {  # by the row's state (a text field)
        HeldEmail.State.HELD: f"It waits on Home, where {org.owner_first_name} can Undo it, and goes at "
                              f"{local_time_words(held.send_at, org.time_zone)}.",
        HeldEmail.State.SENDING: "It is going out now.",
        HeldEmail.State.UNDONE: f"{org.owner_first_name} undid it: it was never sent.",
        HeldEmail.State.FAILED: f"It couldn't go: {held.last_error} A Try again card is on Home.",
        HeldEmail.State.UNSURE: f"It may or may not have gone: {held.last_error} A card on Home asks "
                                f"{org.owner_first_name}.",
    }
    lines = [f"From: {connection.account}", "To: " + ", ".join(held.to)]
    if held.cc:
        lines.append("Cc: " + ", ".join(held.cc))
    if held.attachments:
        lines.append("Attachments: " + "; ".join(a["name"] for a in held.attachments))
    full = join_id(connection, local)
    return {
        "title": held.subject, "url": f"mail:{full}", "text": "\n".join(lines) + "\n\n" + held.text,
        "note": notes[held.state], "id": full, "source": connection.account,
    }


# --- what an email goes out with ------------------------------------------------------------------------------


def _unique(addresses) -> list[str]:
    return list(dict.fromkeys(a for a in addresses if a))


def recipients(thread: MailThread | None, *, to: list[str], cc: list[str], reply_all: bool,
               owner: set[str]) -> tuple[list[str], list[str]]:
    """Who it goes to. Replying without `to`: the latest sender who isn't the owner (or, when the owner wrote last,
    whom they wrote to). replyAll: everyone on the thread but the owner, the rest of them as cc."""
    to = _unique(plain_address(a) for a in to)
    cc = _unique(plain_address(a) for a in cc)
    if thread is not None and thread.messages:
        if not to or reply_all:
            other = next((m for m in reversed(thread.messages) if plain_address(m.sender) not in owner), None)
            if other is not None:
                answer = [plain_address(other.sender)]
            else:
                answer = [a for _, a in address_list(thread.messages[-1].to) if a not in owner]
            to = _unique(to + answer)
        if reply_all:
            everyone = [a for m in thread.messages for _, a in address_list([m.sender, *m.to, *m.cc])]
            cc = _unique(cc + [a for a in everyone if a not in owner])
    cc = [a for a in cc if a not in to]
    return to, cc


@dataclass
class Outgoing:
    """An email ready to go: its account, the thread it answers, its recipients and attachments."""

    connection: Connection
    provider: MailProvider
    thread_local: str | None
    thread_id: str | None  # full
    to: list[str]
    cc: list[str]
    attachments: list[FileData]


def outgoing_prepare(*, org, asker: Asker, to: list[str], cc: list[str], thread_id: str | None, reply_all: bool,
                     attach: list, workspace_file: WorkspaceFile | None = None) -> Outgoing:
    thread = None
    local = None
    if thread_id:
        connection, local = split_id(thread_id, org=org)
        connection = require_connection(org=org, group="mail", account_key=connection.account_key, write=True,
                                        asked_by=asker)
        if local.startswith(HELD_PREFIX):
            local = held_thread(org=org, connection=connection, local=local)
        provider = mail_provider(connection, asker)
        thread = provider.read_thread(local)
    else:
        connection = require_connection(org=org, group="mail", write=True, asked_by=asker)
        provider = mail_provider(connection, asker)
    to, cc = recipients(thread, to=to, cc=cc, reply_all=reply_all, owner=owner_addresses(connection))
    if not to and not cc:
        raise ToolError("bad_input", "to: give at least one address, or a threadId to reply in")
    attachments = attachments_gather(org=org, asker=asker, attach=attach, workspace_file=workspace_file)
    return Outgoing(connection, provider, local, join_id(connection, local) if local else None, to, cc, attachments)


def _drive_file(*, org, asker: Asker, value: str) -> FileData:
    """A Drive file by id or link (as files tools take them), Google files as PDFs."""
    ref = file_ref(org=org, value=value, asker=asker)
    return ref.provider.export_pdf(ref.local_id)


def _mail_attachment(*, org, asker: Asker, email: str | None, attachment: str, where: str) -> FileData:
    connection, local = split_id(attachment, org=org)
    thread_local = ""
    if email:
        email_connection, thread_local = split_id(email, org=org)
        if email_connection.pk != connection.pk:
            raise ToolError("not_found", f"{where}: that attachment isn't in that email; read the email for its "
                                         "attachments' ids")
    connection = require_connection(org=org, group="mail", account_key=connection.account_key, asked_by=asker)
    return mail_provider(connection, asker).read_attachment(thread_local, local)


# Reads a workspace file for `{ workspace }` (path, field) -> bytes: the workspace sits above this app, so the tool
# that sends hands its reader in.
WorkspaceFile = Callable[[str, str], FileData]


def attachments_gather(*, org, asker: Asker, attach: list, workspace_file: WorkspaceFile | None = None
                       ) -> list[FileData]:
    """Each `attach` item's bytes: Drive files (Google files as PDFs), mail attachments, workspace files; 25 MB in
    all."""
    files, total = [], 0
    for i, item in enumerate(attach or []):
        where = f"attach[{i}]"
        if item.workspace is not None:
            if workspace_file is None:
                raise ToolError("unsupported", f"{where}.workspace: workspace files can't be attached from here; "
                                               "attach a Drive file or an email's attachment.")
            data = workspace_file(item.workspace, f"{where}.workspace")
        elif item.file is not None:
            data = _drive_file(org=org, asker=asker, value=item.file)
        else:
            data = _mail_attachment(org=org, asker=asker, email=item.email, attachment=item.attachment, where=where)
        total += data.size
        if total > MAX_ATTACHMENTS:
            raise ToolError("too_large", f"attach: the files come to more than 25 MB (at {data.name}); send a link "
                                         "to them instead")
        files.append(data)
    return files


# --- drafts ---------------------------------------------------------------------------------------------------


def contacts_with(*, org, addresses: list[str]) -> list[Contact]:
    """The workspace's contacts who have one of these addresses, each once."""
    lowered = {a.lower() for a in addresses}
    if not lowered:
        return []
    rows = (
        ContactEmail.objects.filter(organization=org).annotate(low=Lower("email")).filter(low__in=lowered)
        .select_related("contact").order_by("position", "id")
    )
    return list({row.contact_id: row.contact for row in rows}.values())


def contacts_log(*, org, actor: Actor, kind: str, addresses: list[str], text: str, extra: dict) -> list[LogEntry]:
    return [
        log_write(org=org, actor=actor, kind=kind, contact=contact, text=text, extra=extra)
        for contact in contacts_with(org=org, addresses=addresses)
    ]


def mail_draft(*, org, actor: Actor, asker: Asker, to: list[str], cc: list[str], subject: str, text: str,
               thread_id: str | None, reply_all: bool, attach: list,
               signature: bool, workspace_file: WorkspaceFile | None = None
               ) -> tuple[dict, Callable[[], list[LogEntry]]]:
    """The draft made in the app (no transaction may be open), and the write of the contacts' "drafted" log lines,
    for the caller to run in its own transaction."""
    ready = outgoing_prepare(org=org, asker=asker, to=to, cc=cc, thread_id=thread_id, reply_all=reply_all,
                             attach=attach, workspace_file=workspace_file)
    made = ready.provider.draft(OutgoingMail(
        to=ready.to, subject=subject, text=text, cc=ready.cc, thread_id=ready.thread_local,
        attachments=ready.attachments, signature=signature,
    ))

    def log() -> list[LogEntry]:
        return contacts_log(
            org=org, actor=actor, kind=LogEntry.Kind.DRAFTED, addresses=ready.to + ready.cc,
            text=f"Drafted “{subject}”", extra={"subject": subject, "to": ready.to, "thread": made.thread_id},
        )

    return {"draftId": made.draft_id, "threadId": made.thread_id, "to": ready.to}, log
