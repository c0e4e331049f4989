"""Writing the search copy: what each kind of thing becomes as a `SearchItem`, and the upsert that writes it.

Every write is an upsert on (workspace, key), so copying an item twice (a sync resumed after a crash, a signal and
a sweep racing) leaves one row. The full-text index follows the rows by itself (triggers, migration 0001).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from django.db import models, transaction
from django.db.models import Max, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from core.errors import ToolError
from core.inputs import Uuid
from core.models import Organization
from integrations.files import content
from integrations.local.mailbox import blob_get
from integrations.local.models_calendar import LocalEvent
from integrations.local.models_files import FOLDER_MIME, LocalFile
from integrations.local.models_mail import LocalMailAttachment, LocalMailMessage
from integrations.mail_text import address_list
from integrations.models import Connection
from integrations.providers.base import FileData
from records.models import Company, Contact, Doc, Project
from research.models import Dataset, ResearchPage
from research.page_shapes import page_url, text_fields
from search import embeddings
from search.models import (
    WORKSPACE,
    SearchItem,
    SearchPerson,
    SearchPlace,
    WorkspaceMark,
)

MARK_MARGIN = datetime.timedelta(seconds=10)
# Past this, a body is cut for the copy: a search copy, not an archive; search.read says when it was cut.
MAX_BODY = 1_000_000
TYPES = ("email", "doc", "sheet", "slides", "pdf", "image", "file", "meeting", "page", "table", "contact", "project")

# Mail from machines, not people: what bulk filters. Addresses such as these, or a body with an unsubscribe link.
_BULK_SENDER = re.compile(
    r"^(no-?reply|do-?not-?reply|newsletter|news|notifications?|notify|mailer-daemon|bounces?|marketing|"
    r"updates|digest|alerts?|billing|info|hello|team|support)([+._-].*)?@", re.IGNORECASE)
_UNSUBSCRIBE = re.compile(r"unsubscribe|manage (your )?(email )?preferences|opt[ -]out", re.IGNORECASE)


@dataclass
class Entry:
    key: str
    type: str
    source: str
    title: str
    body: str
    date: datetime.datetime
    connection_id: Uuid | None = None  # the app connection it was copied from; None for the workspace's own
    thread: str = ""
    people: list[tuple[str, str, str, bool]] = field(default_factory=list)  # (role, name, address, is the owner)
    sender: str = ""
    recipients: list[str] = field(default_factory=list)
    dir: str = ""
    bulk: bool = False
    has_attachment: bool = False
    starred: bool = False
    places: list[str] = field(default_factory=list)
    attachments: list[dict] = field(default_factory=list)
    url: str = ""
    added_by: str = ""


_FIELDS = ["connection", "type", "source", "thread", "group", "title", "people", "body", "sender", "recipients",
           "date", "year", "dir", "bulk", "has_attachment", "starred", "attachments", "url", "added_by", "copied_at"]


def put(org: Organization, entries: list[Entry]) -> None:
    """Write these items (new or again) with their people and places, in one transaction."""
    if not entries:
        return
    entries = list({e.key: e for e in entries}.values())
    now = timezone.now()
    rows = [
        SearchItem(
            organization=org, connection_id=e.connection_id, key=e.key, type=e.type, source=e.source,
            thread=e.thread, group=e.thread or e.key, title=e.title[:1000],
            people=" ".join(f"{name} {address}".strip() for _, name, address, _ in e.people),
            body=e.body[:MAX_BODY], sender=e.sender[:1000], recipients=e.recipients, date=e.date, year=e.date.year,
            dir=e.dir, bulk=e.bulk, has_attachment=e.has_attachment, starred=e.starred, attachments=e.attachments,
            url=e.url[:2000], added_by=e.added_by[:200], copied_at=now,
        )
        for e in entries
    ]
    with transaction.atomic():
        SearchItem.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["organization", "key"], update_fields=_FIELDS, batch_size=200
        )
        keys = [e.key for e in entries]
        ids = dict(SearchItem.objects.filter(organization=org, key__in=keys).values_list("key", "id"))
        embeddings.forget_changed({ids[e.key]: embeddings.text_of(e.title[:1000], e.body[:embeddings.TEXT_CHARS])
                                   for e in entries})
        SearchPerson.objects.filter(item_id__in=ids.values()).delete()
        SearchPlace.objects.filter(item_id__in=ids.values()).delete()
        SearchPerson.objects.bulk_create([
            SearchPerson(item_id=ids[e.key], organization=org, role=role, address=address[:320],
                         domain=address.rpartition("@")[2][:254] if "@" in address else "", name=name[:200],
                         name_key=name.strip().lower()[:200], owner=is_owner, counted=n in counted)
            for e in entries for counted in [_counted(e.people)]
            for n, (role, name, address, is_owner) in enumerate(e.people)
        ], batch_size=500)
        SearchPlace.objects.bulk_create([
            SearchPlace(item_id=ids[e.key], organization=org, place=place.strip().lower()[:500])
            for e in entries for place in dict.fromkeys(e.places) if place.strip()
        ], batch_size=500)
        threads = {e.thread for e in entries if e.thread}
        if threads:
            thread_states(org, threads)


def _counted(people) -> set[int]:
    """Which of an item's people counts.people counts: everyone but the owner with an address, once per address (the
    row with the greatest name, the name counts.people shows), so counting rows counts items."""
    best: dict[str, tuple[str, int]] = {}
    for n, (_, name, address, is_owner) in enumerate(people):
        address, name = address[:320], name[:200]
        if is_owner or not address:
            continue
        if address not in best or name > best[address][0]:
            best[address] = (name, n)
    return {n for _, n in best.values()}


def remove(org_id, keys) -> int:
    keys = list(keys)
    if not keys:
        return 0
    deleted, _ = SearchItem.objects.filter(organization_id=org_id, key__in=keys).delete()
    return deleted


def thread_states(org, threads) -> None:
    """Who wrote last in each thread, people's mail only: waiting reads it from every item of the thread. One
    UPDATE per 500 threads, each row reading its thread's newest message by the (organization, thread) index."""
    org_id = getattr(org, "id", org)
    threads = list(threads)
    newest = (SearchItem.objects.filter(organization_id=OuterRef("organization_id"), thread=OuterRef("thread"),
                                        type="email", bulk=False)
              .order_by("-date", "-id").values("dir")[:1])
    for start in range(0, len(threads), 500):
        SearchItem.objects.filter(organization_id=org_id, thread__in=threads[start:start + 500]).update(
            thread_last_dir=Coalesce(Subquery(newest), Value("")))


