"""The local calendar on its own: meetings, holds and their Undo, new meetings, and importing .ics files."""

import datetime
import io

import pytest
from django.core.management import CommandError, call_command

from core.errors import ToolError
from core.owner_zone import zone_named
from integrations.local.models_calendar import LocalEvent
from integrations.models import Connection
from integrations.providers.local_calendar import LocalCalendarProvider, event_put, ics_import
from integrations.services import connection_create_local

NY = zone_named("America/New_York")


def at(day, hour, minute=0):
    return datetime.datetime(2026, 11, day, hour, minute, tzinfo=NY)


@pytest.fixture
def calendar(local):
    return LocalCalendarProvider(local)


def put(connection, uid, day, hour, title="Meeting", hours=1, guests=(), **extra):
    start = at(day, hour)
    event_put(connection, uid=uid, title=title, start=start, end=start + datetime.timedelta(hours=hours),
              guests=list(guests), **extra)
    return LocalEvent.objects.get(connection=connection, uid=uid)


# --- meetings -------------------------------------------------------------------------------------------------


def test_meetings_are_those_overlapping_the_window_soonest_first(local, calendar):
    put(local, "b", 17, 11, "Tuesday")
    put(local, "a", 16, 9, "Monday")
    put(local, "before", 13, 9, "Last week")
    put(local, "edge", 15, 23, "Overlaps the start", hours=2)
    found = calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)
    assert [m.title for m in found] == ["Overlaps the start", "Monday", "Tuesday"]


def test_meetings_stop_at_the_limit(local, calendar):
    for day in (16, 17, 18):
        put(local, f"m{day}", day, 9)
    assert len(calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=2)) == 2


def test_a_meeting_has_its_full_id_guests_and_times(local, calendar):
    event = put(local, "k", 17, 10, "Kickoff", guests=["dana@juniperdental.test"])
    meeting = calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)[0]
    assert (meeting.id, meeting.guests, meeting.start, meeting.end) == (
        f"{local.account_key}:{event.pk}", ["dana@juniperdental.test"], at(17, 10), at(17, 11)
    )


def test_a_meeting_without_a_link_of_its_own_has_none_never_an_admin_page(local, calendar):
    put(local, "k", 17, 10)
    assert calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=1)[0].url == ""


def test_query_matches_every_word_in_title_or_guests(local, calendar):
    put(local, "a", 16, 9, "Juniper kickoff", guests=["dana@juniperdental.test"])
    put(local, "b", 16, 11, "Juniper review")
    found = calendar.meetings(after=at(16, 0), before=at(21, 0), query="juniper DANA@", limit=20)
    assert [m.title for m in found] == ["Juniper kickoff"]


def test_cancelled_meetings_are_left_out(local, calendar):
    put(local, "a", 16, 9, cancelled=True)
    assert calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20) == []


def test_another_accounts_meetings_are_not_read(org, local, calendar):
    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["calendar"])
    put(other, "a", 16, 9)
    assert calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20) == []


# --- hold and its Undo ----------------------------------------------------------------------------------------


def test_a_hold_is_time_on_the_calendar_with_no_guests(local, calendar):
    written = calendar.hold(title="Juniper kickoff (held)", start=at(17, 10), end=at(17, 11), note="Backup Thu 9")
    event = LocalEvent.objects.get(connection=local)
    assert (event.title, event.description, event.guests, event.held, written.value.id) == (
        "Juniper kickoff (held)", "Backup Thu 9", [], True, f"{local.account_key}:{event.pk}"
    )


def test_undo_deletes_the_hold(local, calendar):
    written = calendar.hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    calendar.undo(written.undo)
    assert not LocalEvent.objects.filter(connection=local).exists()


def test_undo_of_a_hold_changed_since_is_changed(local, calendar):
    written = calendar.hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    event = LocalEvent.objects.get(connection=local)
    event.start, event.end = at(19, 9), at(19, 10)
    event.save()
    with pytest.raises(ToolError) as caught:
        calendar.undo(written.undo)
    assert (caught.value.kind, LocalEvent.objects.filter(pk=event.pk).exists()) == ("changed", True)


