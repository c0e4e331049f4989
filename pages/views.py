"""The owner's pages beside Home: Contacts, Companies, Docs, Agents (the chart) and Routines.

Each page reads through the record apps' selectors and shapes and writes through their services, as every other
caller does. Every page sees only the signer's workspace: an id of another workspace's record is a 404, and a
button pressed on one changes nothing.
"""

from __future__ import annotations

import datetime
import decimal
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from agents import selectors as agent_selectors
from agents.forms import budget_set_from_form
from agents.models import Agent
from companies import selectors as company_selectors
from companies import services as company_services
from companies import shapes as company_shapes
from contacts import selectors as contact_selectors
from contacts import services as contact_services
from contacts import shapes as contact_shapes
from core import limits
from core import services as roadstar_services
from core.actors import Actor
from core.errors import ToolError
from core.http import workspace_or_404
from core.models import Change, Organization
from core.owner_zone import owner_zone
from docs import selectors as doc_selectors
from docs import services as doc_services
from pages import mdx, selectors
from pages.links import WorkspaceLinks
from pages.routine_words import routine_words
from records.models import OpenItem
from routines import selectors as routine_selectors
from routines import services as routine_services
from routines.models import Routine

NOTE_ON_LIMIT = 2000
TIMELINE_PAGE = 20


# --- the workspace, and pages drawn in its time zone ------------------------------------------------------


def _page(request: HttpRequest, org: Organization, template: str, context: dict, status: int = 200) -> HttpResponse:
    """Render with times in the owner's time zone, and with who's who for `by` and `ours`."""
    context = {"org": org, "names": _names(request, org), **context}
    with timezone.override(owner_zone(org)):
        return render(request, template, context, status=status)


# Who's who, read once a request however many times it renders; gone with the request.
_NAMES: weakref.WeakKeyDictionary[HttpRequest, dict] = weakref.WeakKeyDictionary()


def _names(request: HttpRequest, org: Organization) -> dict:
    """Who is who for a page: agents by id, the owner as "You", the system as Roadstar."""
    names = _NAMES.get(request)
    if names is None:
        names = {"agent": selectors.agent_names(org=org), "owner": str(org.owner_id)}
        _NAMES[request] = names
    return names


def _offset(request: HttpRequest) -> int:
    try:
        return max(0, min(int(request.GET.get("offset", 0)), 10_000_000))
    except ValueError:
        return 0


def _query_string(request: HttpRequest, **changes) -> str:
    """This page's query with some parameters changed (None drops one), for paging links."""
    params = {k: v for k, v in request.GET.items()}
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    return "?" + urlencode(params) if params else "?"


def _pager(request: HttpRequest, *, offset: int, size: int, shown: int, more: bool) -> dict:
    return {
        "first": offset + 1 if shown else 0,
        "last": offset + shown,
        "previous": _query_string(request, offset=max(0, offset - size) or None) if offset else None,
        "next": _query_string(request, offset=offset + size) if more else None,
    }


def _back_to(url: str, anchor: str = "") -> HttpResponseRedirect:
    return HttpResponseRedirect(url + (f"#{anchor}" if anchor else ""))


def _log_lines(org: Organization, entries) -> list[dict]:
    """Log entries as the page shows them, each with its Undo when the change behind it allows one."""
    changes = selectors.changes_by_id(org=org, ids=[e.change_id for e in entries])
    lines = []
    for entry in entries:
        change = changes.get(entry.change_id)
        lines.append(contact_shapes.log_entry_shape(entry) | {
            "kind": entry.kind,  # the page words each change its own way; the spec's coarser kind is for tools
            "at_time": entry.at,
            "can_undo": bool(change and change.can_undo),
            "undone": bool(change and change.undone_at),
        })
    return lines


# --- Contacts ---------------------------------------------------------------------------------------------


