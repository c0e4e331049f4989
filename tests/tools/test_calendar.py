"""The calendar group through use_tool, as a thread runs it, on the local calendar (and Google where it differs)."""

import datetime

import pytest

from core.errors import ToolError
from core.models import Card, Change
from core.owner_zone import zone_named
from core.services import change_undo
from integrations.local.models_calendar import LocalEvent
from integrations.models import Connection
from integrations.providers.local_calendar import event_put
from integrations.services import connection_create_local
from tests.factories import ContactFactory
from tests.integrations.conftest import save_google
from tests.integrations.fakes import GOOGLE_SETTINGS
from tests.spec import spec_page, spec_tools
from tools import registry

NY = zone_named("America/New_York")
WEEK = {"after": "2026-11-16T00:00:00-05:00", "before": "2026-11-21T00:00:00-05:00"}
KICKOFF = {"title": "Juniper Dental kickoff (held)", "start": "2026-11-17T10:00:00-05:00",
           "end": "2026-11-17T11:00:00-05:00", "note": "Offered to Dana Whitfield. Thursday 9:00 is the backup."}


def at(day, hour, minute=0):
    return datetime.datetime(2026, 11, day, hour, minute, tzinfo=NY)


@pytest.fixture
def calendar(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["calendar"])


def meet(connection, uid, day, hour, title="Meeting", guests=(), hours=1):
    start = at(day, hour)
    event_put(connection, uid=uid, title=title, start=start, end=start + datetime.timedelta(hours=hours),
              guests=list(guests))
    return LocalEvent.objects.get(connection=connection, uid=uid)


