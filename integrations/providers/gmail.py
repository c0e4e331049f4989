"""Gmail (Gmail API v1): the owner's mail read live, drafts made and email sent from their account.

- search: threads.list with Gmail's own query (`q`, its search box syntax), then each thread's headers
  (threads.get, format metadata) for its subject, people, newest date and snippet.
- read_thread: threads.get (format full): each message's plain text (HTML converted when there is none), its
  attachments as `<message id>.<part id>` (short and stable; Gmail's own attachment ids are neither).
- read_attachment: the message's part, then attachments.get for its bytes.
- draft / send: an RFC 5322 message (`raw`) with the Message-ID Roadstar gave it; replies carry In-Reply-To and
  References and the threadId, as Gmail threads them. The owner's Gmail signature (sendAs) is added unless
  `signature` is false: the API doesn't add it by itself.
- find_sent: `rfc822msgid:` in sent mail (Gmail keeps the Message-ID a sent message came with).
- changes: history.list from the cursor (a historyId), messages added to INBOX; a cursor too old for Gmail's history
  (404) starts watching again from now.
- The search copy (search/google_copy.py): `mailbox` (getProfile: the historyId to go on from, the message count),
  `message_ids` (messages.list, a page at a time), `copied_messages` (messages.get, 50 to a batch request, with
  labels and attachments' parts), `attachment_bytes`, `label_names`, and `history` (history.list: what was added,
  deleted or relabelled since a historyId; an expired one raises CursorExpired).
"""

from __future__ import annotations

import base64
import datetime
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from core.errors import ToolError
from integrations.clients import google_execute, google_service
from integrations.errors import from_google_http_error
from integrations.mail_text import (
    address_list,
    html_to_text,
    mime_message,
    owner_addresses,
    people_on,
    person,
    raw_of,
)
from integrations.oauth import credentials_for
from integrations.providers.base import (
    Changes,
    CursorExpired,
    DraftRef,
    FileData,
    Hit,
    MailAttachment,
    MailMessage,
    MailProvider,
    MailQuery,
    MailThread,
    Page,
    SentRef,
)
from integrations.providers.registry import register_provider

HEADERS = ["From", "To", "Cc", "Subject", "Date", "Message-ID"]
MAX_BYTES = 25 * 1024 * 1024
CHANGES_MAX = 100  # messages one poll reads; the cursor stops where it got to, and the next poll goes on
SNIPPET = 200


@dataclass
class CopiedMessage:
    """A message as the search copy takes it: the message, its labels, and where each attachment's bytes are."""

    message: MailMessage
    labels: list[str]
    # The attachment's full id -> (Gmail's attachmentId, or None when the bytes came inline; inline bytes).
    parts: dict[str, tuple[str | None, bytes]] = field(default_factory=dict)


@dataclass
class MailHistory:
    """One page of history.list: messages added or relabelled (read them again), messages deleted."""

    changed: list[str]
    deleted: list[str]
    next_page: str | None
    history_id: str


HISTORY_TYPES = ["messageAdded", "messageDeleted", "labelAdded", "labelRemoved"]
BATCH_READS = 50


def _decode(data: str | None) -> bytes:
    if not data:
        return b""
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def _headers(payload: dict) -> dict[str, str]:
    return {h["name"].lower(): h["value"] for h in payload.get("headers", [])}


def _date(message: dict) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(int(message.get("internalDate") or 0) / 1000, tz=datetime.UTC)


def _split(value: str) -> list[str]:
    return [person(name, address) for name, address in address_list(value)] if value else []


def _charset(part: dict) -> str:
    for header in part.get("headers", []):
        if header["name"].lower() == "content-type" and "charset=" in header["value"].lower():
            return header["value"].lower().split("charset=", 1)[1].split(";")[0].strip().strip('"') or "utf-8"
    return "utf-8"


