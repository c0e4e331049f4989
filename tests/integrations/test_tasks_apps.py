"""The calendar and books watches: new meetings and invoices that fall overdue, told to routines once."""

import datetime
import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from django_q.models import Schedule
from freezegun import freeze_time

from core.errors import ToolError
from core.owner_zone import zone_named
from integrations import tasks_apps
from integrations.local.models_books import BooksWatch, OverdueSpell
from integrations.local.models_calendar import CalendarWatch
from integrations.models import Connection
from integrations.providers.local_books import InvoiceIn, invoice_put
from integrations.providers.local_calendar import LocalCalendarProvider, event_put
from integrations.services import connection_create_local
from routines.models import Event
from tests.integrations.fakes import response
from tests.integrations.test_google_calendar import Http, event

NY = zone_named("America/New_York")
TODAY = datetime.date(2026, 11, 10)


def at(day, hour):
    return datetime.datetime(2026, 11, day, hour, tzinfo=NY)


def meet(connection, uid, title="Kickoff", guests=("dana@juniperdental.test",)):
    event_put(connection, uid=uid, title=title, start=at(17, 10), end=at(17, 11), guests=list(guests))


# --- new meetings ---------------------------------------------------------------------------------------------


@pytest.fixture
def watched(local):
    """A local calendar the watch has looked at once."""
    tasks_apps.meetings_watch_one(local)
    return local


def test_the_first_look_at_a_calendar_tells_nothing(local):
    meet(local, "there-before")
    assert (tasks_apps.meetings_watch_one(local), CalendarWatch.objects.get(connection=local).cursor != "") == (
        [], True
    )


def test_a_new_meeting_is_told_with_its_guests(watched):
    meet(watched, "new")
    told = tasks_apps.meetings_watch_one(watched)
    assert [(e.kind, e.keys, e.payload["withGuests"], e.payload["title"]) for e in told] == [(
        "meeting.added", ["kind:meeting.added", "with:dana@juniperdental.test"], True, "Kickoff"
    )]


def test_a_new_meeting_event_carries_the_meeting(watched):
    meet(watched, "new")
    payload = tasks_apps.meetings_watch_one(watched)[0].payload
    assert {k: payload[k] for k in ("start", "end", "guests")} == {
        "start": "2026-11-17T15:00:00Z", "end": "2026-11-17T16:00:00Z", "guests": ["dana@juniperdental.test"]
    }


def test_a_meeting_without_guests_is_told_without_guests(watched):
    meet(watched, "alone", title="Focus time", guests=())
    told = tasks_apps.meetings_watch_one(watched)
    assert [(e.keys, e.payload["withGuests"]) for e in told] == [(["kind:meeting.added"], False)]


def test_a_meeting_is_told_once(watched):
    meet(watched, "new")
    tasks_apps.meetings_watch_one(watched)
    assert tasks_apps.meetings_watch_one(watched) == []


def test_time_roadstar_held_is_not_told(watched):
    LocalCalendarProvider(watched).hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    assert tasks_apps.meetings_watch_one(watched) == []


def test_the_event_belongs_to_the_calendars_workspace(watched, org):
    meet(watched, "new")
    tasks_apps.meetings_watch_one(watched)
    assert list(Event.objects.values_list("organization", flat=True)) == [org.pk]


def test_a_calendar_that_fails_tells_nothing_and_keeps_its_cursor(watched, monkeypatch):
    cursor = CalendarWatch.objects.get(connection=watched).cursor
    meet(watched, "new")

    def fail(self, cursor):
        raise ToolError("unavailable", "down")

    monkeypatch.setattr(LocalCalendarProvider, "changes", fail)
    watch = CalendarWatch.objects.get
    assert (tasks_apps.meetings_watch_one(watched), watch(connection=watched).cursor) == ([], cursor)