# --- the declarations against the spec ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["calendar.list", "calendar.hold"])
def test_description_yes_and_listing_are_the_specs(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.description, tool.owners_yes, tool.describe()["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", ["calendar.list", "calendar.hold"])
def test_inputs_and_required_inputs_are_the_specs(name):
    schema = registry.TOOLS[name].input_schema()
    inputs = spec_tools()[name]["inputs"]
    assert (set(schema["properties"]), set(schema["required"])) == (
        {i["name"] for i in inputs}, {i["name"] for i in inputs if i["required"]}
    )


def test_the_group_how_to_and_line_are_the_specs():
    group = registry.GROUPS["calendar"]
    how_to = spec_page("tools/calendar.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    assert (f"> {group.how_to}" in how_to, group.summary) == (True, "the owner's calendar: meetings and time held")



def test_the_groups_line_in_browse_tools_is_the_catalogs():
    from tools.catalog import browse_description

    ours = [line for line in browse_description().splitlines() if line.startswith("- calendar:")]
    assert len(ours) == 1 and f"> {ours[0]}" in spec_page("tools/catalog.md").splitlines()

# --- list -----------------------------------------------------------------------------------------------------


def test_list_gives_the_weeks_meetings_soonest_first_with_guests(use, calendar):
    second = meet(calendar, "b", 19, 9, "Print run", guests=["marco@ruizprint.test"])
    first = meet(calendar, "a", 17, 11, "Spring menu", guests=["rosa@ortizbakery.test"])
    meet(calendar, "later", 23, 9, "Next week")
    assert use("calendar.list", **WEEK) == [
        {"id": f"{calendar.account_key}:{first.pk}", "title": "Spring menu", "start": "2026-11-17T16:00:00Z",
         "end": "2026-11-17T17:00:00Z", "guests": ["rosa@ortizbakery.test"],
         "url": ""},
        {"id": f"{calendar.account_key}:{second.pk}", "title": "Print run", "start": "2026-11-19T14:00:00Z",
         "end": "2026-11-19T15:00:00Z", "guests": ["marco@ruizprint.test"],
         "url": ""},
    ]


def test_list_gives_20_meetings_unless_told(use, calendar):
    for i in range(21):
        meet(calendar, f"m{i}", 16 + i % 5, 8 + i // 5)
    assert len(use("calendar.list", **WEEK)) == 20


def test_list_gives_up_to_limit_meetings(use, calendar):
    for day in (16, 17, 18):
        meet(calendar, f"m{day}", day, 9, f"Day {day}")
    assert [m["title"] for m in use("calendar.list", **WEEK, limit=2)] == ["Day 16", "Day 17"]


def test_list_query_narrows_to_matching_meetings(use, calendar):
    meet(calendar, "a", 17, 11, "Spring menu", guests=["rosa@ortizbakery.test"])
    meet(calendar, "b", 18, 11, "Workshop")
    assert [m["title"] for m in use("calendar.list", **WEEK, query="rosa@ortizbakery.test")] == ["Spring menu"]


def test_list_reads_times_without_an_offset_in_the_owners_zone(use, calendar):
    meet(calendar, "a", 16, 0, "Just after midnight in New York")
    found = use("calendar.list", after="2026-11-16", before="2026-11-16T01:00:00")
    assert [m["title"] for m in found] == ["Just after midnight in New York"]


def test_list_merges_every_calendar_account_soonest_first(use, org, calendar):
    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["calendar"])
    meet(calendar, "a", 18, 9, "Sam's")
    meet(other, "b", 17, 9, "Studio's")
    assert [m["title"] for m in use("calendar.list", **WEEK)] == ["Studio's", "Sam's"]


def test_list_with_before_not_after_after_is_bad_input(use, calendar):
    result = use("calendar.list", after=WEEK["before"], before=WEEK["after"])
    assert (result["error"], result["message"]) == ("bad_input", "before: must be later than after")


def test_list_with_a_time_it_cannot_read_names_the_input(use, calendar):
    result = use("calendar.list", after="next Monday", before=WEEK["before"])
    assert (result["error"], result["message"].startswith("after: 'next Monday' is not a time")) == ("bad_input", True)


def test_list_without_a_calendar_is_not_connected_with_a_card(use):
    result = use("calendar.list", **WEEK)
    assert (result["error"], result["card"], Card.objects.get().subject) == (
        "not_connected", "Connect Gmail, Drive and Calendar", "connect:calendar"
    )


def test_list_with_a_calendar_whose_sign_in_stopped_is_reauth_with_a_card(use, org, settings):
    for name, value in GOOGLE_SETTINGS.items():
        setattr(settings, name, value)
    google = save_google(org)
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    result = use("calendar.list", **WEEK)
    assert (result["error"], result["card"]) == ("reauth", "Connect sam@fernhill.test again")


def test_list_never_shows_another_workspaces_meetings(use, other_org, calendar):
    meet(connection_create_local(org=other_org, account="alex@far.test", groups=["calendar"]), "x", 17, 9)
    assert use("calendar.list", **WEEK) == []


# --- hold -----------------------------------------------------------------------------------------------------


def test_hold_returns_the_new_meetings_id_and_link(use, calendar):
    result = use("calendar.hold", **KICKOFF)
    event = LocalEvent.objects.get(held=True)
    assert result == {"id": f"{calendar.account_key}:{event.pk}",
                      "url": ""}


def test_hold_blocks_the_time_with_its_note_and_invites_nobody(use, calendar):
    use("calendar.hold", **KICKOFF)
    event = LocalEvent.objects.get(held=True)
    assert (event.title, event.start, event.end, event.description, event.guests) == (
        KICKOFF["title"], at(17, 10), at(17, 11), KICKOFF["note"], []
    )


def test_a_held_time_shows_in_list(use, calendar):
    use("calendar.hold", **KICKOFF)
    assert [(m["title"], m["guests"]) for m in use("calendar.list", **WEEK)] == [(KICKOFF["title"], [])]


def test_hold_is_listed_on_home_with_undo(use, calendar):
    use("calendar.hold", **KICKOFF)
    change = Change.objects.get()
    assert (change.sentence, change.listing, change.kind, change.can_undo) == (
        "held time on the calendar: “Juniper Dental kickoff (held)”, Tue Nov 17, 2026, 10:00 AM EST", "home_undo",
        "makes", True,
    )


def test_hold_needs_no_owners_yes():
    assert registry.TOOLS["calendar.hold"].owners_yes == "No"


def test_hold_ending_before_it_starts_is_bad_input(use, calendar):
    result = use("calendar.hold", **{**KICKOFF, "end": KICKOFF["start"]})
    assert (result, LocalEvent.objects.exists()) == ({"error": "bad_input", "message": "end: must be later than start"},
                                                     False)


def test_hold_with_a_blank_title_is_bad_input(use, calendar):
    assert use("calendar.hold", **{**KICKOFF, "title": "   "})["message"] == "title: must have words in it"


def test_hold_on_a_read_only_google_calendar_is_reauth_with_a_card(use, org, settings):
    for name, value in GOOGLE_SETTINGS.items():
        setattr(settings, name, value)
    google = save_google(org)
    result = use("calendar.hold", **KICKOFF)
    card = Card.objects.get(subject=f"reconnect:{google.account_key}")
    assert (result["error"], result["card"], card.data["write_groups"], Change.objects.exists()) == (
        "reauth", "Connect sam@fernhill.test again", ["calendar"], False
    )


def test_hold_without_a_calendar_is_not_connected(use):
    assert use("calendar.hold", **KICKOFF)["error"] == "not_connected"


def test_undo_of_a_hold_deletes_it(use, ctx, calendar):
    use("calendar.hold", **KICKOFF)
    change_undo(org=ctx.org, change_id=Change.objects.get().id, actor=ctx.actor)
    assert not LocalEvent.objects.exists()


def test_undo_of_a_hold_is_recorded(use, ctx, calendar):
    use("calendar.hold", **KICKOFF)
    change = Change.objects.get()
    undo = change_undo(org=ctx.org, change_id=change.id, actor=ctx.actor)
    change.refresh_from_db()
    assert (undo.undoes_id, change.undone_by_id, undo.sentence) == (
        change.id, undo.id, "undid: " + change.sentence
    )


def test_undo_of_a_hold_moved_since_is_changed_and_keeps_it(use, ctx, calendar):
    use("calendar.hold", **KICKOFF)
    event = LocalEvent.objects.get()
    event.start, event.end = at(19, 9), at(19, 10)
    event.save()
    with pytest.raises(ToolError) as caught:
        change_undo(org=ctx.org, change_id=Change.objects.get().id, actor=ctx.actor)
    assert (caught.value.kind, LocalEvent.objects.filter(pk=event.pk).exists()) == ("changed", True)


def test_undo_of_a_hold_in_another_workspace_is_not_found(use, ctx, other_org, calendar):
    use("calendar.hold", **KICKOFF)
    with pytest.raises(ToolError) as caught:
        change_undo(org=other_org, change_id=Change.objects.get().id, actor=ctx.actor)
    assert (caught.value.kind, LocalEvent.objects.exists()) == ("not_found", True)


# --- limits ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool, inputs, field", [
    ("calendar.list", {**WEEK, "after": "2" * 41}, "after"),
    ("calendar.list", {**WEEK, "before": "2" * 41}, "before"),
    ("calendar.list", {"before": WEEK["before"]}, "after"),
    ("calendar.list", {"after": WEEK["after"]}, "before"),
    ("calendar.list", {**WEEK, "query": "q" * 201}, "query"),
    ("calendar.list", {**WEEK, "limit": 0}, "limit"),
    ("calendar.list", {**WEEK, "limit": 51}, "limit"),
    ("calendar.list", {**WEEK, "limit": "5"}, "limit"),
    ("calendar.hold", {**KICKOFF, "title": ""}, "title"),
    ("calendar.hold", {**KICKOFF, "title": "t" * 201}, "title"),
    ("calendar.hold", {**KICKOFF, "start": "2" * 41}, "start"),
    ("calendar.hold", {**KICKOFF, "end": "2" * 41}, "end"),
    ("calendar.hold", {**KICKOFF, "note": "n" * 2001}, "note"),
    ("calendar.hold", {**KICKOFF, "guests": ["dana@juniperdental.test"]}, "guests"),
])
def test_limits_are_bad_input_naming_the_field(use, calendar, tool, inputs, field):
    result = use(tool, **inputs)
    assert (result["error"], result["message"].split(":")[0]) == ("bad_input", field)


