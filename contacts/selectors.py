"""Reads of contacts, always scoped by the workspace; another workspace's contact is `not_found`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from datetime import timezone as dt_timezone
from typing import TYPE_CHECKING, Any, Protocol, cast

from django.db import connection
from django.db.models import (
    BooleanField,
    CharField,
    DateTimeField,
    Exists,
    Func,
    JSONField,
    Model,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Lower
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from core.errors import ToolError
from core.inputs import as_uuid
from core.registry import Registry
from core.rows import kept_cursor
from core.timefmt import iso
from records.models import Company, CompanyPerson, Contact, ContactEmail, LogEntry, OpenItem, ProjectLink

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler

PAGE_SIZE = 50
LOG_SIZE = 20


def contact_queryset_for_record(*, org) -> QuerySet:
    """Contacts with everything ContactRecord reads, in a fixed number of queries whatever their count."""
    return Contact.objects.filter(organization=org).prefetch_related(
        "emails",
        Prefetch("open_items", queryset=OpenItem.objects.filter(closed_at__isnull=True)),
        # The links with their companies, handlers and listings (a CompanyRef's ticker) in one query.
        Prefetch("company_links", queryset=CompanyPerson.objects.select_related("company__handler",
                                                                                "company__listing__edgar")),
        "project_links__project",
    )


def contact_get(*, org, contact_id) -> Contact:
    contact = contact_queryset_for_record(org=org).filter(id=contact_id).first()
    if contact is None:
        raise ToolError("not_found", f"No contact with id {contact_id} in this workspace.")
    return contact


def contact_get_plain(*, org, contact_id) -> Contact:
    """The contact's own row only, for a write that needs nothing else loaded."""
    contact = Contact.objects.filter(organization=org, id=contact_id).first()
    if contact is None:
        raise ToolError("not_found", f"No contact with id {contact_id} in this workspace.")
    return contact


def contact_by_email(*, org, email: str) -> Contact | None:
    """The contact with this address (any letter case), with everything ContactRecord reads, in one query
    (_contact_with_record). contacts.find runs this on every call; the address, the contact and its four
    prefetches took six statements (nine for a contact with companies and projects), each compiled by the ORM."""
    organization = ContactEmail._meta.get_field("organization")
    # Lower(email) is what the workspace's unique constraint indexes, so this lookup uses it.
    return _contact_with_record(
        "email",
        f'FROM "{ContactEmail._meta.db_table}" ce JOIN "{Contact._meta.db_table}" c ON c.id = ce.contact_id '
        "WHERE ce.organization_id = %s AND LOWER(ce.email) = %s AND c.organization_id = ce.organization_id",
        [organization.get_db_prep_value(org.pk, connection), email.strip().lower()],
    )


def _contact_with_record(by: str, source: str, params: list) -> Contact | None:
    """The contact `source` names (its FROM and WHERE, the contact's table as `c`), as `contact_queryset_for_record`
    loads it, in one statement: the contact's row as one JSON array and its addresses, open items, company links
    (with their companies and handlers) and project links (with their projects) as JSON lists (`_record_parts`),
    made rows again and held as prefetched, so contact_record reads them without a query. The statement is made
    once a process for each way of naming the contact (`by`). Raw SQL over a lean loop: the ORM compiling four
    joins a call cost more than the statements it saved (PERFORMANCE)."""
    parts = _record_parts()
    own = [(Contact, "c", _all(Contact))]
    sql = _RECORD_SQL.get((connection.vendor, by))
    if sql is None:
        postgres = connection.vendor == "postgresql"
        lists = ", ".join(f"({_json_list(columns, where, order, postgres=postgres)})"
                          for _, columns, where, order in parts)
        sql = _RECORD_SQL[(connection.vendor, by)] = f"SELECT {_json_row(own, postgres=postgres)}, {lists} {source}"
    with kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    if found is None:
        return None
    contact = _rows_of(own, json.loads(found[0]))
    prefetched: dict[str, QuerySet] = {}
    for (name, columns, _, _), text in zip(parts, found[1:], strict=True):
        rows = [_rows_of(columns, values) for values in (json.loads(text) if text else [])]
        manager = getattr(contact, name)
        for row in rows:
            manager.field.set_cached_value(row, contact)  # row.contact, as the prefetch sets it
        queryset = manager.all()
        queryset._result_cache = rows
        queryset._prefetch_done = True
        prefetched[name] = queryset
    contact.__dict__["_prefetched_objects_cache"] = prefetched  # where prefetch_related keeps them
    return contact


_RECORD_SQL: dict[tuple[str, str], str] = {}