def _url(name: str, *args) -> str:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


# --- the workspace's own records -----------------------------------------------------------------------------


def _actor_name(value) -> str:
    return value.get("name", "") if isinstance(value, dict) else ""


def doc_entry(doc: Doc) -> Entry:
    kind = doc.type if doc.type in TYPES else "doc"
    return Entry(
        key=f"doc:{doc.id}", type=kind, source=WORKSPACE, title=doc.title, body=doc.text or doc.brief or "",
        date=doc.updated_at, places=[doc.project.name], url=_url("pages:doc", doc.id),
        added_by=_actor_name(doc.created_by),
        people=[("author", _actor_name(doc.created_by), "", False)] if _actor_name(doc.created_by) else [],
    )


def contact_entry(contact: Contact) -> Entry:
    emails = [e.email.lower() for e in contact.emails.all()]
    companies = [link.company.name for link in contact.company_links.all()]
    lines = [contact.job_title or "", contact.phone or "", ", ".join(contact.labels or []), ", ".join(companies),
             contact.context or "", " ".join(f"{k}: {v}" for k, v in (contact.fields or {}).items())]
    return Entry(
        key=f"contact:{contact.id}", type="contact", source=WORKSPACE, title=contact.name,
        body="\n".join(line for line in lines if line), date=contact.updated_at,
        people=[("with", contact.name, address, False) for address in emails] or [("with", contact.name, "", False)],
        url=_url("pages:contact", contact.id),
    )


def company_entry(company: Company) -> Entry:
    lines = [company.website or "", " ".join(company.domains or []), ", ".join(company.labels or []),
             company.context or ""]
    return Entry(
        key=f"company:{company.id}", type="company", source=WORKSPACE, title=company.name,
        body="\n".join(line for line in lines if line), date=company.updated_at, url=_url("pages:company", company.id),
    )


def project_entry(project: Project) -> Entry:
    return Entry(
        key=f"project:{project.id}", type="project", source=WORKSPACE, title=project.name,
        body=project.description or "", date=project.updated_at,
    )


def page_entry(page: ResearchPage) -> Entry | None:
    """A research page, as its current revision reads: its title, question and every piece of its words. None while
    the writer hasn't written it (nothing to find yet)."""
    revision = page.current_revision
    if revision is None:
        return None
    artifact = revision.artifact if isinstance(revision.artifact, dict) else {}
    words = [page.question, *(text for _, text in text_fields(artifact) if text)]
    return Entry(
        key=f"page:{page.id}", type="page", source=WORKSPACE, title=revision.title or page.title,
        body="\n\n".join(w for w in words if w), date=page.updated_at, places=[page.project.name],
        url=page_url(page),
    )


def _cell(value) -> str:
    """A table cell as text: the spec's CellValue keeps its value under "value" (with its unit, when it has one)."""
    if isinstance(value, dict):
        shown = value.get("value")
        unit = value.get("unit")
        text = "" if shown is None else str(shown)
        return f"{text} {unit}".strip() if unit and text else text
    return "" if value is None else str(value)


