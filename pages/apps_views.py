"""The owner's mail, files, calendar and invoices, read-only, from whichever app is connected for each.

Each page reads through the same integration services and providers the agents' tools use (mail.search and
mail.read's, files.search's, calendar.list's, books.invoices'), so the owner sees what the agents see: Gmail,
Google Drive, OneDrive, Google Calendar, QuickBooks, or Roadstar's own local mailbox, files, calendar and books.
Nothing here writes. An app that can't answer is said plainly, with the way to connect it again. A group with no
connected account says so without calling anything (so opening a page doesn't put a card on Home).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_date

from core.errors import ToolError
from core.http import workspace_or_404 as _workspace
from core.models import Organization
from core.owner_zone import owner_zone
from integrations import invoices as books
from integrations import meetings
from integrations.catalog import app as app_info
from integrations.files import services as file_services
from integrations.ids import split_id
from integrations.mail_service import HELD_PREFIX, mail_provider, mail_search
from integrations.mail_text import strip_quoted
from integrations.models import Connection
from integrations.providers.base import MailQuery
from integrations.providers.registry import provider_for
from integrations.selectors import connections_for, require_connection
from integrations.services import Asker
from pages.views import _page, _query_string

MAIL_PAGE = 20
FILES_PAGE = 50
CALENDAR_DAYS = 14
CALENDAR_MOST = 200
INVOICES_PAGE = 50
PREVIEW = 3000  # characters of a file's words shown on its page
# The owner asks from a page, not a conversation: a card these pages raise tells no chat when it is answered.
OWNER = Asker(agent_id=None, conversation_id=None, name="You")
TABS = (("mail", "Mail", "pages:mail"), ("files", "Files", "pages:files"), ("calendar", "Calendar", "pages:calendar"),
        ("books", "Invoices", "pages:invoices"))


@dataclass
class Trouble:
    """Why (part of) a page couldn't be read, in the owner's words, and where to put it right."""

    text: str
    link: str = ""
    link_text: str = ""
    kind: str = "unavailable"


def _trouble(kind: str, *, group: str, connection: Connection | None = None) -> Trouble:
    what = _label(connection, group) if connection is not None else _GROUP_WORDS[group]
    connections = reverse("integrations:index")
    if kind == "not_connected":
        return Trouble(f"{what} isn't connected yet, so there is nothing to show here.", connections,
                       "Connect an app", kind)
    if kind == "reauth" and connection is not None:
        again = reverse("integrations:connect", args=[connection.app]) + f"?account={connection.account_key}"
        return Trouble(f"{what} needs you to sign in again before Roadstar can read it.", again,
                       "Connect it again", kind)
    if kind == "rate_limited":
        return Trouble(f"{what} asked Roadstar to slow down. Try again in a minute.", kind=kind)
    return Trouble(f"{what} didn't answer just now. Try again in a minute; if it keeps failing, look at "
                   "Connections.", connections, "Connections", kind)


_GROUP_WORDS = {"mail": "Your mail", "files": "Your files", "calendar": "Your calendar", "books": "Your books"}


def _label(connection: Connection, group: str) -> str:
    info = connection.app_info
    return f"{info.group_labels.get(group, info.label)} ({connection.account})"


def _open_words(connection: Connection | None, group: str) -> str:
    """ "Open in Gmail": where a link out of Roadstar goes."""
    if connection is None or connection.app == Connection.App.LOCAL:
        return "Open its link"  # Roadstar's own apps have no site of their own: the link is what the record holds
    return f"Open in {app_info(connection.app).group_labels.get(group, connection.app_info.label)}"


def _accounts(org: Organization, group: str) -> list[Connection]:
    return connections_for(org=org, group=group, include_stopped=True)


def _failed(org: Organization, failed: list[dict], group: str) -> list[Trouble]:
    by_key = {c.account_key: c for c in Connection.objects.filter(organization=org)}
    return [_trouble(f["kind"], group=group, connection=by_key.get(f.get("connection", ""))) for f in failed]


def _named(accounts: list[Connection], error: ToolError) -> Connection | None:
    """The account a failure across accounts came from: the one its words name, else the only one."""
    named = [c for c in accounts if c.account in error.message]
    return named[0] if named else (accounts[0] if len(accounts) == 1 else None)


def _render(request: HttpRequest, org: Organization, template: str, tab: str, context: dict,
            status: int = 200) -> HttpResponse:
    tabs = [{"key": key, "label": label, "url": reverse(name), "current": key == tab} for key, label, name in TABS]
    return _page(request, org, template, {"tabs": tabs, **context}, status=status)


def _when(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    try:
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _local_part(full_id: str) -> tuple[str, str]:
    key, _, local = full_id.partition(":")
    return key, local


# --- mail -----------------------------------------------------------------------------------------------------


@login_required
def mail(request: HttpRequest) -> HttpResponse:
    org = _workspace(request)
    query = request.GET.get("q", "").strip()[:300]
    page = request.GET.get("page") or None
    context: dict = {"query": query, "threads": [], "troubles": [], "next": None}
    if not _accounts(org, "mail"):
        context["troubles"] = [_trouble("not_connected", group="mail")]
        return _render(request, org, "pages/mail.html", "mail", context)
    try:
        found = mail_search(org=org, asker=OWNER, query=MailQuery(text=query or None), source=None, limit=MAIL_PAGE,
                            page=page)
    except ToolError as error:
        if error.kind == "bad_input":  # a page token from an older search: start again
            found = mail_search(org=org, asker=OWNER, query=MailQuery(text=query or None), source=None,
                                limit=MAIL_PAGE, page=None)
        else:
            context["troubles"] = [_trouble(error.kind, group="mail", connection=_named(_accounts(org, "mail"), error))]
            return _render(request, org, "pages/mail.html", "mail", context)
    context["threads"] = [hit | {"at": _when(hit.get("date")),
                                 "people": [p for p in hit.get("people") or [] if p != hit.get("who")]}
                          for hit in found["hits"]]
    context["troubles"] = _failed(org, found["failed"], "mail")
    if found.get("nextPage"):
        context["next"] = _query_string(request, page=found["nextPage"])
    context["paged"] = bool(page)
    return _render(request, org, "pages/mail.html", "mail", context)


@login_required
def mail_thread(request: HttpRequest, thread_id: str) -> HttpResponse:
    org = _workspace(request)
    try:
        connection, local = split_id(thread_id, org=org)
    except ToolError as error:
        raise Http404("No such email in this workspace.") from error
    if local.startswith(HELD_PREFIX) or not connection.serves("mail"):
        raise Http404("No such email in this workspace.")
    context: dict = {"thread": None, "troubles": [], "open_words": _open_words(connection, "mail")}
    try:
        live = require_connection(org=org, group="mail", account_key=connection.account_key, asked_by=OWNER)
        thread = mail_provider(live, OWNER).read_thread(local)
    except ToolError as error:
        if error.kind == "not_found":
            raise Http404("No such email in this workspace.") from error
        context["troubles"] = [_trouble(error.kind, group="mail", connection=connection)]
        return _render(request, org, "pages/mail_thread.html", "mail", context)
    context["thread"] = {
        "subject": thread.subject or "(no subject)",
        "url": thread.url,
        "source": connection.account,
        "messages": [{
            "sender": m.sender, "to": m.to, "cc": m.cc, "at": m.date, "subject": m.subject,
            "text": strip_quoted(m.text), "attachments": m.attachments,
        } for m in thread.messages],
    }
    return _render(request, org, "pages/mail_thread.html", "mail", context)


# --- files ----------------------------------------------------------------------------------------------------


def _file_row(hit: dict) -> dict:
    key, local = _local_part(hit["id"])
    return hit | {"href": reverse("pages:file", args=[key, local]), "at": _when(hit.get("date"))}


@login_required
def files(request: HttpRequest) -> HttpResponse:
    """The top of each files account (folders first), or what a search finds across them."""
    org = _workspace(request)
    query = request.GET.get("q", "").strip()[:300]
    context: dict = {"query": query, "items": [], "troubles": [], "next": None}
    accounts = _accounts(org, "files")
    if not accounts:
        context["troubles"] = [_trouble("not_connected", group="files")]
        return _render(request, org, "pages/files.html", "files", context)
    if query:
        page = request.GET.get("page") or None
        try:
            found = file_services.files_search(org=org, asker=OWNER, query=query, source=None, modified_after=None,
                                               limit=FILES_PAGE, page=page)
        except ToolError as error:
            context["troubles"] = [_trouble(error.kind, group="files", connection=_named(accounts, error))]
            return _render(request, org, "pages/files.html", "files", context)
        context["items"] = [_file_row(hit) for hit in found["hits"]]
        context["troubles"] = _failed(org, found["failed"], "files")
        if found.get("nextPage"):
            context["next"] = _query_string(request, page=found["nextPage"])
        return _render(request, org, "pages/files.html", "files", context)
    for connection in accounts:
        try:
            live = require_connection(org=org, group="files", account_key=connection.account_key, asked_by=OWNER)
            provider = provider_for(live, "files", asked_by=OWNER)
            top = provider.top(limit=FILES_PAGE)
        except ToolError as error:
            if error.kind == "unsupported":
                continue
            context["troubles"].append(_trouble(error.kind, group="files", connection=connection))
            continue
        context.setdefault("tops", []).append({
            "name": provider.folder_name(None), "source": connection.account,
            "items": [_file_row(hit.as_result(source=connection.account)) for hit in top.items],
            "more": top.next_page is not None,
        })
    return _render(request, org, "pages/files.html", "files", context)


@login_required
def file(request: HttpRequest, account_key: str, file_id: str) -> HttpResponse:
    """One file's facts, where it is, a look at its first words, and its link into Drive or OneDrive; a folder's
    items."""
    org = _workspace(request)
    connection = Connection.objects.filter(organization=org, account_key=account_key).first()
    if connection is None or not connection.serves("files"):
        raise Http404("No such file in this workspace.")
    context: dict = {"file": None, "troubles": [], "open_words": _open_words(connection, "files")}
    try:
        ref = file_services.file_ref(org=org, value=f"{account_key}:{file_id}", asker=OWNER)
        meta = ref.get()
    except ToolError as error:
        if error.kind in ("not_found", "bad_input"):
            raise Http404("No such file in this workspace.") from error
        context["troubles"] = [_trouble(error.kind, group="files", connection=connection)]
        return _render(request, org, "pages/file.html", "files", context)
    folders = []
    for parent in meta.parents[:1]:
        key, local = _local_part(parent)
        try:
            folders.append({"name": ref.provider.folder_name(local), "href": reverse("pages:file", args=[key, local])})
        except ToolError:
            pass  # a folder the owner can't open: the file is shown without it
    context["file"] = {"name": meta.name, "kind": meta.kind, "size": meta.size, "modified": meta.modified,
                       "modified_by": meta.modified_by, "source": connection.account, "folders": folders,
                       "url": meta.url if meta.url.startswith("https://") else ""}
    if meta.kind == "folder":
        try:
            listing = ref.provider.list_folder(ref.local_id, limit=FILES_PAGE)
            context["items"] = [_file_row(hit.as_result(source=connection.account)) for hit in listing.items]
            context["more"] = listing.next_page is not None
        except ToolError as error:
            context["troubles"] = [_trouble(error.kind, group="files", connection=connection)]
    elif meta.kind != "image":
        try:
            read = file_services.files_read(org=org, asker=OWNER, id=meta.id, offset=0, page=None)
            context["preview"] = read.get("text", "")[:PREVIEW]
            context["preview_cut"] = len(read.get("text", "")) > PREVIEW or "nextOffset" in read
        except ToolError:
            context["preview"] = ""  # too large or not text: the facts and the link are enough
    return _render(request, org, "pages/file.html", "files", context)


# --- calendar -------------------------------------------------------------------------------------------------


def _monday(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


@login_required
def calendar(request: HttpRequest) -> HttpResponse:
    """Two weeks of meetings from every calendar account, by day in the owner's time zone."""
    org = _workspace(request)
    today = timezone.now().astimezone(owner_zone(org)).date()
    try:
        asked = parse_date(request.GET.get("from", "")) or None
    except ValueError:
        asked = None
    start = _monday(asked or today)
    end = start + datetime.timedelta(days=CALENDAR_DAYS)
    base = reverse("pages:calendar")
    context: dict = {
        "start": start, "last": end - datetime.timedelta(days=1), "days": [], "troubles": [],
        "earlier": f"{base}?from={(start - datetime.timedelta(days=CALENDAR_DAYS)).isoformat()}",
        "later": f"{base}?from={end.isoformat()}",
        "this_week": base if start != _monday(today) else "",
    }
    accounts = _accounts(org, "calendar")
    if not accounts:
        context["troubles"] = [_trouble("not_connected", group="calendar")]
        return _render(request, org, "pages/calendar.html", "calendar", context)
    try:
        found = meetings.meeting_list(org=org, after=start.isoformat(), before=end.isoformat(), query=None,
                                      limit=CALENDAR_MOST, asked_by=OWNER)
    except ToolError as error:
        context["troubles"] = [_trouble(error.kind, group="calendar", connection=_named(accounts, error))]
        return _render(request, org, "pages/calendar.html", "calendar", context)
    zone = owner_zone(org)
    days: dict[datetime.date, list] = {}
    for meeting in found:
        begins, ends = _when(meeting["start"]), _when(meeting["end"])
        if begins is None or ends is None:
            continue
        days.setdefault(begins.astimezone(zone).date(), []).append(
            meeting | {"begins": begins, "ends": ends, "url": meeting["url"] if meeting["url"].startswith("https://")
                       else ""})
    context["days"] = [{"day": day, "meetings": items} for day, items in sorted(days.items())]
    context["open_words"] = _open_words(accounts[0], "calendar")
    return _render(request, org, "pages/calendar.html", "calendar", context)