def test_undo_of_a_hold_deleted_since_does_nothing(local, calendar):
    written = calendar.hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    LocalEvent.objects.filter(connection=local).delete()
    calendar.undo(written.undo)
    assert not LocalEvent.objects.exists()


# --- new meetings ---------------------------------------------------------------------------------------------


def test_the_first_look_tells_nothing_and_starts_after_what_is_there(local, calendar):
    put(local, "a", 16, 9)
    changes = calendar.changes(None)
    assert (changes.items, calendar.changes(changes.cursor).items) == ([], [])


def test_meetings_added_since_the_cursor_are_told_once(local, calendar):
    cursor = calendar.changes(None).cursor
    put(local, "a", 16, 9, "New one")
    first = calendar.changes(cursor)
    assert ([m.title for m in first.items], calendar.changes(first.cursor).items) == (["New one"], [])


def test_holds_and_cancelled_meetings_are_not_told_but_passed(local, calendar):
    cursor = calendar.changes(None).cursor
    calendar.hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    put(local, "c", 16, 9, cancelled=True)
    changes = calendar.changes(cursor)
    assert (changes.items, changes.cursor) == ([], str(LocalEvent.objects.order_by("-pk").first().pk))


def test_a_meeting_updated_by_an_import_is_not_new(local, calendar):
    put(local, "a", 16, 9, "Before")
    cursor = calendar.changes(None).cursor
    put(local, "a", 16, 10, "After")
    assert calendar.changes(cursor).items == []


# --- importing .ics -------------------------------------------------------------------------------------------

