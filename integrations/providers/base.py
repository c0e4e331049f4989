"""The interface of each tool group's providers: one abstract class per group, the same for every app.

A provider serves one group for one connection (`GmailProvider(connection)`); the group's services find the
connection (integrations.selectors), get its provider (integrations.providers.registry.provider_for) and call it.
Every app's provider returns the same values below, so a tool reads the same on Gmail and on the local mailbox.

Ids. A provider takes the app's own ids (the part after the account key: `19a2c4e07d5b3f18`), and gives out full
ids built with `self.global_id(local)` (`7c41e2d0:19a2c4e07d5b3f18`), in every value it returns. Books are the
exception the spec makes: invoice ids are QuickBooks' own digits, with no account key.

Failures. A provider raises core.errors.ToolError with one of the spec's kinds. Real providers map their API's
errors with integrations.errors (from_google_http_error, from_quickbooks_response, network_error), which also
puts the reconnect card on Home for `reauth`. Writing without the scope to write is `reauth`: check first with
`self.connection.can_write(group)`, or let the API's 403 say so.

Undo. Every write returns `Written(value, undo)`: `undo` is this provider's own JSON-able description of how to
put things back exactly. The group's service stores it in the Change's undo (with the connection's id), and its
Undo calls `provider.undo(data)`, which restores it or raises ToolError("changed") when it changed again since.

Times are aware datetimes (UTC or with their offset); dates are `datetime.date`; money is Decimal.
"""

from __future__ import annotations

import datetime
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Generic, Literal, TypeVar
from urllib.parse import urlsplit

from core.errors import ToolError
from core.timefmt import iso
from integrations.ids import join_id

if TYPE_CHECKING:
    from integrations.models import Connection

T = TypeVar("T")


# --- values shared by the groups ------------------------------------------------------------------------------


@dataclass
class Hit:
    """One search result or folder item: the spec's `Hit`."""

    id: str  # full id
    title: str
    type: str  # "email", "folder", "doc", "sheet", "slides", "pdf", "image", "file"
    url: str
    who: str | None = None  # the sender, or the file's last editor
    people: list[str] | None = None  # everyone on a thread but the owner
    date: datetime.datetime | None = None  # newest message, or last modified: what "newest first" sorts by
    snippet: str | None = None

    def as_result(self, *, source: str | None = None) -> dict:
        result = {"id": self.id, "title": self.title, "type": self.type, "url": self.url}
        for key in ("who", "people", "snippet"):
            if getattr(self, key):
                result[key] = getattr(self, key)
        if self.date is not None:
            result["date"] = iso(self.date)
        if source is not None:
            result["source"] = source
        return result


@dataclass
class Page(Generic[T]):
    """A page of results, and this provider's own token for the next one (None on the last page).

    Searching across accounts, the group's service keeps each account's token inside its own `nextPage`.
    """

    items: list[T]
    next_page: str | None = None


@dataclass
class Changes(Generic[T]):
    """What is new since `cursor`, for routines' events, and the cursor to pass next time.

    `changes(None)` starts watching: it returns no items and the cursor of now.
    """

    items: list[T]
    cursor: str


class CursorExpired(Exception):
    """The app no longer knows the position a copy kept (Gmail's historyId after about a week, Calendar's sync token
    answered 410 Gone): the caller copies the account again from the start."""


@dataclass
class FileData:
    """A file's bytes: an attachment, a downloaded file, an upload."""

    name: str
    mime_type: str
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass
class Written(Generic[T]):
    """What a write returns: its value, and this provider's own data for putting it back (see `undo`)."""

    value: T
    undo: dict


class Provider(ABC):  # noqa: B024  (the groups' bases below declare the abstract methods; this holds what they share)
    """One app's side of one group, for one connection."""

    # Set by register_provider: the app and group this class is registered for.
    app: ClassVar[str] = ""
    group: ClassVar[str] = ""

    def __init__(self, connection: Connection, **options):
        """`options` are what provider_for was given: tests pass a fake transport (`http=HttpMockSequence(...)`)."""
        self.connection = connection
        self.options = options

    @property
    def source(self) -> str:
        """The account's name as results show it (`source`): sam@fernhill.test."""
        return self.connection.account

    def global_id(self, local_id: str) -> str:
        return join_id(self.connection, local_id)


