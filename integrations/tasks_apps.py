"""Worker tasks that watch the owner's calendar and books for routines' events. Each is safe to run twice and in
several workers at once.

- `meetings_watch` (every few minutes): each calendar's new meetings since its cursor, each told once as
  `kind:meeting.added` with `with:<guest>` keys and `{withGuests, …}` in the payload. Holds Roadstar made are not
  told. The first look at a calendar only notes where it starts from.
- `invoices_overdue_watch` (hourly): QuickBooks has no overdue webhook, so each books account is asked which
  invoices are overdue by the owner's today. An invoice is told once per spell of being overdue as
  `kind:invoice.overdue` with `invoice:qb:<id>` and `customer:qb:<id>` keys; its spell ends when a later look
  finds it paid (or due later), and a new spell is told again. The first look at an account notes what is
  overdue already without telling it: those fell overdue before Roadstar was watching.

Both commit a look's cursor or spells together with its events (emitted after commit), and the second of two
workers racing on the same account writes nothing.
"""

from __future__ import annotations

import datetime
import logging

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import ToolError
from core.owner_zone import owner_today
from core.timefmt import iso
from integrations.durable import kept
from integrations.invoices import amount, invoice_shape
from integrations.local.models_books import BooksWatch, OverdueSpell
from integrations.local.models_calendar import CalendarWatch
from integrations.models import Connection
from integrations.providers.base import Invoice, Meeting
from integrations.providers.registry import provider_for
from integrations.signals import event_emit

logger = logging.getLogger(__name__)

# (task, schedule name, every so many minutes): `manage.py schedule_ticks` makes a django-q schedule of each.
SCHEDULES = (
    ("integrations.tasks_apps.meetings_watch", "new meetings", 5),
    ("integrations.tasks_apps.invoices_overdue_watch", "overdue invoices", 60),
)
# One look reads up to this many overdue invoices of an account (QuickBooks answers a query with at most 1000).
OVERDUE_SCAN = 999


def _connected(group: str) -> list[Connection]:
    rows = Connection.objects.filter(status=Connection.Status.CONNECTED).select_related("organization")
    return [c for c in rows if c.serves(group)]


def _emit(**kwargs):
    return event_emit(**kwargs)


# --- new meetings -----------------------------------------------------------------------------------------------


def meetings_watch() -> int:
    """Every connected calendar's new meetings, as events. Returns how many were told."""
    return sum(len(meetings_watch_one(c)) for c in _connected("calendar"))


def meeting_event(org, meeting: Meeting):
    guests = list(meeting.guests)
    return _emit(
        org=org, kind="meeting.added", keys=[f"with:{g.lower()}" for g in guests],
        payload={**meeting.as_result(), "withGuests": bool(guests)},
        text=f"{meeting.title}, {iso(meeting.start)}" + (f", with {', '.join(guests)}" if guests else ""),
    )


def meetings_watch_one(connection: Connection, **options) -> list:
    """One calendar's new meetings since the last look. `options` go to its provider (tests: a fake transport)."""
    watch, _ = CalendarWatch.objects.get_or_create(connection=connection)
    try:
        with kept():  # a card or a refreshed token stands whatever happens next
            changes = provider_for(connection, "calendar", **options).changes(watch.cursor or None)
    except ToolError as error:
        logger.warning("meetings watch of %s: %s %s", connection.account_key, error.kind, error.message)
        return []
    with transaction.atomic():
        won = CalendarWatch.objects.filter(pk=watch.pk, cursor=watch.cursor).update(
            cursor=changes.cursor, checked_at=timezone.now()
        )
        if not won:
            return []  # another worker looked at the same time and told these
        return [meeting_event(connection.organization, m) for m in changes.items]


# --- overdue invoices -------------------------------------------------------------------------------------------


def invoices_overdue_watch() -> int:
    """Every connected books account's invoices that fell overdue, as events. Returns how many were told."""
    return sum(len(invoices_overdue_watch_one(c)) for c in _connected("books"))


def invoice_event(org, invoice: Invoice, *, today: datetime.date):
    shape = invoice_shape(invoice, today=today)
    keys = [f"invoice:qb:{invoice.id}"] + ([f"customer:qb:{invoice.customer_id}"] if invoice.customer_id else [])
    owed = f"{amount(invoice.balance):,}" + (f" {invoice.currency}" if invoice.currency else "")
    return _emit(
        org=org, kind="invoice.overdue", keys=keys, payload={**shape, "customerId": invoice.customer_id},
        text=f"Invoice {invoice.number or invoice.id} for {invoice.customer or 'a customer'}, {owed} owed, is "
             f"{shape.get('daysLate', 0)} days overdue",
    )


def invoices_overdue_watch_one(connection: Connection, *, today: datetime.date | None = None,
                               **options) -> list:
    """One books account's look: tell each invoice that fell overdue since the last look, once."""
    org = connection.organization
    today = today or owner_today(org)
    try:
        with kept():
            overdue, more = provider_for(connection, "books", **options).invoices(
                status="overdue", customer=None, today=today, limit=OVERDUE_SCAN
            )
    except ToolError as error:
        logger.warning("overdue watch of %s: %s %s", connection.account_key, error.kind, error.message)
        return []
    try:
        with transaction.atomic():
            return _overdue_spells(connection, overdue, complete=not more, today=today)
    except IntegrityError:
        return []  # another worker opened the same spell at the same time, and told it


def _overdue_spells(connection: Connection, overdue: list[Invoice], *, complete: bool,
                    today: datetime.date) -> list:
    watch, first_look = BooksWatch.objects.select_for_update().get_or_create(connection=connection)
    spells = OverdueSpell.objects.select_for_update().filter(connection=connection, ended_at__isnull=True)
    open_ids = {s.invoice: s for s in spells}
    now = timezone.now()
    events = []
    for invoice in overdue:
        if invoice.id in open_ids:
            continue
        event = None if first_look else invoice_event(connection.organization, invoice, today=today)
        OverdueSpell.objects.create(connection=connection, invoice=invoice.id, customer=invoice.customer_id or "",
                                    due=invoice.due, event_id=event.id if event else None)
        if event is not None:
            events.append(event)
    if complete:  # only a full list shows which spells are over
        still = {i.id for i in overdue}
        ended = [s.pk for i, s in open_ids.items() if i not in still]
        OverdueSpell.objects.filter(pk__in=ended).update(ended_at=now)
    BooksWatch.objects.filter(pk=watch.pk).update(checked_at=now)
    return events
