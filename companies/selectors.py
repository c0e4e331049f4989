"""Reads of companies, always scoped by the workspace; another workspace's company, entry or item is `not_found`.

Loaders here fetch what `companies.shapes` reads, so a page of companies costs the same number of queries
whatever its length.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce
from django.utils import timezone

from contacts.selectors import HasLabel, emails_taken
from core.errors import ToolError, bad_input
from core.inputs import Uuid, as_uuid
from core.owner_zone import owner_time
from records.models import Company, CompanyPerson, Contact, Doc, OpenItem, ProjectLink, TimelineEntry
from team.models import Agent

PAGE_SIZE = 50
TIMELINE_PAGE = 20



# --- one company ------------------------------------------------------------------------------------------


def company_get(*, org, company_id) -> Company:
    """The company's own row (handler loaded), for a write or a check that needs nothing else."""
    key = as_uuid(company_id)  # no id at all: no row has it
    company = Company.objects.filter(organization=org, id=key).select_related("handler").first() if key else None
    if company is None:
        raise ToolError("not_found", f"No company with id {company_id} in this workspace.")
    return company


def _live_timeline() -> QuerySet:
    return TimelineEntry.objects.filter(company=OuterRef("pk"), removed_at__isnull=True)


def _count_of(rows: QuerySet, what: str = "pk", distinct: bool = False):
    # A correlated COUNT: grouped by a constant so the subquery gives one row, or none when nothing matches.
    counted = rows.order_by().annotate(_one=Value(1)).values("_one").annotate(n=Count(what, distinct=distinct))
    return Coalesce(Subquery(counted.values("n")[:1]), 0, output_field=IntegerField())


def company_queryset_for_record(*, org) -> QuerySet:
    """Companies with everything CompanyRecord reads: people with their addresses and open items, open
    items, and the timeline's count, first and last times, and the projects and docs of its people."""
    open_items = OpenItem.objects.filter(closed_at__isnull=True)
    people = CompanyPerson.objects.select_related("contact").prefetch_related(
        "contact__emails", Prefetch("contact__open_items", queryset=open_items)
    )
    people_projects = ProjectLink.objects.filter(contact__company_links__company=OuterRef("pk"))
    people_docs = Doc.objects.filter(project__links__contact__company_links__company=OuterRef("pk"))
    # The files its conversations carried (companies.record's files), newest first: the record's `files`.
    with_files = TimelineEntry.objects.filter(removed_at__isnull=True).exclude(files=[]).order_by("-at", "-created_at")
    return (
        Company.objects.filter(organization=org)
        # `listing` (with its EDGAR company) is research's link of a company to the public company that files with
        # the SEC (research.CompanyListing, filings.link): the record's `listed`. Read through the relation's name;
        # companies imports nothing of research.
        .select_related("handler", "listing__edgar")
        .prefetch_related(Prefetch("people", queryset=people), Prefetch("open_items", queryset=open_items),
                          Prefetch("timeline", queryset=with_files, to_attr="file_entries"))
        .annotate(
            timeline_count=_count_of(_live_timeline()),
            first_at=Subquery(_live_timeline().order_by("at").values("at")[:1]),
            last_at=Subquery(_live_timeline().order_by("-at").values("at")[:1]),
            project_count=_count_of(people_projects, "project", distinct=True),
            doc_count=_count_of(people_docs, "pk", distinct=True),
        )
    )


def company_for_record(*, org, company_id) -> Company:
    company = company_queryset_for_record(org=org).filter(id=as_uuid(company_id)).first()
    if company is None:
        raise ToolError("not_found", f"No company with id {company_id} in this workspace.")
    return company


def company_read(*, org, company_id) -> tuple[Company, list[TimelineEntry]]:
    """companies.read: the company loaded for CompanyRecord, and its newest timeline entries."""
    company = company_for_record(org=org, company_id=company_id)
    return company, timeline_newest(company=company)


def company_duplicate(*, org, name: str, domains: list[str], other_than: Company | None = None
                      ) -> tuple[Company, str] | None:
    """A company this workspace holds already under the same name or one of these domains, and which;
    `other_than`: a company being renamed, which doesn't count."""
    same: Q | Combinable = Q(name__iexact=name.strip())
    for domain in domains:
        same |= HasLabel("domains", domain)
    rows = Company.objects.filter(organization=org)
    if other_than is not None:
        rows = rows.exclude(id=other_than.id)
    found = rows.filter(same).order_by("created_at").first()
    if found is None:
        return None
    if found.name.strip().lower() == name.strip().lower():
        return found, f"the name {found.name}"
    taken = {d.lower() for d in found.domains}
    return found, f"the domain {next(d for d in domains if d.lower() in taken)}"


def timeline_newest(*, company: Company, limit: int = TIMELINE_PAGE) -> list[TimelineEntry]:
    return list(company.timeline.filter(removed_at__isnull=True).order_by("-at", "-created_at")[:limit])


