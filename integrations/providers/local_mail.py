"""Roadstar's own mailbox: the owner's mail kept in the database (integrations.local.models_mail), attachments in
a folder on disk, importable from .mbox / .eml (`manage.py import_mail`). Outgoing mail goes through Django's email
backend (SMTP when EMAIL_HOST is set) and is kept here as sent.

Search understands a subset of Gmail's words: from:, to:, cc:, subject:, in:sent / in:inbox / in:drafts /
in:anywhere, after: / before: (YYYY-MM-DD or YYYY/MM/DD), newer_than: / older_than: (3d, 2w, 6m, 1y),
has:attachment, filename:, "quoted phrases", -negation, OR and {…} groups, and free words (subject, text and
people). A word for what the local mailbox doesn't have (category:promotions, is:starred) is refused with the list
above; negated, it excludes nothing, so it is ignored.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable

from django.core.mail import EmailMessage as DjangoEmail
from django.core.mail import mailers
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.utils import timezone

from core.errors import ToolError
from core.network import network_call
from core.owner_zone import owner_zone
from integrations.local.mailbox import Incoming, blob_get, message_store
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage, LocalMailThread
from integrations.mail_text import owner_addresses, people_on, strip_quoted
from integrations.providers.base import (
    Changes,
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
from integrations.smtp import HandOffUncertain

CHANGES_BATCH = 200
SNIPPET = 200
_TOKEN = re.compile(r'\{|\}|-?[\w.]+:"[^"]*"|-?"[^"]*"|[^\s{}]+')
SUPPORTED = ("from:, to:, cc:, subject:, in:sent, in:inbox, in:drafts, in:anywhere, after:, before:, newer_than:, "
             "older_than:, has:attachment, filename:, \"phrases\", -word, OR, {a b} and free words")


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


class _Query:
    """A search's words -> a Q on LocalMailMessage, terms AND-ed, `OR` and {…} groups OR-ed, as Gmail reads them."""

    def __init__(self, zone: datetime.tzinfo):
        self.zone = zone
        self.box: str | None = None  # None: inbox and sent; "any": drafts too

    def day(self, value: str, field: str) -> datetime.datetime:
        try:
            day = datetime.date.fromisoformat(value.replace("/", "-"))
        except ValueError as exc:
            raise ToolError("bad_input", f"{field}: {value!r} is not a date; give YYYY-MM-DD") from exc
        return datetime.datetime.combine(day, datetime.time(), tzinfo=self.zone)

    def age(self, value: str) -> datetime.datetime:
        match = re.fullmatch(r"(\d+)([dmy])", value.lower())
        if not match:
            raise ToolError("bad_input", f"query: {value!r} is not an age such as 3d, 2m or 1y")
        days = int(match[1]) * {"d": 1, "m": 31, "y": 366}[match[2]]
        return timezone.now() - datetime.timedelta(days=days)

    def term(self, token: str) -> Q | None:
        negated = token.startswith("-") and len(token) > 1
        body = token[1:] if negated else token
        operator, colon, value = body.partition(":")
        q: Q | None
        if colon and not body.startswith('"') and operator.lower() in _OPERATORS:
            q = _OPERATORS[operator.lower()](self, _unquote(value).strip())
        elif colon and not body.startswith('"') and re.fullmatch(r"[a-z_]+", operator.lower()):
            if negated:
                return None  # excluding what the local mailbox doesn't have excludes nothing
            raise ToolError("bad_input", f"query: the local mailbox doesn't understand {body!r}; it understands "
                                         f"{SUPPORTED}")
        else:
            words = _unquote(body)
            if not words.strip():
                return None
            q = Q(subject__icontains=words) | Q(text__icontains=words) | Q(people__icontains=words)
        if q is None:
            return None
        return ~q if negated else q

    def parse(self, text: str) -> Q:
        groups: list[Q] = []
        join_next = False
        tokens = _TOKEN.findall(text or "")
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token == "OR":
                join_next = bool(groups)
                continue
            if token == "{":
                inner: Q | None = None
                while i < len(tokens) and tokens[i] != "}":
                    term = self.term(tokens[i])
                    i += 1
                    if term is not None:
                        inner = term if inner is None else inner | term
                i += 1  # the closing brace
                q = inner
            elif token == "}":
                continue
            else:
                q = self.term(token)
            if q is None:
                join_next = False
                continue
            if join_next:
                groups[-1] = groups[-1] | q
            else:
                groups.append(q)
            join_next = False
        combined = Q()
        for q in groups:
            combined &= q
        return combined


def _in(query: _Query, value: str) -> Q | None:
    value = value.lower()
    if value == "sent":
        return Q(box=LocalMailMessage.Box.SENT)
    if value == "inbox":
        return Q(box=LocalMailMessage.Box.INBOX)
    if value in ("drafts", "draft"):
        query.box = "any"
        return Q(box=LocalMailMessage.Box.DRAFT)
    if value in ("anywhere", "all"):
        query.box = "any"
        return None
    raise ToolError("bad_input", f"query: in:{value} isn't a box of the local mailbox: sent, inbox, drafts, anywhere")