def _json_row(columns: list[tuple], *, postgres: bool) -> str:
    """One row's columns (given as `_json_list` takes them) as one JSON array, as text."""
    picked = [(alias, model._meta.get_field(name)) for model, alias, names, *_ in columns for name in names]
    # A JSON column is text in SQLite: it is put in as JSON, not as a string.
    values = [f'json({alias}."{field.column}")' if isinstance(field, JSONField) and not postgres
              else f'{alias}."{field.column}"' for alias, field in picked]
    if postgres:
        return f"CAST(json_build_array({', '.join(values)}) AS text)"
    return f"json_array({', '.join(values)})"


def contact_log(*, contact: Contact, limit: int = LOG_SIZE) -> list[LogEntry]:
    """The contact's newest log entries, newest first."""
    return list(LogEntry.objects.filter(contact=contact).order_by("-at", "-id")[:limit])


def emails_taken(*, org, emails: list[str]) -> dict[str, Contact]:
    """Which of these addresses are on a contact already, by lower-cased address."""
    lowered = {e.strip().lower() for e in emails if e.strip()}
    if not lowered:
        return {}
    taken = {}
    rows = ContactEmail.objects.filter(organization=org).select_related("contact")
    for row in rows.annotate(lowered=Lower("email")).filter(lowered__in=lowered):
        taken[row.email.lower()] = row.contact
    return taken


# --- list -------------------------------------------------------------------------------------------------


class HasLabel(Func):
    """True where a JSON list of labels holds `label`, whatever its letter case.

    SQLite's JSON1 has no `contains` for JSONField, and matching the list's JSON text breaks on escaped
    characters, so each backend looks into the list's elements itself.
    """

    output_field = BooleanField()

    def __init__(self, field: str, label: str):
        super().__init__(field)
        self.label = label

    def as_sql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, function: str | None = None,
        template: str | None = None, arg_joiner: str | None = None, **extra_context: Any,
    ) -> tuple[str, tuple[Any, ...]]:
        sql, params = compiler.compile(self.source_expressions[0])
        return (
            f"EXISTS (SELECT 1 FROM json_each({sql}) WHERE lower(json_each.value) = lower(%s))",
            (*params, self.label),
        )

    def as_postgresql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any,
    ) -> tuple[str, tuple[Any, ...]]:
        sql, params = compiler.compile(self.source_expressions[0])
        return (
            f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({sql}) AS label(v) WHERE lower(label.v) = lower(%s))",
            (*params, self.label),
        )


def companies_matching(*, org, company: str) -> list:
    """The workspace's companies a `company` filter names: an id, else a name (exact, else part of one)."""
    text = company.strip()
    company_id = as_uuid(text)
    if company_id is not None:
        found = list(Company.objects.filter(organization=org, id=company_id).only("id"))
        if not found:
            raise ToolError("not_found", f"company: no company with id {text} in this workspace.")
        return found
    named = Company.objects.filter(organization=org).only("id")
    found = list(named.filter(name__iexact=text)) or list(named.filter(name__icontains=text))
    if not found:
        raise ToolError("not_found", f"company: no company named {text!r} in this workspace.")
    return found


def contact_list(
    *, org, label: str | None = None, company: str | None = None, query: str | None = None,
    open_kind: str | None = None, quiet_days: int | None = None, offset: int = 0,
) -> tuple[list[Contact], int]:
    """One page of contacts for the compact list, and how many match in all.

    Each contact comes with `current_links` (its links to companies it hasn't left, company loaded) and
    `open_loaded` (its open items, of `open_kind` when given, soonest first). Ignored contacts are left out.
    """
    contacts = Contact.objects.filter(organization=org).exclude(status=Contact.Status.IGNORED)
    if label:
        contacts = contacts.filter(HasLabel("labels", label))
    if company:
        companies = companies_matching(org=org, company=company)
        at_company = CompanyPerson.objects.filter(contact=OuterRef("pk"), company__in=companies, ended__isnull=True)
        contacts = contacts.filter(Exists(at_company))
    if query and query.strip():
        words = query.strip()
        with_email = ContactEmail.objects.filter(contact=OuterRef("pk"), email__icontains=words)
        contacts = contacts.filter(Q(name__icontains=words) | Q(job_title__icontains=words) | Exists(with_email))
    open_items = OpenItem.objects.filter(closed_at__isnull=True)
    if open_kind:
        open_items = open_items.filter(kind=open_kind)
        contacts = contacts.filter(Exists(open_items.filter(contact=OuterRef("pk"))))
    if quiet_days is not None:
        # `last.at` is written with core.timefmt.iso (UTC, Z, to the second), so its text sorts as time.
        cutoff = iso(timezone.now() - timedelta(days=quiet_days))
        # Cast: a JSON key's own lookups would read the cutoff as JSON; this compares it as text.
        last_at = Cast(KeyTextTransform("at", "last"), output_field=CharField())
        contacts = contacts.annotate(last_at=last_at).filter(
            Q(last_at__isnull=True) | Q(last_at="") | Q(last_at__lt=cutoff)
        )
    total = contacts.count()
    page = contacts.order_by("name", "id").prefetch_related(
        Prefetch("open_items", queryset=open_items, to_attr="open_loaded"),
        Prefetch(
            "company_links",
            queryset=CompanyPerson.objects.filter(ended__isnull=True).select_related("company"),
            to_attr="current_links",
        ),
    )[offset : offset + PAGE_SIZE]
    return list(page), total