# --- mail -----------------------------------------------------------------------------------------------------


@dataclass
class MailQuery:
    """mail.search's filters; `text` is the mail's own search words (Gmail's search box syntax for Gmail)."""

    text: str | None = None
    sender: str | None = None
    to: str | None = None
    after: datetime.date | None = None
    before: datetime.date | None = None
    has_attachment: bool | None = None


@dataclass
class MailAttachment:
    id: str  # full id; mail.read lists it, read_attachment takes its local part
    name: str
    size: int
    mime_type: str = "application/octet-stream"


@dataclass
class MailMessage:
    id: str  # full id
    thread_id: str  # full id
    sender: str  # "Dana Whitfield <dana@juniperdental.test>"
    to: list[str]
    cc: list[str]
    date: datetime.datetime
    subject: str
    text: str  # plain text (HTML converted); quoted replies may still be in: the mail service strips them
    attachments: list[MailAttachment] = field(default_factory=list)
    message_id: str | None = None  # the RFC 822 Message-ID header


@dataclass
class MailThread:
    id: str  # full id
    subject: str
    url: str
    messages: list[MailMessage]  # oldest first


@dataclass
class OutgoingMail:
    """A draft or an email to send, recipients already resolved (replyAll is the mail service's work)."""

    to: list[str]
    subject: str
    text: str
    cc: list[str] = field(default_factory=list)
    thread_id: str | None = None  # local id: reply in this thread (the provider sets In-Reply-To/References)
    attachments: list[FileData] = field(default_factory=list)
    signature: bool = True  # False leaves off the owner's signature
    # The Message-ID Roadstar gives the email before the first try, so a retry can find it in sent mail.
    message_id: str | None = None


@dataclass
class DraftRef:
    draft_id: str  # full id
    thread_id: str  # full id
    to: list[str]


@dataclass
class SentRef:
    message_id: str  # full id
    thread_id: str  # full id


class MailProvider(Provider):
    # Whether find_sent finds every email the app took, so that finding none proves it didn't go (Gmail's sent
    # mail: the message is there once messages.send answered). False where the sent copy is kept by Roadstar after
    # the hand-off (the local mailbox): then a worker that stopped mid-hand-off leaves the owner to say.
    sent_mail_tells: ClassVar[bool] = True

    @abstractmethod
    def search(self, query: MailQuery, *, limit: int, page: str | None = None) -> Page[Hit]:
        """Threads, newest first (Hit.date set), each Hit.people everyone on it but the owner; type "email"."""

    @abstractmethod
    def read_thread(self, thread_id: str) -> MailThread:
        """A thread's messages, oldest first. Unknown id: not_found."""

    @abstractmethod
    def read_attachment(self, thread_id: str, attachment_id: str) -> FileData:
        """An attachment's bytes (the mail service turns them into text like files.read does)."""

    @abstractmethod
    def draft(self, mail: OutgoingMail) -> DraftRef:
        """A draft in the owner's mailbox, in its thread when thread_id is given. Sends nothing."""

    @abstractmethod
    def send(self, mail: OutgoingMail) -> SentRef:
        """Send now, with no transaction open. The two-minute hold is the mail service's; this is the send at its
        end. A failure after which the email may have gone is `unknown_outcome`; any other kind means it didn't."""

    @abstractmethod
    def find_sent(self, message_id: str) -> SentRef | None:
        """The sent email with this Message-ID, if it went: checked before sending again, so nothing goes twice."""

    @abstractmethod
    def changes(self, cursor: str | None) -> Changes[MailMessage]:
        """Mail received since cursor, oldest first (events: new mail, with from:, domain:, with:, thread::)."""


# --- files ----------------------------------------------------------------------------------------------------


@dataclass
class FileMeta:
    id: str  # full id
    name: str
    mime_type: str
    kind: str  # "folder", "doc", "sheet", "slides", "pdf", "image", "file"
    url: str
    parents: list[str] = field(default_factory=list)  # full ids
    size: int | None = None
    modified: datetime.datetime | None = None
    modified_by: str | None = None
    native: bool = False  # a Google Doc / Sheet / Slides: no bytes of its own, exported to read

    def as_hit(self) -> Hit:
        return Hit(id=self.id, title=self.name, type=self.kind, url=self.url, who=self.modified_by,
                   date=self.modified)

    def as_result(self) -> dict:
        """The spec's `{ id, name, url }` that copy, folder, create_doc, create_sheet and save return."""
        return {"id": self.id, "name": self.name, "url": self.url}