# --- invoices -------------------------------------------------------------------------------------------------

STATUSES = {"open": "Owed", "overdue": "Overdue", "paid": "Paid"}


@login_required
def invoices(request: HttpRequest) -> HttpResponse:
    org = _workspace(request)
    status = request.GET.get("status", "")
    status = status if status in STATUSES else ""
    customer = request.GET.get("customer", "").strip()[:200]
    context: dict = {"invoices": [], "troubles": [], "status": status, "customer": customer,
                     "statuses": STATUSES.items()}
    accounts = _accounts(org, "books")
    if not accounts:
        context["troubles"] = [_trouble("not_connected", group="books")]
        return _render(request, org, "pages/invoices.html", "books", context)
    try:
        found = books.invoice_list(org=org, status=status or None, customer=customer or None,  # type: ignore[arg-type]
                                   limit=INVOICES_PAGE, asked_by=OWNER)
    except ToolError as error:
        context["troubles"] = [_trouble(error.kind, group="books", connection=accounts[0])]
        return _render(request, org, "pages/invoices.html", "books", context)
    context["invoices"] = found["invoices"]
    context["more"] = found["more"]
    context["source"] = accounts[0].account
    context["open_words"] = _open_words(accounts[0], "books")
    return _render(request, org, "pages/invoices.html", "books", context)


@login_required
def invoice(request: HttpRequest, invoice_id: str) -> HttpResponse:
    org = _workspace(request)
    accounts = _accounts(org, "books")
    if not accounts or not invoice_id.isdigit():
        raise Http404("No such invoice in this workspace.")
    context: dict = {"invoice": None, "troubles": [], "open_words": _open_words(accounts[0], "books")}
    try:
        context["invoice"] = books.invoice_get(org=org, invoice_id=invoice_id, asked_by=OWNER)
    except ToolError as error:
        if error.kind in ("not_found", "bad_input"):
            raise Http404("No such invoice in this workspace.") from error
        context["troubles"] = [_trouble(error.kind, group="books", connection=accounts[0])]
    return _render(request, org, "pages/invoice.html", "books", context)