WAITING_STATES = ("waiting_you", "waiting_them")


def timeline_waiting(*, company: Company, limit: int = 20) -> list[TimelineEntry]:
    """The company's timeline entries still waiting on someone (a mail waiting on the owner's reply, say): open
    work as much as its open items are, so a page that lists what's open lists these too."""
    return list(company.timeline.filter(removed_at__isnull=True, state__in=WAITING_STATES)
                .order_by("-at", "-created_at")[:limit])


def timeline_entry_get(*, org, company: Company, entry_id) -> TimelineEntry:
    """An entry on the company's timeline now; one taken off, or of another company, is not_found."""
    key = as_uuid(entry_id)
    entry = TimelineEntry.objects.filter(
        organization=org, company=company, id=key, removed_at__isnull=True
    ).first() if key else None
    if entry is None:
        raise ToolError("not_found", f"entryId: no entry {entry_id} on {company.name}'s timeline.")
    return entry


def timeline_entry_matching(*, company: Company, thread: str | None, link: str | None) -> TimelineEntry | None:
    """The entry of the same conversation: the same thread, else the same link."""
    live = company.timeline.filter(removed_at__isnull=True).order_by("-at", "-created_at")
    if thread:
        entry = live.filter(thread=thread).first()
        if entry is not None:
            return entry
    if link:
        return live.filter(link=link).first()
    return None


def open_item_get(*, org, company: Company, item_id) -> OpenItem:
    key = as_uuid(item_id)
    item = OpenItem.objects.filter(
        organization=org, company=company, id=key, closed_at__isnull=True
    ).first() if key else None
    if item is None:
        raise ToolError("not_found", f"done: no open item {item_id} on {company.name}.")
    return item


def contact_get(*, org, contact_id) -> Contact:
    key = as_uuid(contact_id)
    contact = Contact.objects.filter(organization=org, id=key).first() if key else None
    if contact is None:
        raise ToolError("not_found", f"No contact with id {contact_id} in this workspace.")
    return contact


def company_person_get(*, company: Company, contact: Contact) -> CompanyPerson | None:
    return CompanyPerson.objects.filter(company=company, contact=contact).first()


# --- agents and people, as the inputs name them -----------------------------------------------------------


def _agents(org) -> list[Agent]:
    return list(Agent.objects.filter(organization=org))


def _agent_named(agents: list[Agent], ref: str, where: str) -> Agent:
    key = ref.strip()
    for agent in agents:
        if (as_uuid(key) is not None and agent.id == as_uuid(key)) or agent.name.lower() == key.lower():
            return agent
    names = ", ".join(a.name for a in agents)
    raise bad_input(where, f"no agent {ref!r} in this workspace; its agents are {names}")


def agent_by_ref(*, org, ref: str, field: str) -> Agent:
    """The workspace's agent with this id or name (any letter case); else bad_input naming `field`."""
    return _agent_named(_agents(org), ref, field)


def agents_by_ref(*, org, refs: list[str], field: str) -> list[Agent]:
    """Agents by id or name, in the order given; one that isn't there is bad_input naming `field[i]`."""
    if not refs:
        return []
    agents = _agents(org)
    return [_agent_named(agents, ref, f"{field}[{i}]") for i, ref in enumerate(refs)]


def people_by_ref(*, org, refs: list[str]) -> list[dict]:
    """Timeline people from contact ids or addresses: `{name, id}` for the workspace's contacts, `{name}` for
    an address (or a name) no contact has. An id that is no contact of this workspace is not_found."""
    ids = {found for r in refs if (found := as_uuid(r)) is not None}
    contacts = {c.id: c for c in Contact.objects.filter(organization=org, id__in=ids)} if ids else {}
    by_address = emails_taken(org=org, emails=[r for r in refs if not as_uuid(r) and "@" in r])
    people, seen = [], set()
    for i, ref in enumerate(refs):
        text = ref.strip()
        if not text:
            continue
        ref_id = as_uuid(text)
        contact: Contact | None
        if ref_id is not None:
            contact = contacts.get(ref_id)
            if contact is None:
                raise ToolError("not_found", f"people[{i}]: no contact with id {text} in this workspace.")
        else:
            contact = by_address.get(text.lower())
        person = {"name": contact.name, "id": str(contact.id)} if contact else {"name": text}
        key = person.get("id") or text.lower()
        if key not in seen:
            seen.add(key)
            people.append(person)
    return people


# --- the list ---------------------------------------------------------------------------------------------


def _current_people() -> QuerySet:
    # As contacts.list reads a link: someone whose link has an `ended` date has left the company.
    return CompanyPerson.objects.filter(ended__isnull=True)


@dataclass
class CompanyRow:
    """A company of the list, with what its row shows: `last`, its newest timeline entry's time; `people`, its
    current people (contacts loaded); `open_rows`, (open item, the person's name or None for the company's
    own), soonest first."""

    company: Company
    last: datetime.datetime | None
    people: list[CompanyPerson]
    open_rows: list[tuple[OpenItem, str | None]] = field(default_factory=list)