Values = list[list[str | int | float]]


def file_changed_since(what: str, why: str) -> ToolError:
    """The Undo of a file's change refused: the file moved on since, and putting it back would lose that."""
    return ToolError("changed", f"{what}: {why}, so Undo would lose that later change; nothing was put back.")


class FilesProvider(Provider):
    @classmethod
    @abstractmethod
    def id_from_link(cls, link: str) -> str | None:
        """The local id in a link the owner pasted (a Drive link), or None when the link isn't this app's."""

    @abstractmethod
    def search(self, query: str, *, modified_after: datetime.datetime | None, limit: int,
               page: str | None = None) -> Page[Hit]:
        """Files whose name or text match, most relevant first."""

    @abstractmethod
    def get(self, file_id: str) -> FileMeta:
        """One file's or folder's facts. Unknown or trashed: not_found."""

    @abstractmethod
    def list_folder(self, folder_id: str, *, limit: int, page: str | None = None) -> Page[Hit]:
        """A folder's items, folders first then by name."""

    @abstractmethod
    def folder_name(self, folder_id: str | None) -> str:
        """A folder's name as the owner sees it; None is the top folder ("My Drive")."""

    @abstractmethod
    def tabs(self, file_id: str) -> list[tuple[str, list[list[str]]]]:
        """A spreadsheet's values as shown, tab by tab: (name, rows)."""

    @abstractmethod
    def download(self, file_id: str) -> FileData:
        """A file's bytes; a native file exported: Docs as text/markdown, Sheets as .xlsx (every tab), Slides as PDF.

        Over 25 MB: too_large. The files service turns FileData into text, tabs or an image, the same for every app.
        """

    @abstractmethod
    def export_pdf(self, file_id: str) -> FileData:
        """A native file as PDF (mail attachments: "Google files go as PDFs"); other files as download()."""

    @abstractmethod
    def copy(self, file_id: str, *, name: str, folder_id: str | None) -> Written[FileMeta]:
        """A copy under a new name; undo trashes the copy."""

    @abstractmethod
    def create_folder(self, *, name: str, parent_id: str | None) -> Written[FileMeta]:
        """A new folder; undo trashes it."""

    @abstractmethod
    def move(self, file_id: str, *, folder_id: str) -> Written[list[str]]:
        """Move into folder_id; the value is the full ids of the folders it was in (files.move's `from`)."""

    @abstractmethod
    def rename(self, file_id: str, *, name: str) -> Written[str]:
        """Rename; the value is the name before."""

    @abstractmethod
    def create_doc(self, *, name: str, markdown: str, folder_id: str | None) -> Written[FileMeta]:
        """A new document written from Markdown (headings, lists, tables, bold, links); undo trashes it."""

    @abstractmethod
    def append_text(self, file_id: str, *, text: str) -> Written[tuple[int, int]]:
        """A new paragraph at the end of a document; the value is (start, end) of what was added."""

    @abstractmethod
    def create_sheet(self, *, name: str, rows: Values, folder_id: str | None) -> Written[FileMeta]:
        """A new spreadsheet from rows, the first its headings; undo trashes it."""

    @abstractmethod
    def upload(self, data: FileData, *, name: str, folder_id: str | None, convert: bool = False) -> Written[FileMeta]:
        """A new file from bytes (a workspace file, an attachment); `convert` makes Office files native."""

    def download_office(self, file_id: str) -> FileData:
        """A file's bytes for the workspace: native Docs, Sheets and Slides exported as .docx, .xlsx and .pptx
        (Office files edited with code there); other files as download(). Apps without native files download."""
        return self.download(file_id)

    def upload_version(self, file_id: str, data: FileData) -> Written[FileMeta]:
        """A new version of a file from bytes (files.save's `over`); a native file takes the Office file's content.
        Undo puts the version before back. Apps that can't: unsupported."""
        raise ToolError("unsupported", f"{self.source}'s files can't take a new version of a file here; save it "
                                       "as a new file instead.")

    @abstractmethod
    def sheet_values(self, file_id: str, range_: str) -> list[list[str]]:
        """A sheet's cells as shown, such as "Projects!A1:H50"."""

    @abstractmethod
    def append_rows(self, file_id: str, *, range_: str, values: Values) -> Written[str]:
        """Rows after the table in range_ ("Leads!A:F"); the value is the range written; undo removes them."""

    @abstractmethod
    def update_cells(self, file_id: str, *, range_: str, values: Values) -> Written[list[list[str]]]:
        """Write over cells; the value is the cells before (files.update_cells' `before`)."""

    @abstractmethod
    def replace_text(self, file_id: str, *, find: str, replace: str) -> Written[int]:
        """Replace every match in a document; the value is how many changed; undo puts each back."""

    @abstractmethod
    def undo(self, data: dict) -> None:
        """Put back what a write's `Written.undo` describes; ToolError("changed") when it changed since."""

    @abstractmethod
    def changes(self, cursor: str | None) -> Changes[FileMeta]:
        """Files changed since cursor (events: kind:doc.changed)."""