def _has(query: _Query, value: str) -> Q | None:
    if value.lower() in ("attachment", "attachments"):
        return Q(Exists(LocalMailAttachment.objects.filter(message=OuterRef("pk"))))
    raise ToolError("bad_input", f"query: has:{value} isn't something the local mailbox knows; has:attachment is")


def _addressed_to(query: _Query, value: str) -> Q:
    return Q(to__icontains=value) | Q(cc__icontains=value) | Q(bcc__icontains=value)


# Each operator's query, or None when it narrows nothing (in:anywhere).
_OPERATORS: dict[str, Callable[[_Query, str], Q | None]] = {
    "from": lambda q, v: Q(sender__icontains=v),
    "to": _addressed_to,
    "cc": lambda q, v: Q(cc__icontains=v),
    "bcc": lambda q, v: Q(bcc__icontains=v),
    "subject": lambda q, v: Q(subject__icontains=v),
    "in": _in,
    "label": _in,
    "has": _has,
    "filename": lambda q, v: Q(Exists(LocalMailAttachment.objects.filter(message=OuterRef("pk"), name__icontains=v))),
    "after": lambda q, v: Q(date__gte=q.day(v, "after")),
    "since": lambda q, v: Q(date__gte=q.day(v, "after")),
    "before": lambda q, v: Q(date__lt=q.day(v, "before")),
    "newer_than": lambda q, v: Q(date__gte=q.age(v)),
    "older_than": lambda q, v: Q(date__lt=q.age(v)),
}