@login_required
def contacts(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    query = request.GET.get("q", "").strip()[:200]
    label = request.GET.get("label", "").strip()[:40]
    open_kind = request.GET.get("open", "")
    open_kind = open_kind if open_kind in OpenItem.Kind.values else ""
    offset = _offset(request)
    rows, total = contact_selectors.contact_list(
        org=org, query=query or None, label=label or None, open_kind=open_kind or None, offset=offset
    )
    items = [
        contact_shapes.contact_compact(c) | {"jobTitle": c.job_title, "status": c.status} for c in rows
    ]
    return _page(request, org, "pages/contacts.html", {
        "items": items,
        "total": total,
        "query": query,
        "label": label,
        "open_kind": open_kind,
        "open_kinds": OpenItem.Kind.values,
        "pager": _pager(request, offset=offset, size=contact_selectors.PAGE_SIZE, shown=len(rows),
                        more=offset + len(rows) < total),
    })


@login_required
def contact(request: HttpRequest, contact_id) -> HttpResponse:
    org = workspace_or_404(request)
    try:
        found = contact_selectors.contact_get(org=org, contact_id=contact_id)
    except ToolError as exc:
        raise Http404("No such contact in this workspace.") from exc
    log_size = _log_size(request)
    log = contact_selectors.contact_log(contact=found, limit=log_size + 1)
    timeline = contact_selectors.contact_timeline(
        org=org, actor=Actor.for_user(request.user), contact=found, limit=TIMELINE_PAGE
    )
    record = contact_shapes.contact_record(found)
    return _page(request, org, "pages/contact.html", {
        "contact": record,
        "fields": _free_fields(record["fields"]),
        "log": _log_lines(org, log[:log_size]),
        "more_log": len(log) > log_size,
        "log_size": log_size * 2,
        "timeline": timeline,
        "undo_url": "pages:contact_log_undo",
    })


def _log_size(request: HttpRequest) -> int:
    try:
        return max(selectors.LOG_PAGE, min(int(request.GET.get("log", selectors.LOG_PAGE)), 1000))
    except ValueError:
        return selectors.LOG_PAGE


# Named fields Roadstar itself keeps on a contact, shown in words of their own rather than as raw values.
_OWN_FIELDS = {"ask", "source", "addedBy", "notDuplicate"}


def _free_fields(fields: dict) -> list[tuple[str, str]]:
    shown = []
    for key, value in fields.items():
        if key in _OWN_FIELDS or value is None or value == "":
            continue
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items())
        shown.append((key, str(value)))
    return shown


# --- Companies --------------------------------------------------------------------------------------------


@login_required
def companies(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    query = request.GET.get("q", "").strip()[:200]
    label = request.GET.get("label", "").strip()[:40]
    offset = _offset(request)
    rows, total = company_selectors.company_list(org=org, query=query or None, label=label or None, offset=offset)
    return _page(request, org, "pages/companies.html", {
        "items": [company_shapes.company_row(row) | {"handler_id": row.company.handler_id} for row in rows],
        "total": total,
        "query": query,
        "label": label,
        "pager": _pager(request, offset=offset, size=company_selectors.PAGE_SIZE, shown=len(rows),
                        more=offset + len(rows) < total),
    })


@login_required
def company(request: HttpRequest, company_id) -> HttpResponse:
    org = workspace_or_404(request)
    try:
        found = company_selectors.company_for_record(org=org, company_id=company_id)
    except ToolError as exc:
        raise Http404("No such company in this workspace.") from exc
    before = _before(request.GET.get("before"), org)
    page = company_selectors.timeline_page(org=org, company_id=found.id, before=before, limit=TIMELINE_PAGE)
    log_size = _log_size(request)
    log = selectors.company_log(company=found, limit=log_size + 1)
    record = company_shapes.company_record(found)
    items = page["items"]
    older = None
    if page["more"] and items:
        older = _query_string(request, before=items[-1].at.isoformat())
    return _page(request, org, "pages/company.html", {
        "company": record,
        "handler_id": found.handler_id,
        "about": _about(record["about"]),
        "timeline": [company_shapes.timeline_entry_shape(e) | {"at_time": e.at} for e in items],
        # What waits on someone on its timeline is open too: "Nothing open" never sits above "waiting on you".
        "waiting": company_selectors.timeline_waiting(company=found),
        "timeline_total": page["total"],
        "timeline_paged": before is not None,
        "timeline_older": older,
        "log": _log_lines(org, log[:log_size]),
        "more_log": len(log) > log_size,
        "log_size": log_size * 2,
        "undo_url": "pages:company_log_undo",
    })


def _before(value: str | None, org: Organization) -> datetime.datetime | None:
    if not value:
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        return None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, owner_zone(org))  # the owner's, as on the page
    return parsed