def table_entry(dataset: Dataset) -> Entry:
    """A research table: its name, question, columns and every row's values, one line a row."""
    columns = [c.get("name", "") for c in (dataset.plan or {}).get("columns") or [] if isinstance(c, dict)]
    lines = [dataset.question, " · ".join(c for c in columns if c)]
    for row in dataset.rows.all():
        values = row.values or {}
        cells = [_cell(values.get(c)) for c in columns] if columns else [_cell(v) for v in values.values()]
        lines.append(" · ".join(cell for cell in cells if cell) or row.key)
    return Entry(
        key=f"table:{dataset.id}", type="table", source=WORKSPACE, title=dataset.name,
        body="\n".join(line for line in lines if line), date=dataset.updated_at,
        places=[p.name for p in dataset.projects.all()], url=_url("pages:table", dataset.id),
    )


Row = TypeVar("Row", bound=models.Model)


@dataclass(frozen=True)
class WorkspaceKind(Generic[Row]):
    """A kind of the workspace's own records the search copies: its model, what to load with each row (related
    rows joined, and lists fetched beside), and the entry a row becomes."""

    model: type[Row]
    entry: Callable[[Row], Entry | None]
    related: tuple[str, ...] = ()
    prefetch: tuple[str, ...] = ()
    # What else marks a record changed, by its time, besides its own updated_at: a table's rows, researched by
    # workers that don't write the table's row ("rows__researched_at").
    also_changed: str = ""

    def catch_up(self, org: Organization, kind: str, mark: datetime.datetime | None) -> int:
        """Copy this kind's records written since `mark` (all when None); returns how many."""
        # None of these models has a manager of its own: the default one is `objects`.
        rows = self.model._default_manager.filter(organization=org)
        if mark is not None:
            changed = models.Q(updated_at__gte=mark)
            if self.also_changed:
                changed |= models.Q(**{f"{self.also_changed}__gte": mark})
            rows = rows.filter(changed).distinct()
        newest = rows.aggregate(newest=Max("updated_at"))["newest"]
        if self.also_changed:
            later = rows.aggregate(newest=Max(self.also_changed))["newest"]
            newest = max(n for n in (newest, later) if n is not None) if (newest or later) else None
        if newest is None:
            return 0
        if self.related:
            rows = rows.select_related(*self.related)
        batch = list(rows.prefetch_related(*self.prefetch))
        entries = [self.entry(record) for record in batch]
        put(org, [e for e in entries if e is not None])
        # A little before the newest: a record written in a transaction that commits after this catch-up, with an
        # updated_at a moment older than the newest seen here, is still caught by the next one.
        WorkspaceMark.objects.update_or_create(organization=org, kind=kind,
                                               defaults={"updated_at": newest - MARK_MARGIN})
        return len(batch)


WORKSPACE_KINDS: dict[str, WorkspaceKind[Doc] | WorkspaceKind[Contact] | WorkspaceKind[Company]
                      | WorkspaceKind[Project] | WorkspaceKind[ResearchPage] | WorkspaceKind[Dataset]] = {
    "doc": WorkspaceKind(Doc, doc_entry, related=("project",)),
    "contact": WorkspaceKind(Contact, contact_entry, prefetch=("emails", "company_links__company")),
    "company": WorkspaceKind(Company, company_entry),
    "project": WorkspaceKind(Project, project_entry),
    "page": WorkspaceKind(ResearchPage, page_entry, related=("project", "current_revision")),
    "table": WorkspaceKind(Dataset, table_entry, prefetch=("rows", "projects"), also_changed="rows__researched_at"),
}


def workspace_catch_up(org: Organization) -> int:
    """Copy in the workspace's records written since the last catch-up (signals copy most as they happen; bulk
    writes send none, and this finds them by `updated_at`). Returns how many it copied."""
    marks = dict(WorkspaceMark.objects.filter(organization=org).values_list("kind", "updated_at"))
    return sum(kind.catch_up(org, name, marks.get(name)) for name, kind in WORKSPACE_KINDS.items())


# --- the owner's accounts (the local providers' own tables) ---------------------------------------------------


def owner_addresses(connection: Connection) -> set[str]:
    org = connection.organization
    return {a for a in (connection.account.lower(), (org.owner_email or "").lower()) if a}


def is_bulk(sender_address: str, text: str) -> bool:
    return bool(_BULK_SENDER.match(sender_address or "")) or bool(_UNSUBSCRIBE.search(text[-3000:] if text else ""))