@pytest.mark.parametrize("inputs", [{**WEEK, "query": "q" * 200, "limit": 50}, {**WEEK, "limit": 1}])
def test_list_takes_inputs_at_their_limits(use, calendar, inputs):
    assert use("calendar.list", **inputs) == []


def test_hold_takes_inputs_at_their_limits(use, calendar):
    assert "id" in use("calendar.hold", **{**KICKOFF, "title": "t" * 200, "note": "n" * 2000})


# --- contacts.timeline's meetings -----------------------------------------------------------------------------


@pytest.fixture
def rosa(org):
    return ContactFactory(organization=org, name="Rosa Ortiz", emails=["rosa@ortizbakery.test"])


def rosa_meeting(connection, uid, title, days, guests=("rosa@ortizbakery.test",)):
    start = datetime.datetime.now(tz=NY).replace(microsecond=0) + datetime.timedelta(days=days)
    return LocalEvent.objects.create(connection=connection, uid=uid, title=title, start=start,
                                     end=start + datetime.timedelta(hours=1), guests=list(guests))


def timeline_item(connection, event):
    return {"kind": "meeting", "id": f"{connection.account_key}:{event.pk}", "title": event.title,
            "at": event.start.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z"),
            "url": "", "attendees": list(event.guests)}


def test_timeline_lists_meetings_with_the_contact_newest_first(use, rosa, calendar):
    older = rosa_meeting(calendar, "o", "Menu boards brief", -30)
    newer = rosa_meeting(calendar, "n", "Spring menu", 7)
    rosa_meeting(calendar, "x", "Someone else", 1, guests=["marco@ruizprint.test"])
    items = use("contacts.timeline", contactId=str(rosa.id))["items"]
    assert [i for i in items if i["kind"] == "meeting"] == [timeline_item(calendar, newer),
                                                            timeline_item(calendar, older)]


def test_timeline_with_a_calendar_has_no_calendar_failure(use, rosa, calendar):
    failures = use("contacts.timeline", contactId=str(rosa.id))["failures"]
    assert [f for f in failures if f["source"] == "calendar"] == []


def test_timeline_names_a_calendar_whose_sign_in_stopped(use, org, rosa, settings):
    for name, value in GOOGLE_SETTINGS.items():
        setattr(settings, name, value)
    google = save_google(org)
    Connection.objects.filter(pk=google.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    failure = [f for f in use("contacts.timeline", contactId=str(rosa.id))["failures"] if f["source"] == "calendar"]
    assert [(f["kind"], f["connection"]) for f in failure] == [("reauth", google.account_key)]


def test_timeline_reads_no_meetings_of_another_workspace(use, other_org, rosa, calendar):
    rosa_meeting(connection_create_local(org=other_org, account="alex@far.test", groups=["calendar"]), "o", "Far", 1)
    assert [i for i in use("contacts.timeline", contactId=str(rosa.id))["items"] if i["kind"] == "meeting"] == []