def _about(about: dict | None) -> dict | None:
    """The About with its sources numbered from 1, as the text cites them ([1], [2] …)."""
    if not about:
        return None
    sources = [
        {"number": i, "title": s.get("title") or s.get("url") or f"Source {i}", "url": s.get("url") or ""}
        for i, s in enumerate(about.get("sources") or [], start=1)
        if isinstance(s, dict)
    ]
    return {
        "text": about.get("text") or "",
        "facts": [f for f in about.get("facts") or [] if isinstance(f, dict)],
        "lately": [item for item in about.get("lately") or [] if isinstance(item, dict)],
        "sources": sources,
        "by": about.get("by"),
        "at": about.get("at"),
    }


# --- Undo from a record's log -----------------------------------------------------------------------------


@require_POST
@login_required
def contact_log_undo(request: HttpRequest, contact_id, entry_id) -> HttpResponse:
    org = workspace_or_404(request)
    entry = selectors.log_entry_get(org=org, entry_id=entry_id, contact_id=contact_id)
    return _undo(request, org, entry, reverse("pages:contact", args=[contact_id]))


@require_POST
@login_required
def company_log_undo(request: HttpRequest, company_id, entry_id) -> HttpResponse:
    org = workspace_or_404(request)
    entry = selectors.log_entry_get(org=org, entry_id=entry_id, company_id=company_id)
    return _undo(request, org, entry, reverse("pages:company", args=[company_id]))


def _undo(request: HttpRequest, org: Organization, entry, back: str) -> HttpResponse:
    if entry is None:
        raise Http404("No such log entry on this record.")
    change = selectors.changes_by_id(org=org, ids=[entry.change_id]).get(entry.change_id)
    if change is None or not change.can_undo:
        if change is not None and change.undone_at is not None:
            messages.info(request, "That was undone already.")
        else:
            messages.error(request, "That entry has nothing to undo.")
        return _back_to(back, "log")
    try:
        roadstar_services.change_undo(org=org, change_id=entry.change_id, actor=Actor.for_user(request.user))
    except ToolError as error:
        messages.error(request, f"Couldn't undo “{entry.text or entry.kind}”. {error.message}")
    else:
        messages.success(request, f"Undone: {entry.text or entry.kind}.")
    return _back_to(back, "log")


# --- Docs -------------------------------------------------------------------------------------------------