# --- timeline ---------------------------------------------------------------------------------------------


class TimelineProvider(Protocol):
    """A connected app that lists a contact's live conversations (ContactTimelineItem dicts)."""

    connection: str  # the connection's id, as Failure.connection names it

    def contact_items(self, *, actor, addresses: list[str], limit: int) -> list[dict]:
        """The newest `limit` items with these addresses that `actor` may read; raises ToolError on failure."""
        ...


@dataclass(frozen=True)
class TimelineSource:
    source: str  # Failure.source: "mail", "calendar"
    integration: str  # the app's key, as integrations.list names it
    app: str  # the app's name, for the owner and the agent
    what: str  # what the app would show, for the not-connected message
    # `provider(org)`: the workspace's connected provider, or None while the app isn't connected.
    provider: Callable[..., TimelineProvider | None]


# Where contacts.timeline reads from, in the order it reads them. The integrations app, a layer above, registers
# each with its provider (one that finds the workspace's connection): integrations/hooks.py.
TIMELINE_SOURCES: Registry[str, TimelineSource] = Registry("timeline source", TimelineSource,
                                                           key=lambda source: source.source)


def contact_timeline(*, org, actor, contact: Contact, limit: int) -> dict:
    """{items, failures}: each source's items, newest first; a source that can't answer is a Failure."""
    addresses = [e.email for e in contact.emails.all()]
    items: list[dict] = []
    failures: list[dict] = []
    for source in TIMELINE_SOURCES.values():
        provider = source.provider(org)
        if provider is None:
            failures.append({
                "source": source.source,
                "kind": "not_connected",
                "message": f"{source.app} isn't connected, so {source.what} with {contact.name} can't be read.",
                "integration": source.integration,
                "connection": "",
            })
            continue
        if not addresses:
            continue
        try:
            items.extend(provider.contact_items(actor=actor, addresses=addresses, limit=limit))
        except ToolError as error:
            failures.append({
                "source": source.source,
                "kind": error.kind,
                "message": error.message,
                "integration": source.integration,
                "connection": provider.connection,
            })
    items.sort(key=lambda item: item["at"], reverse=True)
    return {"items": items[:limit], "failures": failures}


# --- the record of one contact, in one query ----------------------------------------------------------------

# What contact_record reads of each relation, as `contact_queryset_for_record` prefetches it: (the cache name on
# the contact, the rows' columns (model, the table's alias, the columns read and, where it isn't the group before,
# the place of the group it hangs off), FROM and WHERE, ORDER BY). Every column of the
# relation's own rows; of the company, its handler and the project only what the record shows (the rest is
# deferred, read if something asks for it).
def _record_parts() -> list[tuple]:
    company, handler = Company, Company._meta.get_field("handler").related_model
    # The company's listing (research's, reached through the relation so this layer imports none of it).
    listing = Company._meta.get_field("listing").related_model
    edgar = cast("type[Model]", listing._meta.get_field("edgar").related_model)
    listing_t, edgar_t = listing._meta.db_table, edgar._meta.db_table
    project = ProjectLink._meta.get_field("project").related_model
    email_t, item_t = ContactEmail._meta.db_table, OpenItem._meta.db_table
    link_t, company_t, handler_t = CompanyPerson._meta.db_table, company._meta.db_table, handler._meta.db_table
    plink_t, project_t = ProjectLink._meta.db_table, project._meta.db_table
    return [
        ("emails", [(ContactEmail, "e", _all(ContactEmail))],
         f'FROM "{email_t}" e WHERE e.contact_id = c.id', "e.position, e.id"),
        # The record's open items: those not closed, as the prefetch filters them.
        ("open_items", [(OpenItem, "i", _all(OpenItem))],
         f'FROM "{item_t}" i WHERE i.contact_id = c.id AND i.closed_at IS NULL', "i.at, i.created_at, i.id"),
        ("company_links", [(CompanyPerson, "l", _all(CompanyPerson)),
                           (company, "co", ["id", "name", "labels", "handler_id", "context"]),
                           (handler, "h", ["id", "name"]),
                           (listing, "li", ["id", "company_id", "edgar_id"], 1),
                           (edgar, "ed", ["cik", "ticker", "name"])],
         f'FROM "{link_t}" l JOIN "{company_t}" co ON co.id = l.company_id '
         f'LEFT JOIN "{handler_t}" h ON h.id = co.handler_id '
         f'LEFT JOIN "{listing_t}" li ON li.company_id = co.id LEFT JOIN "{edgar_t}" ed ON ed.cik = li.edgar_id '
         "WHERE l.contact_id = c.id", "l.created_at, l.id"),
        # Project links have no order of their own: the order they were made in.
        ("project_links", [(ProjectLink, "pl", _all(ProjectLink)), (project, "p", ["id", "name"])],
         f'FROM "{plink_t}" pl JOIN "{project_t}" p ON p.id = pl.project_id WHERE pl.contact_id = c.id', "pl.id"),
    ]