# --- calendar -------------------------------------------------------------------------------------------------


@dataclass
class Meeting:
    id: str  # full id
    title: str
    start: datetime.datetime
    end: datetime.datetime
    guests: list[str]  # guests' emails, the owner left out
    url: str

    def as_result(self) -> dict:
        """The spec's calendar.list item."""
        return {"id": self.id, "title": self.title, "start": iso(self.start), "end": iso(self.end),
                "guests": self.guests, "url": self.url}


class CalendarProvider(Provider):
    @abstractmethod
    def meetings(self, *, after: datetime.datetime, before: datetime.datetime, query: str | None,
                 limit: int) -> list[Meeting]:
        """Meetings between two times on the owner's own calendar, soonest first."""

    @abstractmethod
    def hold(self, *, title: str, start: datetime.datetime, end: datetime.datetime,
             note: str | None) -> Written[Meeting]:
        """Block time on the owner's own calendar, inviting nobody; undo deletes it."""

    @abstractmethod
    def undo(self, data: dict) -> None:
        """Put back what hold's `Written.undo` describes; ToolError("changed") when it changed since."""

    @abstractmethod
    def changes(self, cursor: str | None) -> Changes[Meeting]:
        """Meetings added since cursor (events: kind:meeting.added)."""


# --- books ----------------------------------------------------------------------------------------------------


@dataclass
class InvoiceLine:
    description: str
    amount: Decimal
    item: str | None = None
    quantity: Decimal | None = None
    unit_price: Decimal | None = None


@dataclass
class Invoice:
    """An invoice as the books tools need it. The books service works out status and daysLate from balance, due
    and the owner's today, the same for every app."""

    id: str  # the app's own id, digits (the spec's books.invoice takes ^\\d+$): no account key
    number: str | None
    customer: str | None
    customer_id: str | None  # for the event key customer:qb:<id>
    email: str | None  # the customer's billing email
    date: datetime.date | None
    due: datetime.date | None
    total: Decimal
    balance: Decimal
    currency: str | None
    url: str
    tax: Decimal = Decimal("0")
    memo: str | None = None
    emailed: bool = False
    lines: list[InvoiceLine] = field(default_factory=list)  # filled by invoice(); may be empty from invoices()


InvoiceStatus = Literal["open", "overdue", "paid"]


class BooksProvider(Provider):
    @abstractmethod
    def invoices(self, *, status: InvoiceStatus | None, customer: str | None, today: datetime.date,
                 limit: int) -> tuple[list[Invoice], bool]:
        """Invoices newest first, filtered in the app where it can (open: balance > 0; overdue: also due before
        today; paid: balance 0), customer matching part of a name; and whether there are more."""

    @abstractmethod
    def invoice(self, invoice_id: str) -> Invoice:
        """One invoice with its lines. Unknown id: not_found."""


# The base class each group's providers must extend.
GROUP_BASES: dict[str, type[Provider]] = {
    "mail": MailProvider,
    "files": FilesProvider,
    "calendar": CalendarProvider,
    "books": BooksProvider,
}


def public_link(url: str | None) -> str:
    """A link from the owner's own file only if it is a web address anyone it is sent to could open: http(s) with
    a host. Anything else (a path, a javascript: or file: link, a relative one) is no link at all."""
    text = (url or "").strip()
    parsed = urlsplit(text)
    return text if parsed.scheme in ("http", "https") and parsed.netloc else ""