def mail_entries(connection: Connection, message: LocalMailMessage, owner: set[str]) -> list[Entry]:
    """A message, and each of its attachments with its text, in the message's thread (so a thread is still one
    result) with its people, so from/to/with find them too."""
    key = connection.account_key
    senders = address_list(message.sender)
    to, cc = address_list(message.to or []), address_list(message.cc or [])
    people = [("from", n, a, a in owner) for n, a in senders] + [("to", n, a, a in owner) for n, a in to + cc]
    sent = message.box == LocalMailMessage.Box.SENT
    thread = f"mail:{key}:t:{message.thread.key}"
    attachments, files = [], []
    for attachment in message.attachments.all():
        text, quality = attachment_text(connection, attachment)
        item_id = f"mail:{key}:a:{attachment.key}"
        attachments.append({"id": item_id, "name": attachment.name, "quality": quality})
        files.append(Entry(
            key=item_id, type=file_type(attachment.mime_type), source=connection.account, connection_id=connection.id,
            thread=thread, title=attachment.name, body=text, date=message.date, people=people,
            sender=message.sender, recipients=[*message.to, *message.cc], dir="sent" if sent else "received",
            places=[f"label:{message.box.upper()}"],
        ))
    email = Entry(
        key=f"mail:{key}:m:{message.key}", type="email", source=connection.account, connection_id=connection.id,
        thread=thread, title=message.subject or "(no subject)", body=message.text,
        date=message.date, people=people, sender=message.sender, recipients=[*message.to, *message.cc],
        dir="sent" if sent else "received",
        # Received: from a machine's address, or with an unsubscribe link. Sent: only to machines' addresses.
        bulk=(bool(to + cc) and all(_BULK_SENDER.match(a) for _, a in to + cc)) if sent
        else is_bulk(senders[0][1] if senders else "", message.text),
        has_attachment=bool(attachments), places=[f"label:{message.box.upper()}"], attachments=attachments,
    )
    return [email, *files]


def attachment_text(connection: Connection, attachment: LocalMailAttachment) -> tuple[str, str]:
    """An attachment's text for the copy, and how well it was read (search.read lists it)."""
    try:
        data = FileData(attachment.name, attachment.mime_type, blob_get(connection.organization_id, attachment.sha256))
        extracted = content.extract(data)
    except ToolError as e:
        return "", f"no text: {e.message}"
    except OSError:
        return "", "no text: its bytes are missing"
    if extracted.image is not None:
        return "", "a picture: no text to search"
    return extracted.text, "text" if extracted.text.strip() else "no text found (a scan?)"


_FILE_TYPES = [
    ("application/vnd.google-apps.document", "doc"), ("application/vnd.google-apps.spreadsheet", "sheet"),
    ("application/vnd.google-apps.presentation", "slides"), ("application/pdf", "pdf"), ("image/", "image"),
    ("spreadsheet", "sheet"), ("text/csv", "sheet"), ("presentation", "slides"), ("wordprocessing", "doc"),
    ("text/", "doc"),
]


def file_type(mime: str) -> str:
    return next((kind for prefix, kind in _FILE_TYPES if prefix in mime), "file")


def folder_path(file: LocalFile, names: dict) -> str:
    """The folders a file is in, as the owner reads them: "Clients › Juniper Dental"."""
    parts, parent_id, seen = [], file.parent_id, set()
    while parent_id and parent_id not in seen:
        seen.add(parent_id)
        if parent_id not in names:
            names[parent_id] = LocalFile.objects.filter(pk=parent_id).values_list("name", "parent_id").first()
        found = names[parent_id]
        if not found:
            break
        parts.append(found[0])
        parent_id = found[1]
    return " › ".join(reversed(parts))


def file_entry(connection: Connection, file: LocalFile, owner: set[str], names: dict) -> Entry:
    path = folder_path(file, names)
    author = (file.modified_by or "").lower()
    return Entry(
        key=f"files:{connection.account_key}:{file.file_id}", type=file_type(file.mime_type),
        source=connection.account, connection_id=connection.id, title=file.name, body=file.text or "",
        date=file.modified_at, people=[("author", "", author, author in owner)] if author else [],
        places=[path] if path else [], added_by=file.modified_by,
    )


def meeting_entry(connection: Connection, event: LocalEvent, owner: set[str]) -> Entry:
    guests = [a.lower() for a in event.guests or []]
    people = [("from", "", connection.account.lower(), True)] + [("to", "", a, a in owner) for a in guests]
    return Entry(
        key=f"meeting:{connection.account_key}:{event.id}", type="meeting", source=connection.account,
        connection_id=connection.id, title=event.title,
        body="\n".join(x for x in (event.location, event.description) if x),
        date=event.start, people=people, recipients=guests, url=event.url,
    )


def file_is_copied(file: LocalFile) -> bool:
    return not file.trashed and file.mime_type != FOLDER_MIME