def company_list(
    *, org, label: str | None = None, query: str | None = None, open_kind: str | None = None,
    quiet_days: int | None = None, handled_by: str | None = None, offset: int = 0,
) -> tuple[list[CompanyRow], int]:
    """One page of companies by name, and how many match in all. `handled_by` is an agent's id or name."""
    companies = Company.objects.filter(organization=org).annotate(
        last=Subquery(_live_timeline().order_by("-at").values("at")[:1])
    )
    if label:
        companies = companies.filter(HasLabel("labels", label))
    if query and query.strip():
        words = query.strip()
        companies = companies.filter(
            Q(name__icontains=words) | Q(website__icontains=words) | Q(domains__icontains=words)
        )
    if open_kind:
        open_items = OpenItem.objects.filter(kind=open_kind, closed_at__isnull=True)
        people_open = open_items.filter(
            contact__company_links__company=OuterRef("pk"), contact__company_links__ended__isnull=True
        )
        companies = companies.filter(
            Exists(open_items.filter(company=OuterRef("pk"))) | Exists(people_open)
        )
    if quiet_days is not None:
        cutoff = timezone.now() - datetime.timedelta(days=quiet_days)
        companies = companies.filter(Q(last__isnull=True) | Q(last__lt=cutoff))
    if handled_by:
        companies = companies.filter(handler=agent_by_ref(org=org, ref=handled_by, field="handledBy"))
    total = companies.count()
    loaded = (
        companies.order_by("name", "id")
        .select_related("handler")
        .prefetch_related(
            Prefetch(
                "people", queryset=_current_people().select_related("contact"), to_attr="current_people"
            )
        )[offset : offset + PAGE_SIZE]
    )
    page = [CompanyRow(company=c, last=c.last, people=c.current_people) for c in loaded]
    _attach_open_rows(org, page)
    return page, total


def _attach_open_rows(org, rows: list[CompanyRow]) -> None:
    """Every page company's open items and its current people's, in one query."""
    holders: dict[Uuid, list[CompanyRow]] = {}  # contact id -> the page's companies the contact is at now
    for row in rows:
        for link in row.people:
            holders.setdefault(link.contact_id, []).append(row)
    if not rows:
        return
    by_id = {row.company.id: row for row in rows}
    items = OpenItem.objects.filter(organization=org, closed_at__isnull=True).filter(
        Q(company_id__in=list(by_id)) | Q(contact_id__in=list(holders))
    ).select_related("contact")
    for item in items:
        if item.company_id:
            by_id[item.company_id].open_rows.append((item, None))
        elif item.contact is not None:  # an item is on a company or on a contact
            for row in holders.get(item.contact.id, []):
                row.open_rows.append((item, item.contact.name))
    for row in rows:
        row.open_rows.sort(key=lambda pair: (pair[0].at, pair[0].created_at))


# --- the timeline -----------------------------------------------------------------------------------------


def timeline_page(
    *, org, company_id, kind: str | None = None, contact_id=None, query: str | None = None,
    before: datetime.datetime | None = None, limit: int = TIMELINE_PAGE,
) -> dict:
    """{items, total, counts, more}: a company's entries newest first, strictly older than `before` (a time
    without an offset is in the owner's time zone); `contact_id`: those whose people include the contact.

    `counts` is by kind over the entries the other filters match, so it shows what else there is; `total`
    counts the entries every filter but `before` matches.
    """
    company = company_get(org=org, company_id=company_id)
    entries = company.timeline.filter(organization=org, removed_at__isnull=True)
    if contact_id is not None:
        contact = contact_get(org=org, contact_id=contact_id)
        # Contact ids are UUIDs, so their text found in `people` is theirs alone.
        entries = entries.filter(people__icontains=str(contact.id))
    if query and query.strip():
        words = query.strip()
        entries = entries.filter(Q(title__icontains=words) | Q(summary__icontains=words))
    counts = {k: 0 for k in TimelineEntry.Kind.values}
    for row in entries.order_by().values("kind").annotate(n=Count("pk")):
        counts[row["kind"]] = row["n"]
    if kind:
        entries = entries.filter(kind=kind)
    total = counts.get(kind, 0) if kind else sum(counts.values())
    if before is not None:
        entries = entries.filter(at__lt=owner_time(org, before))
    rows = list(entries.order_by("-at", "-created_at")[: limit + 1])
    more = len(rows) > limit
    items = rows[:limit]
    if more and items[-1].at == rows[limit].at:
        # The next page starts strictly before the last item's time: end this page before a run of entries
        # at that same time, so none of them is skipped (unless the whole page is that one time).
        kept = [e for e in items if e.at != items[-1].at]
        items = kept or items
    return {"items": items, "total": total, "counts": counts, "more": more}