def test_a_look_another_worker_finished_first_tells_nothing(watched, monkeypatch):
    meet(watched, "new")
    real = LocalCalendarProvider.changes

    def racing(self, cursor):
        changes = real(self, cursor)
        CalendarWatch.objects.filter(connection=self.connection).update(cursor=changes.cursor)  # the other worker
        return changes

    monkeypatch.setattr(LocalCalendarProvider, "changes", racing)
    assert (tasks_apps.meetings_watch_one(watched), Event.objects.count()) == ([], 0)


def test_meetings_watch_looks_at_every_connected_calendar(org, other_org, local):
    other = connection_create_local(org=other_org, account="alex@far.test", groups=["calendar"])
    stopped = connection_create_local(org=org, account="old@fernhill.test", groups=["calendar"])
    Connection.objects.filter(pk=stopped.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    tasks_apps.meetings_watch()
    assert set(CalendarWatch.objects.values_list("connection", flat=True)) == {local.pk, other.pk}


def test_meetings_watch_counts_what_it_told(watched, org):
    meet(watched, "a")
    meet(watched, "b")
    assert tasks_apps.meetings_watch() == 2


def test_a_new_meeting_on_google_calendar_is_told(google):
    CalendarWatch.objects.create(connection=google, cursor="2026-11-10T14:00:00Z")
    booked = {**event("ev9", "Call with Dana", at(19, 9), at(19, 10),
                      attendees=[{"email": "sam@fernhill.test", "self": True}, {"email": "dana@juniperdental.test"}]),
              "created": "2026-11-10T14:05:00Z"}
    http = Http((200, {"updated": "2026-11-10T14:06:00Z", "items": [booked]}))
    told = tasks_apps.meetings_watch_one(google, http=http)
    assert ([(e.payload["id"], e.keys) for e in told], CalendarWatch.objects.get(connection=google).cursor) == (
        [(f"{google.account_key}:ev9", ["kind:meeting.added", "with:dana@juniperdental.test"])],
        "2026-11-10T14:06:00Z",
    )


# --- overdue invoices -----------------------------------------------------------------------------------------


def invoice(connection, number, *, due="2026-10-31", balance="1250", customer="Ortiz Bakery", customer_number=58):
    invoice_put(connection, InvoiceIn(
        number=number, customer=customer, customer_number=customer_number, email="rosa@ortizbakery.test",
        date=datetime.date(2026, 10, 1), due=datetime.date.fromisoformat(due), total=Decimal("1250"),
        balance=Decimal(balance), currency="USD",
    ))


def look(connection, day=TODAY, **options):
    return tasks_apps.invoices_overdue_watch_one(connection, today=day, **options)


@pytest.fixture
def books(local):
    look(local)  # the first look, with nothing overdue
    return local


def test_the_first_look_notes_what_is_overdue_without_telling_it(local):
    invoice(local, 1042)
    assert (look(local), list(OverdueSpell.objects.values_list("invoice", flat=True)),
            BooksWatch.objects.filter(connection=local).exists()) == ([], ["1042"], True)


def test_an_invoice_that_falls_overdue_is_told_with_its_keys(books):
    invoice(books, 1042)
    told = look(books)
    assert [(e.kind, e.keys) for e in told] == [
        ("invoice.overdue", ["kind:invoice.overdue", "invoice:qb:1042", "customer:qb:58"])
    ]


def test_the_overdue_event_carries_the_invoice(books):
    invoice(books, 1042)
    payload = look(books)[0].payload
    assert {k: payload[k] for k in ("id", "customer", "email", "due", "daysLate", "balance", "currency", "status",
                                    "customerId")} == {
        "id": "1042", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test", "due": "2026-10-31",
        "daysLate": 10, "balance": 1250, "currency": "USD", "status": "overdue", "customerId": "58",
    }


def test_the_overdue_event_says_it_in_words(books):
    invoice(books, 1042)
    assert look(books)[0].text == "Invoice 1042 for Ortiz Bakery, 1,250 USD owed, is 10 days overdue"


def test_an_invoice_not_yet_due_is_not_told(books):
    invoice(books, 1042, due="2026-11-10")
    assert look(books) == []


def test_an_overdue_invoice_is_told_once_however_many_looks(books):
    invoice(books, 1042)
    look(books)
    assert (look(books, TODAY + datetime.timedelta(days=1)), Event.objects.count()) == ([], 1)


def test_a_paid_invoice_ends_its_spell(books):
    invoice(books, 1042)
    look(books)
    invoice(books, 1042, balance="0")
    look(books)
    assert OverdueSpell.objects.get().ended_at is not None


def test_an_invoice_overdue_again_after_its_spell_ended_is_told_again(books):
    invoice(books, 1042)
    look(books)
    invoice(books, 1042, due="2026-11-20")  # given more time
    look(books)
    told = look(books, datetime.date(2026, 11, 25))
    assert ([e.payload["daysLate"] for e in told], OverdueSpell.objects.count()) == ([5], 2)


def test_spells_are_not_ended_by_a_look_that_saw_only_part_of_the_list(books, monkeypatch):
    for number in (1042, 1043, 1044):
        invoice(books, number)
    look(books)
    invoice(books, 1042, balance="0")
    monkeypatch.setattr(tasks_apps, "OVERDUE_SCAN", 1)  # the list is cut short: "more" is true
    look(books)
    assert OverdueSpell.objects.get(invoice="1042").ended_at is None


def test_books_that_fail_tell_nothing(books, monkeypatch):
    invoice(books, 1042)
    from integrations.providers.local_books import LocalBooksProvider

    def fail(self, **kwargs):
        raise ToolError("rate_limited", "slow down")

    monkeypatch.setattr(LocalBooksProvider, "invoices", fail)
    assert (look(books), OverdueSpell.objects.count()) == ([], 0)


def test_the_overdue_watch_counts_from_the_owners_today(org, books):
    invoice(books, 1042, due="2026-11-09")
    org.time_zone = "Pacific/Kiritimati"  # UTC+14: it is tomorrow there already
    org.save()
    books.refresh_from_db()
    evening = datetime.datetime(2026, 11, 9, 12, tzinfo=datetime.UTC)
    with freeze_time(evening):
        told = tasks_apps.invoices_overdue_watch_one(books)
    assert [e.payload["daysLate"] for e in told] == [1]


def test_an_invoice_overdue_in_quickbooks_is_told(quickbooks):
    class Session:
        def request(self, method, url, **kwargs):
            rows = [{"Id": "1042", "DocNumber": "1042", "TxnDate": "2026-10-01", "DueDate": "2026-10-31",
                     "TotalAmt": 1250, "Balance": 1250, "CurrencyRef": {"value": "USD"},
                     "CustomerRef": {"value": "58", "name": "Ortiz Bakery"},
                     "BillEmail": {"Address": "rosa@ortizbakery.test"}}]
            return response(200, {"QueryResponse": {"Invoice": rows}})

    BooksWatch.objects.create(connection=quickbooks)
    told = look(quickbooks, session=Session())
    assert [e.keys for e in told] == [["kind:invoice.overdue", "invoice:qb:1042", "customer:qb:58"]]


def test_invoices_overdue_watch_looks_at_every_connected_books(org, other_org, books):
    invoice(books, 1042)
    elsewhere = connection_create_local(org=other_org, account="alex@far.test", groups=["books"])
    tasks_apps.invoices_overdue_watch()
    assert set(BooksWatch.objects.values_list("connection", flat=True)) == {books.pk, elsewhere.pk}


# --- the worker's schedules -----------------------------------------------------------------------------------


def test_schedule_ticks_makes_the_watches_schedules(db):
    call_command("schedule_ticks", stdout=io.StringIO())
    schedules = dict(Schedule.objects.values_list("func", "minutes"))
    assert (schedules["integrations.tasks_apps.meetings_watch"],
            schedules["integrations.tasks_apps.invoices_overdue_watch"]) == (5, 60)