class LocalMailProvider(MailProvider):
    sent_mail_tells = False

    def _zone(self) -> datetime.tzinfo:
        return owner_zone(self.connection.organization)

    def url(self, thread_key: str) -> str:
        # The local mailbox has no web page of its own: a Roadstar link, as packets name mail (`mail:<id>`).
        return f"mail:{self.global_id(thread_key)}"

    # --- search ---------------------------------------------------------------------------------------------

    def _filters(self, query: MailQuery) -> Q:
        words = _Query(self._zone())
        q = words.parse(query.text or "")
        if query.sender:
            q &= Q(sender__icontains=query.sender)
        if query.to:
            q &= _addressed_to(words, query.to)
        if query.after:
            q &= Q(date__gte=words.day(query.after.isoformat(), "after"))
        if query.before:
            q &= Q(date__lt=words.day(query.before.isoformat(), "before"))
        if query.has_attachment is not None:
            has = Q(Exists(LocalMailAttachment.objects.filter(message=OuterRef("pk"))))
            q &= has if query.has_attachment else ~has
        if words.box is None:
            q &= ~Q(box=LocalMailMessage.Box.DRAFT)
        return q

    def search(self, query: MailQuery, *, limit: int, page: str | None = None) -> Page[Hit]:
        try:
            offset = int(page or 0)
        except ValueError as exc:
            raise ToolError("bad_input", "page: not a page this search gave") from exc
        matching = LocalMailMessage.objects.filter(connection=self.connection).filter(self._filters(query))
        shown = LocalMailMessage.objects.exclude(box=LocalMailMessage.Box.DRAFT).order_by("date", "id")
        threads = list(
            LocalMailThread.objects.filter(connection=self.connection)
            .filter(Exists(matching.filter(thread=OuterRef("pk"))))
            .order_by("-last_at", "-id")
            .prefetch_related(Prefetch("messages", queryset=shown))[offset : offset + limit + 1]
        )
        more = len(threads) > limit
        return Page([self._hit(t) for t in threads[:limit]], str(offset + limit) if more else None)

    def _hit(self, thread: LocalMailThread) -> Hit:
        messages = list(thread.messages.all())  # those search prefetched: drafts left out, oldest first
        latest = messages[-1] if messages else None
        owner = owner_addresses(self.connection)
        return Hit(
            id=self.global_id(thread.key),
            title=thread.subject or "(no subject)",
            type="email",
            url=self.url(thread.key),
            who=latest.sender if latest else None,
            people=people_on([(m.sender, [*m.to, *m.cc, *m.bcc]) for m in messages], owner),
            date=thread.last_at,
            snippet=" ".join(strip_quoted(latest.text).split())[:SNIPPET] if latest else None,
        )

    # --- reading --------------------------------------------------------------------------------------------

    def _thread(self, thread_key: str) -> LocalMailThread:
        thread = LocalMailThread.objects.filter(connection=self.connection, key=thread_key).first()
        if thread is None:
            raise ToolError("not_found", f"No thread {self.global_id(thread_key)} in {self.source}: search again.")
        return thread

    def _message(self, message: LocalMailMessage, thread_key: str) -> MailMessage:
        return MailMessage(
            id=self.global_id(message.key), thread_id=self.global_id(thread_key), sender=message.sender,
            to=list(message.to), cc=list(message.cc), date=message.date, subject=message.subject, text=message.text,
            attachments=[
                MailAttachment(id=self.global_id(a.key), name=a.name, size=a.size, mime_type=a.mime_type)
                for a in message.attachments.all()
            ],
            message_id=message.message_id or None,
        )

    def read_thread(self, thread_id: str) -> MailThread:
        thread = self._thread(thread_id)
        messages = (
            thread.messages.exclude(box=LocalMailMessage.Box.DRAFT)
            .order_by("date", "id")
            .prefetch_related("attachments")
        )
        return MailThread(
            id=self.global_id(thread.key), subject=thread.subject, url=self.url(thread.key),
            messages=[self._message(m, thread.key) for m in messages],
        )

    def read_attachment(self, thread_id: str, attachment_id: str) -> FileData:
        found = LocalMailAttachment.objects.filter(connection=self.connection, key=attachment_id)
        if thread_id:
            found = found.filter(message__thread__key=thread_id)
        attachment = found.first()
        if attachment is None:
            raise ToolError("not_found", f"No attachment {self.global_id(attachment_id)} in that thread: read the "
                                         "thread again for its attachments' ids.")
        return FileData(attachment.name, attachment.mime_type, blob_get(self.connection.organization_id,
                                                                         attachment.sha256))

    # --- writing --------------------------------------------------------------------------------------------

    def _reply_headers(self, thread_key: str | None) -> tuple[str, str]:
        if not thread_key:
            return "", ""
        thread = self._thread(thread_key)
        latest = thread.messages.exclude(box=LocalMailMessage.Box.DRAFT).exclude(message_id="").order_by(
            "-date", "-id").first()
        if latest is None:
            return "", ""
        return latest.message_id, " ".join(f"{latest.references} {latest.in_reply_to}".split())

    def _incoming(self, mail, *, box: str) -> Incoming:
        in_reply_to, references = self._reply_headers(mail.thread_id)
        return Incoming(
            sender=self.connection.account, to=list(mail.to), cc=list(mail.cc), subject=mail.subject, text=mail.text,
            date=timezone.now(), box=box, message_id=mail.message_id or "", in_reply_to=in_reply_to,
            references=references, attachments=[(a.name, a.mime_type, a.data) for a in mail.attachments],
            thread_key=mail.thread_id,
        )

    def draft(self, mail) -> DraftRef:
        stored = message_store(self.connection, self._incoming(mail, box=LocalMailMessage.Box.DRAFT))
        return DraftRef(self.global_id(stored.key), self.global_id(stored.thread.key), list(mail.to))

    def send(self, mail) -> SentRef:
        incoming = self._incoming(mail, box=LocalMailMessage.Box.SENT)
        headers = {"Message-ID": incoming.message_id} if incoming.message_id else {}
        if incoming.in_reply_to:
            headers["In-Reply-To"] = incoming.in_reply_to
            headers["References"] = f"{incoming.references} {incoming.in_reply_to}".strip()
        email = DjangoEmail(
            subject=mail.subject, body=mail.text, from_email=self.connection.account, to=list(mail.to),
            cc=list(mail.cc), headers=headers,
        )
        for attachment in mail.attachments:
            email.attach(attachment.name, attachment.data, attachment.mime_type)
        # The hand-off happens with no transaction open (a slow mail server must not hold the database's write
        # lock), and the sent copy is kept after the server took it. A worker that stops in between leaves no
        # copy: the sent copy can't prove an email didn't go, so `sent_mail_tells` is False.
        network_call("the SMTP hand-off")
        try:
            mailers.default.send_messages([email])
        except HandOffUncertain as e:
            raise ToolError("unknown_outcome", f"The mail server may or may not have taken the email: {e}.") from e
        except OSError as e:  # smtplib's errors are OSErrors
            raise ToolError("unavailable", f"The mail server didn't take the email ({e.__class__.__name__}): "
                                           "try again later.") from e
        stored = message_store(self.connection, incoming)
        return SentRef(self.global_id(stored.key), self.global_id(stored.thread.key))

    def find_sent(self, message_id: str) -> SentRef | None:
        stored = (
            LocalMailMessage.objects.filter(connection=self.connection, box=LocalMailMessage.Box.SENT,
                                            message_id=message_id)
            .select_related("thread").first()
        )
        return SentRef(self.global_id(stored.key), self.global_id(stored.thread.key)) if stored else None

    # --- new mail -------------------------------------------------------------------------------------------

    def changes(self, cursor: str | None) -> Changes[MailMessage]:
        mine = LocalMailMessage.objects.filter(connection=self.connection)
        try:
            after = int(cursor) if cursor is not None else None
        except ValueError:
            after = None
        if after is None:
            last = mine.order_by("-id").values_list("id", flat=True).first()
            return Changes([], str(last or 0))
        batch = list(
            mine.filter(id__gt=after).select_related("thread").prefetch_related("attachments").order_by("id")[
                :CHANGES_BATCH]
        )
        received = [self._message(m, m.thread.key) for m in batch if m.box == LocalMailMessage.Box.INBOX]
        return Changes(received, str(batch[-1].id if batch else after))


register_provider("local", "mail", LocalMailProvider)
