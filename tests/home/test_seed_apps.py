"""The example workspace's apps: Fernhill Studio's calendar and books in the local providers, made once."""

import datetime
import io
import json

import pytest
from django.core.management import call_command
from freezegun import freeze_time

from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from core.models import Organization
from core.owner_zone import zone_named
from home.management.commands import seed_demo
from integrations.local.models_books import LocalCustomer, LocalInvoice, LocalInvoiceLine
from integrations.local.models_calendar import LocalEvent
from integrations.models import Connection
from tools.pipeline import use_tool

NY = zone_named("America/New_York")
# The story's today: Tuesday, November 10, 2026, 9 AM in New York.
STORY = "2026-11-10T14:00:00Z"
NEXT_WEEK = {"after": "2026-11-16T00:00:00-05:00", "before": "2026-11-21T00:00:00-05:00"}


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


@pytest.fixture
def fernhill(db):
    seed()
    return Organization.objects.get(owner__username="sam")


@pytest.fixture
def bookkeeper(fernhill):
    agent = Agent.objects.get(organization=fernhill, name="Bookkeeper")
    return ToolContext(org=fernhill, actor=Actor.for_agent(agent), conversation_id="overdue-invoices")


def counts() -> dict[str, int]:
    models = (Connection, LocalEvent, LocalInvoice, LocalInvoiceLine, LocalCustomer)
    return {m.__name__: m.objects.count() for m in models}


# --- the connection -------------------------------------------------------------------------------------------


def test_one_local_account_serves_mail_files_calendar_and_books(fernhill):
    connection = Connection.objects.get(organization=fernhill)
    assert (connection.app, connection.account, connection.groups, connection.status) == (
        "local", "sam@fernhill.test", ["mail", "files", "calendar", "books"], "connected"
    )


def test_the_account_key_is_the_one_the_specs_examples_use(fernhill):
    assert Connection.objects.get(organization=fernhill).account_key == "7c41e2d0"


def test_running_it_twice_makes_no_second_account_meeting_or_invoice(db):
    seed()
    before = counts()
    seed()
    assert counts() == before


def test_the_first_run_says_it_made_the_apps(db):
    out = seed()
    assert ("the local mail, files, calendar and books of sam@fernhill.test" in out, "10 meetings" in out,
            "4 invoices" in out) == (True, True, True)


def test_a_second_run_keeps_a_meeting_the_owner_moved(fernhill):
    event = LocalEvent.objects.get(title="Studio planning")
    event.start = datetime.datetime(2026, 11, 16, 13, tzinfo=NY)
    event.save()
    seed()
    assert LocalEvent.objects.get(pk=event.pk).start == datetime.datetime(2026, 11, 16, 13, tzinfo=NY)


def test_each_groups_seed_is_called_with_the_account(db, monkeypatch):
    called = []
    monkeypatch.setattr(seed_demo, "APP_SEEDS", [*seed_demo.APP_SEEDS,
                                                 lambda org, connection: called.append(connection.account) or []])
    seed()
    assert called == ["sam@fernhill.test"]


# --- a week of meetings ---------------------------------------------------------------------------------------


def test_next_week_has_ten_meetings(bookkeeper):
    assert len(use_tool(bookkeeper, "calendar.list", NEXT_WEEK)) == 10


def test_some_meetings_have_guests_from_contacts(bookkeeper):
    guests = {g for m in use_tool(bookkeeper, "calendar.list", NEXT_WEEK) for g in m["guests"]}
    assert guests == {"rosa@ortizbakery.test", "marco@ruizprint.test"}


def busy(meetings, day, start, end):
    begin = datetime.datetime(2026, 11, day, start, tzinfo=NY)
    finish = datetime.datetime(2026, 11, day, end, tzinfo=NY)
    for m in meetings:
        m_start = datetime.datetime.fromisoformat(m["start"])
        m_end = datetime.datetime.fromisoformat(m["end"])
        if m_start < finish and m_end > begin:
            return True
    return False


def test_the_kickoff_calls_free_mornings_are_tuesday_at_10_and_thursday_at_9(bookkeeper):
    meetings = use_tool(bookkeeper, "calendar.list", NEXT_WEEK)
    free = [(day, hour) for day in range(16, 21) for hour in (9, 10, 11) if not busy(meetings, day, hour, hour + 1)]
    assert free == [(17, 10), (19, 9)]


# --- the books ------------------------------------------------------------------------------------------------


@freeze_time(STORY)
def test_invoice_1042_is_the_overdue_invoices_use_cases_answer(bookkeeper):
    assert use_tool(bookkeeper, "books.invoices", {"status": "overdue"}) == {"invoices": [{
        "id": "1042", "number": "1042", "customer": "Ortiz Bakery", "email": "rosa@ortizbakery.test",
        "date": "2026-10-01", "due": "2026-10-31", "daysLate": 10, "total": 1250, "balance": 1250, "currency": "USD",
        "status": "overdue", "url": "https://app.qbo.intuit.com/app/invoice?txnId=1042",
    }], "more": False}


@freeze_time(STORY)
def test_the_other_invoices_are_paid_or_open(bookkeeper):
    found = use_tool(bookkeeper, "books.invoices", {})["invoices"]
    assert [(i["id"], i["customer"], i["status"]) for i in found] == [
        ("1043", "Harbor Florists", "open"), ("1042", "Ortiz Bakery", "overdue"),
        ("1040", "Ortiz Bakery", "paid"), ("1038", "Harbor Florists", "paid"),
    ]


@freeze_time(STORY)
def test_invoice_1042_is_the_menu_boards_emailed_to_rosa(bookkeeper):
    found = use_tool(bookkeeper, "books.invoice", {"id": "1042"})
    assert (sum(line["amount"] for line in found["lines"]), found["memo"], found["emailed"], found["tax"]) == (
        1250, "Bakery menu boards. Thank you for your business!", True, 0
    )


def test_ortiz_bakery_is_customer_58_as_the_events_examples_say(fernhill):
    assert LocalCustomer.objects.get(name="Ortiz Bakery").number == 58


# --- the timeline ---------------------------------------------------------------------------------------------


@freeze_time(STORY)
def test_rosas_timeline_shows_her_meeting(bookkeeper):
    from records.models import Contact

    rosa = Contact.objects.get(organization=bookkeeper.org, name="Rosa Ortiz")
    items = use_tool(bookkeeper, "contacts.timeline", {"contactId": str(rosa.id)})["items"]
    assert [(i["title"], i["at"]) for i in items if i["kind"] == "meeting"] == [
        ("Ortiz Bakery: spring menu boards", "2026-11-17T16:00:00Z")
    ]


# --- mail -----------------------------------------------------------------------------------------------------


def test_danas_enquiry_is_in_the_mailbox(fernhill, bookkeeper):
    hits = use_tool(bookkeeper, "mail.search", {"query": "from:dana@juniperdental.test"})["hits"]
    assert [h["title"] for h in hits] == ["Rebrand for our second clinic"]
    thread = use_tool(bookkeeper, "mail.read", {"id": hits[0]["id"]})
    assert hits[0]["id"].startswith("7c41e2d0:") and "second clinic in March" in json.dumps(thread)


def test_the_mail_is_seeded_once(fernhill):
    from integrations.local.models_mail import LocalMailMessage

    before = LocalMailMessage.objects.count()
    seed()
    assert LocalMailMessage.objects.count() == before == 3