def _all(model) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]


def contact_for_record(*, org, contact_id) -> Contact | None:
    """The contact with everything ContactRecord reads, as `contact_queryset_for_record` loads it, in one query
    where that takes five (_contact_with_record). None for another workspace's contact, or none."""
    contact_id = as_uuid(contact_id)
    if contact_id is None:
        return None
    organization = Contact._meta.get_field("organization")
    return _contact_with_record(
        "id", f'FROM "{Contact._meta.db_table}" c WHERE c.organization_id = %s AND c.id = %s',
        [organization.get_db_prep_value(org.pk, connection),
         Contact._meta.pk.get_db_prep_value(contact_id, connection)],
    )


def _json_list(columns: list[tuple], where: str, order: str, *, postgres: bool) -> str:
    """A subquery giving the relation's rows as a JSON list of lists (one value a column, in `columns`' order)."""
    picked = [(alias, model._meta.get_field(name)) for model, alias, names, *_ in columns for name in names]
    if postgres:
        values = ", ".join(f'{alias}."{field.column}"' for alias, field in picked)
        return f"SELECT CAST(json_agg(json_build_array({values}) ORDER BY {order}) AS text) {where}"
    # SQLite aggregates an ordered subquery's rows in order; a JSON column (text there) is put in as JSON.
    inner = ", ".join(f'{alias}."{field.column}" AS v{i}' for i, (alias, field) in enumerate(picked))
    values = ", ".join(f"json(v{i})" if isinstance(field, JSONField) else f"v{i}"
                       for i, (_, field) in enumerate(picked))
    return f"SELECT json_group_array(json_array({values})) FROM (SELECT {inner} {where} ORDER BY {order})"


def _rows_of(columns: list[tuple], values: list):
    """The relation's row (and the rows it points to, cached on it) from one JSON list."""
    rows: list[Any] = []
    at = 0
    for model, _, names, *_ in columns:
        own = values[at:at + len(names)]
        at += len(names)
        if own[0] is None:  # no handler: the LEFT JOIN's nulls
            rows.append(None)
            continue
        meta = model._meta
        rows.append(model.from_db(connection.alias, names,
                                  [_from_json(meta.get_field(name), value) for name, value in zip(names, own,
                                                                                                  strict=True)]))
    for n in range(1, len(columns)):
        # Each row hangs off the one before it (a link off its company or project, a company off its handler, a
        # listing off its public company) unless its columns name another (a company's listing off the company).
        model, owner = columns[n][0], columns[n][3] if len(columns[n]) > 3 else n - 1
        row, parent = rows[n], rows[owner]
        if parent is None:
            continue
        forward = [f for f in columns[owner][0]._meta.concrete_fields if f.is_relation and f.related_model is model]
        if forward:
            if row is not None:
                forward[0].set_cached_value(parent, row)
            continue
        # The parent is pointed to (a company by its listing): the reverse one-to-one, cached even when there is
        # none, so reading it asks nothing.
        back = next(f for f in model._meta.concrete_fields if f.one_to_one and f.related_model is type(parent))
        back.remote_field.set_cached_value(parent, row)
        if row is not None:
            back.set_cached_value(row, parent)
    return rows[0]


def _from_json(field, value):
    # What the database's converters would give: JSON values as they are, times as aware datetimes (SQLite writes
    # them in UTC without an offset), ids and dates parsed.
    if value is None or isinstance(field, JSONField):
        return value
    if isinstance(field, DateTimeField):
        parsed = parse_datetime(value)
        return parsed if parsed is None or timezone.is_aware(parsed) else timezone.make_aware(parsed, dt_timezone.utc)
    return field.to_python(value)