ICS = b"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Fernhill//Test//EN
BEGIN:VEVENT
UID:kickoff@fernhill.test
DTSTART;TZID=America/New_York:20261117T100000
DTEND;TZID=America/New_York:20261117T110000
SUMMARY:Juniper Dental kickoff
DESCRIPTION:Agenda: logo\\, signage
LOCATION:Studio
ORGANIZER:mailto:sam@fernhill.test
ATTENDEE;CN=Dana Whitfield:mailto:Dana@JuniperDental.test
ATTENDEE;CN=Sam Rivera:mailto:sam@fernhill.test
URL:https://calendar.example/kickoff
END:VEVENT
BEGIN:VEVENT
UID:standup@fernhill.test
DTSTART;TZID=America/New_York:20261116T090000
DTEND;TZID=America/New_York:20261116T091500
RRULE:FREQ=DAILY;COUNT=3
SUMMARY:Standup
END:VEVENT
BEGIN:VEVENT
UID:holiday@fernhill.test
DTSTART;VALUE=DATE:20261126
SUMMARY:Thanksgiving
END:VEVENT
BEGIN:VEVENT
UID:gone@fernhill.test
DTSTART:20261118T150000Z
DTEND:20261118T160000Z
STATUS:CANCELLED
SUMMARY:Cancelled call
END:VEVENT
END:VCALENDAR
"""
NOW = datetime.datetime(2026, 11, 10, 12, tzinfo=datetime.UTC)


def load(connection, data=ICS, **kwargs):
    return ics_import(connection, data, time_zone="America/New_York", owner=["sam@fernhill.test"], now=NOW, **kwargs)


def test_an_imported_meeting_keeps_its_title_times_place_and_link(local):
    load(local)
    event = LocalEvent.objects.get(uid="kickoff@fernhill.test")
    assert (event.title, event.start, event.end, event.location, event.description, event.url) == (
        "Juniper Dental kickoff", at(17, 10), at(17, 11), "Studio", "Agenda: logo, signage",
        "https://calendar.example/kickoff",
    )


def test_an_imported_meetings_guests_leave_the_owner_out(local):
    load(local)
    assert LocalEvent.objects.get(uid="kickoff@fernhill.test").guests == ["dana@juniperdental.test"]


def test_a_repeating_event_is_one_meeting_per_occurrence(local):
    load(local)
    starts = LocalEvent.objects.filter(title="Standup").order_by("start").values_list("start", flat=True)
    assert list(starts) == [at(16, 9), at(17, 9), at(18, 9)]


def test_a_whole_day_event_runs_midnight_to_midnight_in_the_owners_zone(local):
    load(local)
    event = LocalEvent.objects.get(uid="holiday@fernhill.test")
    assert (event.start, event.end, event.all_day) == (at(26, 0), at(27, 0), True)


def test_a_cancelled_event_is_imported_as_cancelled(local):
    load(local)
    assert LocalEvent.objects.get(uid="gone@fernhill.test").cancelled is True


def test_importing_counts_what_it_added(local):
    assert load(local).added == 6


def test_importing_the_same_file_again_changes_nothing(local):
    load(local)
    again = load(local)
    assert (again.added, again.updated, again.unchanged, LocalEvent.objects.count()) == (0, 0, 6, 6)


def test_an_edited_file_updates_its_meeting_in_place(local):
    load(local)
    before = LocalEvent.objects.get(uid="kickoff@fernhill.test")
    outcome = load(local, ICS.replace(b"SUMMARY:Juniper Dental kickoff", b"SUMMARY:Juniper kickoff (moved)"))
    after = LocalEvent.objects.get(uid="kickoff@fernhill.test")
    assert (outcome.updated, after.pk, after.title) == (1, before.pk, "Juniper kickoff (moved)")


def test_a_time_without_a_zone_is_the_owners(local):
    data = ICS.replace(b"DTSTART;TZID=America/New_York:20261117T100000", b"DTSTART:20261117T100000")
    load(local, data)
    assert LocalEvent.objects.get(uid="kickoff@fernhill.test").start == at(17, 10)


def test_an_event_without_a_uid_is_known_again_by_its_title_and_start(local):
    data = ICS.replace(b"UID:kickoff@fernhill.test\n", b"")
    load(local, data)
    assert (load(local, data).added, LocalEvent.objects.filter(title="Juniper Dental kickoff").count()) == (0, 1)


def test_a_file_that_is_not_icalendar_is_refused(local):
    with pytest.raises(ValueError):
        load(local, b"this is not a calendar")


# --- manage.py import_ics -------------------------------------------------------------------------------------


@pytest.fixture
def ics_file(tmp_path):
    path = tmp_path / "sam.ics"
    path.write_bytes(ICS)
    return path


def test_import_ics_makes_a_local_calendar_when_there_is_none(org, ics_file):
    out = io.StringIO()
    call_command("import_ics", str(ics_file), stdout=out)
    connection = Connection.objects.get(organization=org)
    assert (connection.app, connection.groups, LocalEvent.objects.filter(connection=connection).exists()) == (
        "local", ["calendar"], True
    )


def test_import_ics_imports_into_the_local_calendar_there_is(org, local, ics_file):
    call_command("import_ics", str(ics_file), stdout=io.StringIO())
    assert (Connection.objects.filter(organization=org).count(), LocalEvent.objects.filter(connection=local).exists()) \
        == (1, True)


def test_import_ics_says_what_it_did(org, local, ics_file):
    call_command("import_ics", str(ics_file), stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_ics", str(ics_file), stdout=out)
    assert "0 meetings added, 0 updated" in out.getvalue()


def test_import_ics_needs_org_when_there_are_several_workspaces(org, other_org, ics_file):
    with pytest.raises(CommandError, match="--org"):
        call_command("import_ics", str(ics_file), stdout=io.StringIO())


def test_import_ics_into_a_named_workspace(org, other_org, ics_file):
    call_command("import_ics", str(ics_file), "--org", "Other Studio", stdout=io.StringIO())
    assert list(Connection.objects.values_list("organization", flat=True)) == [other_org.pk]


def test_import_ics_of_a_bad_file_makes_no_account(org, tmp_path):
    path = tmp_path / "bad.ics"
    path.write_text("nothing here")
    with pytest.raises(CommandError):
        call_command("import_ics", str(path), stdout=io.StringIO())
    assert not Connection.objects.exists()