def _text(data: bytes, charset: str) -> str:
    try:
        return data.decode(charset, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


def _parts(payload: dict):
    yield payload
    for part in payload.get("parts", []) or []:
        yield from _parts(part)


class GmailProvider(MailProvider):
    _service = None
    _messages_cached = None

    def _gmail(self):
        # One client a provider: the search copy reads a page's messages one call each, and building the client
        # (and reading the connection's credentials) each time would cost more than some of the calls.
        if self._service is None:
            self._service = self._build()
        return self._service

    def _build(self):
        http = self.options.get("http")
        if http is not None:
            # Tests: the recorded Gmail answers, through the connection's own credentials (so an expired token is
            # refreshed first, and a 401 refreshes it once, as googleapiclient does in production).
            from google_auth_httplib2 import AuthorizedHttp

            http = AuthorizedHttp(credentials_for(self.connection), http=http)
        return google_service(self.connection, "gmail", "v1", http=http)

    def _run(self, request):
        return google_execute(request, connection=self.connection, group="mail",
                              asked_by=self.options.get("asked_by"))

    def url(self, thread_id: str) -> str:
        return f"https://mail.google.com/mail/?authuser={quote(self.connection.account)}#all/{thread_id}"

    # --- search ---------------------------------------------------------------------------------------------

    @staticmethod
    def q(query: MailQuery) -> str:
        words = [query.text.strip()] if query.text and query.text.strip() else []
        for operator, value in (("from", query.sender), ("to", query.to)):
            if value and value.strip():
                value = value.strip()
                words.append(f'{operator}:"{value}"' if " " in value else f"{operator}:{value}")
        if query.after:
            words.append(f"after:{query.after:%Y/%m/%d}")
        if query.before:
            words.append(f"before:{query.before:%Y/%m/%d}")
        if query.has_attachment is True:
            words.append("has:attachment")
        elif query.has_attachment is False:
            words.append("-has:attachment")
        return " ".join(words)

    def search(self, query: MailQuery, *, limit: int, page: str | None = None) -> Page[Hit]:
        gmail = self._gmail()
        listed = self._run(gmail.users().threads().list(
            userId="me", q=self.q(query), maxResults=limit, pageToken=page or None
        ))
        hits = []
        for item in listed.get("threads", []):
            thread = self._run(gmail.users().threads().get(
                userId="me", id=item["id"], format="metadata", metadataHeaders=HEADERS
            ))
            hits.append(self._hit(thread, snippet=item.get("snippet")))
        return Page(hits, listed.get("nextPageToken"))

    def _hit(self, thread: dict, *, snippet: str | None) -> Hit:
        messages = [m for m in thread.get("messages", []) if "DRAFT" not in m.get("labelIds", [])] or thread.get(
            "messages", [])
        heads = [_headers(m.get("payload", {})) for m in messages]
        latest = heads[-1] if heads else {}
        people = people_on([(h.get("from", ""), [h.get("to", ""), h.get("cc", "")]) for h in heads],
                           owner_addresses(self.connection))
        return Hit(
            id=self.global_id(thread["id"]), title=(heads[0].get("subject") if heads else "") or "(no subject)",
            type="email", url=self.url(thread["id"]), who=latest.get("from"), people=people,
            date=_date(messages[-1]) if messages else None,
            snippet=(snippet or (messages[-1].get("snippet") if messages else "") or "")[:SNIPPET] or None,
        )

    # --- reading --------------------------------------------------------------------------------------------

    def _message(self, message: dict) -> MailMessage:
        payload = message.get("payload", {})
        head = _headers(payload)
        plain = html = None
        attachments = []
        for part in _parts(payload):
            body = part.get("body", {})
            if part.get("filename"):
                attachments.append(MailAttachment(
                    id=self.global_id(f"{message['id']}.{part.get('partId', '')}"), name=part["filename"],
                    size=int(body.get("size") or 0), mime_type=part.get("mimeType") or "application/octet-stream",
                ))
            elif part.get("mimeType") == "text/plain" and plain is None and "data" in body:
                plain = _text(_decode(body["data"]), _charset(part))
            elif part.get("mimeType") == "text/html" and html is None and "data" in body:
                html = _text(_decode(body["data"]), _charset(part))
        return MailMessage(
            id=self.global_id(message["id"]), thread_id=self.global_id(message.get("threadId", "")),
            sender=head.get("from", ""), to=_split(head.get("to", "")), cc=_split(head.get("cc", "")),
            date=_date(message), subject=head.get("subject", ""),
            text=(plain if plain is not None else html_to_text(html or "")).strip(), attachments=attachments,
            message_id=head.get("message-id"),
        )

    def read_thread(self, thread_id: str) -> MailThread:
        thread = self._run(self._gmail().users().threads().get(userId="me", id=thread_id, format="full"))
        messages = [m for m in thread.get("messages", []) if "DRAFT" not in m.get("labelIds", [])]
        parsed = [self._message(m) for m in messages]
        return MailThread(
            id=self.global_id(thread["id"]), subject=parsed[0].subject if parsed else "", url=self.url(thread["id"]),
            messages=parsed,
        )

    def read_attachment(self, thread_id: str, attachment_id: str) -> FileData:
        message_id, _, part_id = attachment_id.rpartition(".")
        if not message_id:
            raise ToolError("not_found", f"No attachment {self.global_id(attachment_id)}: read the thread again for "
                                         "its attachments' ids.")
        gmail = self._gmail()
        message = self._run(gmail.users().messages().get(userId="me", id=message_id, format="full"))
        part = next((p for p in _parts(message.get("payload", {})) if p.get("partId") == part_id and p.get("filename")),
                    None)
        if part is None:
            raise ToolError("not_found", f"No attachment {self.global_id(attachment_id)} in that email: read the "
                                         "thread again for its attachments' ids.")
        body = part.get("body", {})
        if int(body.get("size") or 0) > MAX_BYTES:
            raise ToolError("too_large", f"{part['filename']} is over 25 MB: use its link instead.")
        if "data" in body:
            data = _decode(body["data"])
        else:
            answer = self._run(gmail.users().messages().attachments().get(
                userId="me", messageId=message_id, id=body.get("attachmentId", "")
            ))
            data = _decode(answer.get("data"))
        return FileData(part["filename"], part.get("mimeType") or "application/octet-stream", data)

    # --- writing --------------------------------------------------------------------------------------------

    def _reply_headers(self, gmail, thread_id: str | None) -> tuple[str, str]:
        if not thread_id:
            return "", ""
        thread = self._run(gmail.users().threads().get(
            userId="me", id=thread_id, format="metadata", metadataHeaders=["Message-ID", "References"]
        ))
        messages = [m for m in thread.get("messages", []) if "DRAFT" not in m.get("labelIds", [])]
        if not messages:
            return "", ""
        head = _headers(messages[-1].get("payload", {}))
        return head.get("message-id", ""), head.get("references", "")

    def _signature(self, gmail) -> str | None:
        try:
            answer = self._run(gmail.users().settings().sendAs().list(userId="me"))
        except ToolError as error:
            if error.kind in ("reauth", "unavailable", "rate_limited"):
                raise
            return None  # no signature to read is no reason to hold the email back
        own = self.connection.account.lower()
        entries = answer.get("sendAs", [])
        entry = next((e for e in entries if e.get("sendAsEmail", "").lower() == own), None) or next(
            (e for e in entries if e.get("isDefault")), None)
        signature = (entry or {}).get("signature") or ""
        return html_to_text(signature) or None

    def _raw(self, gmail, mail) -> dict:
        in_reply_to, references = self._reply_headers(gmail, mail.thread_id)
        signature = self._signature(gmail) if mail.signature else None
        message = mime_message(mail, sender=self.connection.account, in_reply_to=in_reply_to,
                               references=references, signature=signature)
        body = {"raw": raw_of(message)}
        if mail.thread_id:
            body["threadId"] = mail.thread_id
        return body

    def draft(self, mail) -> DraftRef:
        gmail = self._gmail()
        made = self._run(gmail.users().drafts().create(userId="me", body={"message": self._raw(gmail, mail)}))
        message = made.get("message", {})
        return DraftRef(self.global_id(made["id"]), self.global_id(message.get("threadId", "")), list(mail.to))

    def send(self, mail) -> SentRef:
        gmail = self._gmail()
        sent = self._run(gmail.users().messages().send(userId="me", body=self._raw(gmail, mail)))
        return SentRef(self.global_id(sent["id"]), self.global_id(sent.get("threadId", "")))

    def find_sent(self, message_id: str) -> SentRef | None:
        bare = message_id.strip().strip("<>")
        found = self._run(self._gmail().users().messages().list(
            userId="me", q=f"in:sent rfc822msgid:{bare}", maxResults=1
        ))
        messages = found.get("messages", [])
        if not messages:
            return None
        return SentRef(self.global_id(messages[0]["id"]), self.global_id(messages[0].get("threadId", "")))

    # --- new mail -------------------------------------------------------------------------------------------

    def changes(self, cursor: str | None) -> Changes[MailMessage]:
        gmail = self._gmail()
        if cursor is None:
            profile = self._run(gmail.users().getProfile(userId="me"))
            return Changes([], str(profile["historyId"]))
        added: list[str] = []
        page, reached = None, cursor
        while True:
            try:
                answer = self._run(gmail.users().history().list(
                    userId="me", startHistoryId=cursor, historyTypes=["messageAdded"], labelId="INBOX",
                    pageToken=page, maxResults=500,
                ))
            except ToolError as error:
                if error.kind != "not_found":
                    raise
                # Gmail keeps about a week of history: a cursor older than that starts watching again from now.
                return self.changes(None)
            for record in answer.get("history", []):
                for item in record.get("messagesAdded", []):
                    message = item.get("message", {})
                    labels = message.get("labelIds", [])
                    if "DRAFT" in labels or "SENT" in labels or message.get("id") in added:
                        continue
                    added.append(message["id"])
                reached = str(record.get("id", reached))
                if len(added) >= CHANGES_MAX:
                    return Changes(self._messages(gmail, added), reached)
            page = answer.get("nextPageToken")
            if not page:
                return Changes(self._messages(gmail, added), str(answer.get("historyId", reached)))

    def _messages(self, gmail, ids: list[str]) -> list[MailMessage]:
        messages = []
        for message_id in ids:
            try:
                messages.append(self._message(self._run(
                    gmail.users().messages().get(userId="me", id=message_id, format="full")
                )))
            except ToolError as error:
                if error.kind != "not_found":  # deleted since it came: nothing to tell
                    raise
        return messages


    # --- the search copy ------------------------------------------------------------------------------------

    def mailbox(self) -> tuple[str, int]:
        """The mailbox's historyId now, and how many messages it holds."""
        profile = self._run(self._gmail().users().getProfile(userId="me"))
        return str(profile["historyId"]), int(profile.get("messagesTotal") or 0)

    def message_ids(self, *, page: str | None, size: int) -> Page[str]:
        """One page of every message's Gmail id (spam and trash left out, as Gmail lists them by default)."""
        answer = self._run(self._gmail().users().messages().list(userId="me", maxResults=size, pageToken=page or None))
        return Page([m["id"] for m in answer.get("messages", [])], answer.get("nextPageToken"))

    def _messages_resource(self):
        # googleapiclient makes a resource's methods anew from the discovery document on every users().messages():
        # that was 85% of the copy's own time a message. A page's reads share one.
        if self._messages_cached is None:
            self._messages_cached = self._gmail().users().messages()
        return self._messages_cached

    def copied_messages(self, ids: list[str]) -> dict[str, CopiedMessage | None]:
        """These messages in full with their labels, by id; None for one that is gone (deleted since it was listed).
        Read 50 to a batch request: one exchange with Gmail instead of 50 (Gmail limits larger batches)."""
        from googleapiclient.errors import HttpError

        found: dict[str, CopiedMessage | None] = {}
        for start in range(0, len(ids), BATCH_READS):
            answers: dict[str, Any] = {}

            def collect(request_id, response, exception, answers=answers):
                answers[request_id] = exception if exception is not None else response

            batch = self._gmail().new_batch_http_request(callback=collect)
            for message_id in dict.fromkeys(ids[start:start + BATCH_READS]):
                batch.add(self._messages_resource().get(userId="me", id=message_id, format="full"),
                          request_id=message_id)
            self._run(batch)
            for message_id, answer in answers.items():
                if isinstance(answer, HttpError):
                    error = from_google_http_error(answer, connection=self.connection, group="mail",
                                                   asked_by=self.options.get("asked_by"))
                    if error.kind != "not_found":
                        raise error from answer
                    found[message_id] = None
                else:
                    found[message_id] = self._copied(answer)
        return found

    def _copied(self, raw: dict) -> CopiedMessage:
        parts = {}
        for part in _parts(raw.get("payload", {})):
            if part.get("filename"):
                body = part.get("body", {})
                full_id = self.global_id(f"{raw['id']}.{part.get('partId', '')}")
                parts[full_id] = (body.get("attachmentId"), _decode(body.get("data")) if "data" in body else b"")
        return CopiedMessage(self._message(raw), list(raw.get("labelIds", [])), parts)

    def attachment_bytes(self, message_id: str, attachment_id: str) -> bytes:
        answer = self._run(self._messages_resource().attachments().get(
            userId="me", messageId=message_id, id=attachment_id))
        return _decode(answer.get("data"))

    def label_names(self) -> dict[str, str]:
        answer = self._run(self._gmail().users().labels().list(userId="me"))
        return {label["id"]: label.get("name", label["id"]) for label in answer.get("labels", [])}

    def history(self, *, start: str, page: str | None) -> MailHistory:
        """One page of what happened since `start`: the ids to read again and the ids deleted. A historyId older
        than Gmail keeps (about a week; 404) raises CursorExpired."""
        try:
            answer = self._run(self._gmail().users().history().list(
                userId="me", startHistoryId=start, historyTypes=HISTORY_TYPES, pageToken=page or None, maxResults=500,
            ))
        except ToolError as error:
            if error.kind == "not_found":
                raise CursorExpired(f"Gmail no longer keeps the history from {start}") from error
            raise
        changed, deleted = [], []
        for record in answer.get("history", []):
            deleted += [item["message"]["id"] for item in record.get("messagesDeleted", [])]
            for kind in ("messagesAdded", "labelsAdded", "labelsRemoved"):
                changed += [item["message"]["id"] for item in record.get(kind, [])]
        # A message added and then deleted in the same stretch is simply gone; whatever else happened to a message,
        # reading it again gives its state now.
        gone = set(deleted)
        return MailHistory([i for i in dict.fromkeys(changed) if i not in gone], list(dict.fromkeys(deleted)),
                           answer.get("nextPageToken"), str(answer.get("historyId") or start))


register_provider("google", "mail", GmailProvider)