@login_required
def docs(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    project = None
    if request.GET.get("project"):
        project = selectors.project_get(org=org, project_id=request.GET["project"])
        if project is None:
            raise Http404("No such project in this workspace.")
    title = request.GET.get("q", "").strip()[:300]
    offset = _offset(request)
    rows, next_offset = doc_selectors.doc_page(org=org, project=project, title=title or None, offset=offset)
    groups: OrderedDict = OrderedDict()
    for doc in rows:  # newest first; a project shows where its newest doc is
        groups.setdefault(doc.project_id, {"project": doc.project, "docs": []})["docs"].append(doc)
    # Every project by name on the first page, so one without docs yet (just started) is still found.
    projects = doc_selectors.project_page(org=org)[0] if project is None and not offset and not title else []
    return _page(request, org, "pages/docs.html", {
        "groups": list(groups.values()),
        "projects": projects,
        "project": project,
        "query": title,
        "pager": _pager(request, offset=offset, size=doc_selectors.PAGE_SIZE, shown=len(rows),
                        more=next_offset is not None),
    })


def _doc_or_404(org: Organization, doc_id):
    try:
        return doc_selectors.doc_get(org=org, doc_id=doc_id)
    except ToolError as exc:
        raise Http404("No such doc in this workspace.") from exc


@login_required
def doc(request: HttpRequest, doc_id) -> HttpResponse:
    org = workspace_or_404(request)
    found = _doc_or_404(org, doc_id)
    return _doc_page(request, org, found, text=found.text, version=None)


@login_required
def doc_version(request: HttpRequest, doc_id, number: int) -> HttpResponse:
    org = workspace_or_404(request)
    found = _doc_or_404(org, doc_id)
    version = selectors.doc_version(doc=found, number=number)
    if version is None:
        raise Http404("That doc has no such version.")
    return _doc_page(request, org, found, text=version.text, version=version)


def _doc_page(request: HttpRequest, org: Organization, found, *, text, version, kept: dict | None = None,
              status: int = 200) -> HttpResponse:
    rendered = mdx.render(text, links=WorkspaceLinks(org), id_prefix="doc-chart")
    return _page(request, org, "pages/doc.html", {
        **(kept or {}),
        "note_limit_words": f"{limits.DOC_NOTE:,}",
        "note_on_limit_words": f"{NOTE_ON_LIMIT:,}",
        "doc": found,
        "body": rendered,
        "version": version,
        "versions": selectors.doc_versions(doc=found),
        "notes": doc_selectors.doc_notes_with_answers(doc=found),
        "note_limit": limits.DOC_NOTE,
        "note_on_limit": NOTE_ON_LIMIT,
    }, status=status)


@require_POST
@login_required
def doc_note(request: HttpRequest, doc_id) -> HttpResponse:
    org = workspace_or_404(request)
    found = _doc_or_404(org, doc_id)
    back = reverse("pages:doc", args=[found.id])
    note = request.POST.get("note", "").strip()
    on = request.POST.get("on", "").strip()
    error = ""
    if not note:
        error = "Write the note first: what should change, or what you'd like to know."
    elif len(note) > limits.DOC_NOTE:
        error = (f"Your note is {len(note):,} characters; a note holds up to {limits.DOC_NOTE:,}. Shorten it (it is "
                 "below, as you wrote it) and leave it again. Nothing was added.")
    elif len(on) > NOTE_ON_LIMIT:
        error = (f"The words it is on are {len(on):,} characters; up to {NOTE_ON_LIMIT:,} fit. Paste a shorter part "
                 "of the doc. Nothing was added.")
    if error:
        # The page again, with what was typed still in the form: a refusal never throws the owner's words away.
        return _doc_page(request, org, found, text=found.text, version=None, status=400,
                         kept={"note_error": error, "kept_note": note, "kept_on": on})
    doc_services.doc_note_add(org=org, actor=Actor.for_user(request.user), doc=found, on=on, note=note)
    messages.success(request, "Your note is on the doc. The agents read it with the doc, and answer it here.")
    return _back_to(back, "notes")


# --- Agents: the chart ------------------------------------------------------------------------------------


@dataclass
class ChartNode:
    agent: Agent
    spend: decimal.Decimal
    departments: list = field(default_factory=list)  # [(department, [ChartNode])], named ones first
    # When it works, from its routines that are on (name, when in words): what really runs it, not its
    # description's words, which may name a time no routine keeps.
    runs: list = field(default_factory=list)


def _chart(agents: list[Agent], spend: dict, runs: dict | None = None) -> ChartNode | None:
    """Roadstar at the top, each agent under the agent it reports to, its reports grouped by department.

    An agent whose manager is gone, or who sits in a loop of reports, is put under Roadstar.
    """
    by_id = {a.id: a for a in agents}
    top = next((a for a in agents if a.is_roadstar), None)
    if top is None:
        return None
    reports: dict = {}
    for agent in agents:
        if agent is top:
            continue
        boss = agent.reports_to_id if agent.reports_to_id in by_id and agent.reports_to_id != agent.id else top.id
        reports.setdefault(boss, []).append(agent)
    placed: set = set()

    def node(agent: Agent) -> ChartNode:
        placed.add(agent.id)
        groups: dict[str, list] = {}
        for report in reports.get(agent.id, []):
            if report.id not in placed:
                groups.setdefault(report.department.strip(), []).append(report)
        built = ChartNode(agent, spend.get(agent.id, decimal.Decimal(0)), runs=(runs or {}).get(agent.id, []))
        for department in sorted(groups, key=lambda d: (d == "", d.lower())):
            built.departments.append((department, [node(r) for r in groups[department] if r.id not in placed]))
        return built

    root = node(top)
    stray = [a for a in agents if a.id not in placed]  # a loop that never reaches Roadstar
    for agent in stray:
        if agent.id not in placed:
            loose = node(agent)
            department = agent.department.strip()
            for name, members in root.departments:
                if name == department:
                    members.append(loose)
                    break
            else:
                root.departments.append((department, [loose]))
    return root


@login_required
def agents(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    staff = selectors.agents_of(org=org)
    spend = agent_selectors.spend_this_month(org=org)
    runs: dict = {}
    for routine in routine_selectors.routines_of(org=org):
        if routine.status == Routine.Status.ON:
            runs.setdefault(routine.agent_id, []).append((routine.name, routine_words(routine)))
    return _page(request, org, "pages/agents.html", {
        "chart": _chart(staff, spend, runs),
        "count": sum(1 for a in staff if not a.is_roadstar),
    })


@require_POST
@login_required
def agent_budget(request: HttpRequest, agent_id) -> HttpResponse:
    org = workspace_or_404(request)
    agent = selectors.agent_get(org=org, agent_id=agent_id)
    if agent is None:
        raise Http404("No such agent in this workspace.")
    budget_set_from_form(request, org=org, agent=agent, done="{name}'s budget is {amount} a month.")
    return _back_to(reverse("pages:agents"), f"agent-{agent.id}")


# --- Routines ---------------------------------------------------------------------------------------------


@login_required
def routines(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    staff = selectors.agents_of(org=org)
    by_agent: dict = {a.id: [] for a in staff}
    for routine in routine_selectors.routines_of(org=org):
        by_agent.setdefault(routine.agent_id, []).append({
            "routine": routine,
            "when": routine_words(routine),
        })
    return _page(request, org, "pages/routines.html", {
        "groups": [(agent, by_agent[agent.id]) for agent in staff],
        "count": sum(len(v) for v in by_agent.values()),
    })


@require_POST
@login_required
def routine_on(request: HttpRequest, routine_id: int) -> HttpResponse:
    org = workspace_or_404(request)
    routine = routine_selectors.routine_get(org=org, routine_id=routine_id)
    if routine is None:
        raise Http404("No such routine in this workspace.")
    back = reverse("pages:routines")
    anchor = f"routine-{routine.id}"
    if routine.status == Routine.Status.CLOSED:
        messages.error(request, f"“{routine.name}” fired and closed; it can't be turned on again.")
        return _back_to(back, anchor)
    on = request.POST.get("on") == "1"
    routine_services.routine_set_on(routine=routine, on=on)
    messages.success(request, f"“{routine.name}” is {'on' if on else 'off'}.")
    return _back_to(back, anchor)


# --- the owner's own edits: add and change contacts -------------------------------------------------------------


@require_POST
@login_required
def contact_add(request: HttpRequest) -> HttpResponse:
    """Add a contact from Contacts: the same service an agent's contacts.create uses, and the same line on Home."""
    org = workspace_or_404(request)
    post = request.POST
    try:
        made = contact_services.contact_add_by_owner(
            org=org, actor=Actor.for_user(request.user), name=post.get("name", ""), email=post.get("email", ""),
            phone=post.get("phone", ""), job_title=post.get("job_title", ""),
        )
    except contact_services.ContactExists as exists:
        messages.error(request, f"Not added: {exists.email} is already on {exists.contact.name}.")
        return HttpResponseRedirect(reverse("pages:contact", args=[exists.contact.id]))
    except ToolError as error:
        messages.error(request, f"Not added. {error.message}")
        return HttpResponseRedirect(reverse("pages:contacts") + "#add")
    messages.success(request, f"Added {made.name} to Contacts.")
    return HttpResponseRedirect(reverse("pages:contact", args=[made.id]))


def _saved(request: HttpRequest, change) -> None:
    """What an owner's edit says: the new values it wrote, and that its Undo is on Home; or that nothing changed."""
    if change is None:
        messages.info(request, "Nothing was different, so nothing changed.")
    else:
        messages.success(request, f"Saved: you {change.sentence}. Undo is on Home.")


@require_POST
@login_required
def contact_edit(request: HttpRequest, contact_id) -> HttpResponse:
    """Change a contact from its page: on its log, and on Home with Undo."""
    org = workspace_or_404(request)
    values = {f: request.POST.get(f, "") for f in contact_services.OWNER_FIELDS if f in request.POST}
    return _owner_edit(request, lambda: contact_services.contact_edit_by_owner(
        org=org, actor=Actor.for_user(request.user), contact_id=contact_id, values=values,
    ), page=reverse("pages:contact", args=[contact_id]), what="contact")


def _owner_edit(request: HttpRequest, edit: Callable[[], Change | None], *, page: str, what: str) -> HttpResponse:
    """The owner's edit from a record's page, back on the page: saved (on Home with Undo), or why not beside the
    form; another workspace's record (or none) is a 404."""
    try:
        change = edit()
    except ToolError as error:
        if error.kind == "not_found":
            raise Http404(f"No such {what} in this workspace.") from error
        messages.error(request, f"Not saved. {error.message}")
        return HttpResponseRedirect(page + "#edit")
    _saved(request, change)
    return HttpResponseRedirect(page)


# --- the owner's own edits: add and change companies and projects ---------------------------------------------


@require_POST
@login_required
def company_add(request: HttpRequest) -> HttpResponse:
    """Add a company from Companies: the service behind an agent's companies.create, and a line on Home."""
    org = workspace_or_404(request)
    post = request.POST
    try:
        made = company_services.company_add_by_owner(
            org=org, actor=Actor.for_user(request.user), name=post.get("name", ""), website=post.get("website", ""),
            domains=post.get("domains", ""),
        )
    except company_services.CompanyExists as exists:
        messages.error(request, f"Not added: {exists.company.name} has {exists.what} already.")
        return HttpResponseRedirect(reverse("pages:company", args=[exists.company.id]))
    except ToolError as error:
        messages.error(request, f"Not added. {error.message}")
        return HttpResponseRedirect(reverse("pages:companies") + "#add")
    messages.success(request, f"Added {made.name} to Companies.")
    return HttpResponseRedirect(reverse("pages:company", args=[made.id]))


@require_POST
@login_required
def company_edit(request: HttpRequest, company_id) -> HttpResponse:
    """Change a company from its page: on its log, and on Home with Undo."""
    org = workspace_or_404(request)
    values = {f: request.POST.get(f, "") for f in company_services.OWNER_FIELDS if f in request.POST}
    return _owner_edit(request, lambda: company_services.company_edit_by_owner(
        org=org, actor=Actor.for_user(request.user), company_id=company_id, values=values,
    ), page=reverse("pages:company", args=[company_id]), what="company")


def _project_url(project_id) -> str:
    return reverse("pages:docs") + f"?project={project_id}"


@require_POST
@login_required
def project_add(request: HttpRequest) -> HttpResponse:
    """Start a project from Docs; it shows on Home, and agents can file docs in it."""
    org = workspace_or_404(request)
    try:
        made = doc_services.project_add_by_owner(org=org, actor=Actor.for_user(request.user),
                                                 name=request.POST.get("name", ""),
                                                 description=request.POST.get("description", ""))
    except ToolError as error:
        messages.error(request, f"Not added. {error.message}")
        return HttpResponseRedirect(reverse("pages:docs") + "#add-project")
    messages.success(request, f"Started the project {made.name}.")
    return HttpResponseRedirect(_project_url(made.id))


@require_POST
@login_required
def project_edit(request: HttpRequest, project_id) -> HttpResponse:
    """Rename a project or change its description: on Home with Undo."""
    org = workspace_or_404(request)
    return _owner_edit(request, lambda: doc_services.project_edit_by_owner(
        org=org, actor=Actor.for_user(request.user), project_id=project_id, name=request.POST.get("name", ""),
        description=request.POST.get("description", ""),
    ), page=_project_url(project_id), what="project")
