"""Google Calendar's provider against recorded Calendar API answers (googleapiclient on a recording HttpMock)."""

import datetime
import json
from unittest import mock
from urllib.parse import parse_qs, urlparse

import pytest
from freezegun import freeze_time
from google_auth_httplib2 import AuthorizedHttp
from googleapiclient.http import HttpMockSequence

from core.errors import ToolError
from core.models import Card
from core.owner_zone import zone_named
from integrations.models import Connection
from integrations.oauth import credentials_for
from integrations.providers.google_calendar import GoogleCalendarProvider
from tests.integrations.conftest import GOOGLE_READ, G, an_hour_ago, save_google
from tests.integrations.fakes import GoogleTokenEndpoint

NY = zone_named("America/New_York")
WRITE = [*GOOGLE_READ, G + "calendar.events"]


def at(day, hour, minute=0):
    return datetime.datetime(2026, 11, day, hour, minute, tzinfo=NY)


class Http(HttpMockSequence):
    """HttpMockSequence that records each request: (method, path, query, headers, body)."""

    def __init__(self, *answers):
        super().__init__([({"status": str(status)}, json.dumps(body) if isinstance(body, dict) else body)
                          for status, body in answers])
        self.requests = []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        url = urlparse(uri)
        try:
            sent = json.loads(body) if body else None
        except (ValueError, TypeError):
            sent = body  # the token endpoint's form
        self.requests.append({"method": method, "path": url.path, "query": parse_qs(url.query),
                              "headers": headers or {}, "body": sent})
        return super().request(uri, method=method, body=body, headers=headers, **kwargs)


def error(status, reason, message="Error"):
    return status, {"error": {"code": status, "message": message, "errors": [{"reason": reason, "message": message}]}}


def event(id_, title, start, end, *, attendees=(), **extra):
    return {"id": id_, "status": "confirmed", "summary": title, "htmlLink": f"https://calendar.google.com/e?eid={id_}",
            "start": {"dateTime": start.isoformat()}, "end": {"dateTime": end.isoformat()},
            "attendees": list(attendees), **extra}


SAM = {"email": "sam@fernhill.test", "self": True, "responseStatus": "accepted"}
DANA = {"email": "dana@juniperdental.test", "responseStatus": "needsAction"}
ROOM = {"email": "c_188@resource.calendar.google.com", "resource": True}


def provider(connection, *answers):
    http = Http(*answers)
    return GoogleCalendarProvider(connection, http=http), http


@pytest.fixture
def writable(org, app_settings):
    return save_google(org, scopes=WRITE)


# --- meetings -------------------------------------------------------------------------------------------------


def test_meetings_asks_for_the_window_soonest_first_with_single_occurrences(google):
    calendar, http = provider(google, (200, {"items": []}))
    calendar.meetings(after=at(16, 0), before=at(21, 0), query="Juniper", limit=20)
    query = http.requests[0]["query"]
    assert (http.requests[0]["path"], query["timeMin"], query["timeMax"], query["q"], query["singleEvents"],
            query["orderBy"]) == (
        "/calendar/v3/calendars/primary/events", ["2026-11-16T05:00:00Z"], ["2026-11-21T05:00:00Z"], ["Juniper"],
        ["true"], ["startTime"],
    )


def test_a_meeting_has_its_full_id_title_times_link_and_guests(google):
    calendar, _ = provider(google, (200, {"items": [event("ev1", "Kickoff", at(17, 10), at(17, 11),
                                                          attendees=[SAM, DANA, ROOM])]}))
    meeting = calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)[0]
    assert meeting.as_result() == {
        "id": f"{google.account_key}:ev1", "title": "Kickoff", "start": "2026-11-17T15:00:00Z",
        "end": "2026-11-17T16:00:00Z", "guests": ["dana@juniperdental.test"],
        "url": "https://calendar.google.com/e?eid=ev1",
    }


def test_meetings_the_owner_declined_and_cancelled_ones_are_left_out(google):
    declined = {**SAM, "responseStatus": "declined"}
    items = [event("a", "Declined", at(16, 9), at(16, 10), attendees=[declined, DANA]),
             {**event("b", "Gone", at(16, 11), at(16, 12)), "status": "cancelled"},
             event("c", "Kept", at(16, 13), at(16, 14))]
    calendar, _ = provider(google, (200, {"items": items}))
    assert [m.title for m in calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)] == ["Kept"]


def test_a_whole_day_event_starts_at_midnight_in_the_calendars_zone(google):
    day = {"id": "d", "summary": "Thanksgiving", "start": {"date": "2026-11-26"}, "end": {"date": "2026-11-27"}}
    calendar, _ = provider(google, (200, {"timeZone": "America/New_York", "items": [day]}))
    meeting = calendar.meetings(after=at(16, 0), before=at(30, 0), query=None, limit=20)[0]
    assert (meeting.start, meeting.end) == (at(26, 0), at(27, 0))


def test_meetings_read_the_next_page_until_the_limit(google):
    calendar, http = provider(
        google,
        (200, {"items": [event("a", "A", at(16, 9), at(16, 10))], "nextPageToken": "p2"}),
        (200, {"items": [event("b", "B", at(17, 9), at(17, 10)), event("c", "C", at(18, 9), at(18, 10))]}),
    )
    found = calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=2)
    assert ([m.title for m in found], http.requests[1]["query"]["pageToken"]) == (["A", "B"], ["p2"])


# --- hold and its Undo ----------------------------------------------------------------------------------------

HELD = {**event("h1", "Juniper kickoff (held)", at(17, 10), at(17, 11)), "etag": '"3181161784712000"'}


def test_a_hold_invites_nobody_and_sends_no_updates(writable):
    calendar, http = provider(writable, (200, HELD))
    calendar.hold(title="Juniper kickoff (held)", start=at(17, 10), end=at(17, 11), note="Backup Thursday 9")
    sent = http.requests[0]
    assert (sent["method"], sent["query"]["sendUpdates"], "attendees" in sent["body"]) == ("POST", ["none"], False)


def test_a_hold_is_the_title_times_and_note_marked_as_roadstars(writable):
    calendar, http = provider(writable, (200, HELD))
    calendar.hold(title="Juniper kickoff (held)", start=at(17, 10), end=at(17, 11), note="Backup Thursday 9")
    assert http.requests[0]["body"] == {
        "summary": "Juniper kickoff (held)", "description": "Backup Thursday 9",
        "start": {"dateTime": "2026-11-17T10:00:00-05:00"}, "end": {"dateTime": "2026-11-17T11:00:00-05:00"},
        "transparency": "opaque", "extendedProperties": {"private": {"roadstar": "hold"}},
    }


def test_a_hold_returns_the_meeting_and_what_undo_needs(writable):
    calendar, _ = provider(writable, (200, HELD))
    written = calendar.hold(title="Juniper kickoff (held)", start=at(17, 10), end=at(17, 11), note=None)
    assert (written.value.id, written.value.url, written.undo) == (
        f"{writable.account_key}:h1", "https://calendar.google.com/e?eid=h1",
        {"event": "h1", "etag": '"3181161784712000"'},
    )


def test_a_hold_on_a_read_only_calendar_is_reauth_with_a_write_card(google):
    calendar, _ = provider(google, error(403, "insufficientPermissions", "Insufficient Permission"))
    with pytest.raises(ToolError) as caught:
        calendar.hold(title="Held", start=at(17, 10), end=at(17, 11), note=None)
    card = Card.objects.get(subject=f"reconnect:{google.account_key}")
    assert (caught.value.kind, caught.value.card, card.data["write_groups"]) == (
        "reauth", "Connect sam@fernhill.test again", ["calendar"]
    )


def test_undo_deletes_the_hold_if_it_is_as_it_was_held(writable):
    calendar, http = provider(writable, (200, HELD), (204, ""))
    calendar.undo({"event": "h1", "etag": HELD["etag"]})
    delete = http.requests[1]
    assert (delete["method"], delete["path"], delete["query"]["sendUpdates"], delete["headers"]["If-Match"]) == (
        "DELETE", "/calendar/v3/calendars/primary/events/h1", ["none"], HELD["etag"]
    )


def test_undo_of_a_hold_changed_since_is_changed_and_deletes_nothing(writable):
    calendar, http = provider(writable, (200, {**HELD, "etag": '"later"'}))
    with pytest.raises(ToolError) as caught:
        calendar.undo({"event": "h1", "etag": HELD["etag"]})
    assert (caught.value.kind, [r["method"] for r in http.requests]) == ("changed", ["GET"])


def test_undo_of_a_hold_changed_between_read_and_delete_is_changed(writable):
    calendar, _ = provider(writable, (200, HELD), error(412, "conditionNotMet", "Precondition Failed"))
    with pytest.raises(ToolError) as caught:
        calendar.undo({"event": "h1", "etag": HELD["etag"]})
    assert caught.value.kind == "changed"


@pytest.mark.parametrize("answer", [error(404, "notFound", "Not Found"), (200, {**HELD, "status": "cancelled"})])
def test_undo_of_a_hold_deleted_since_does_nothing_more(writable, answer):
    calendar, http = provider(writable, answer)
    calendar.undo({"event": "h1", "etag": HELD["etag"]})
    assert [r["method"] for r in http.requests] == ["GET"]


# --- new meetings ---------------------------------------------------------------------------------------------

CURSOR = "2026-11-10T14:00:00Z"


def test_the_first_look_asks_nothing_and_starts_from_now(google):
    calendar, http = provider(google)
    with freeze_time("2026-11-10T14:00:00Z"):
        changes = calendar.changes(None)
    assert (changes.items, http.requests, changes.cursor) == ([], [], CURSOR)


def test_changes_are_the_events_created_since_the_cursor(google):
    items = [
        {**event("old", "Edited", at(18, 9), at(18, 10)), "created": "2026-11-01T10:00:00Z"},
        {**event("new", "Booked", at(19, 9), at(19, 10), attendees=[SAM, DANA]), "created": "2026-11-10T14:05:00Z"},
    ]
    calendar, http = provider(google, (200, {"updated": "2026-11-10T14:06:00.000Z", "items": items}))
    changes = calendar.changes(CURSOR)
    assert ([(m.title, m.guests) for m in changes.items], http.requests[0]["query"]["updatedMin"]) == (
        [("Booked", ["dana@juniperdental.test"])], [CURSOR]
    )


def test_changes_move_the_cursor_to_the_calendars_own_time(google):
    calendar, _ = provider(google, (200, {"updated": "2026-11-10T14:06:00.000Z", "items": []}))
    assert calendar.changes(CURSOR).cursor == "2026-11-10T14:06:00.000Z"


def test_roadstars_own_holds_are_not_new_meetings(google):
    held = {**HELD, "created": "2026-11-10T14:05:00Z", "extendedProperties": {"private": {"roadstar": "hold"}}}
    calendar, _ = provider(google, (200, {"updated": "2026-11-10T14:06:00Z", "items": [held]}))
    assert calendar.changes(CURSOR).items == []


def test_changes_google_no_longer_keeps_start_again_from_now(google):
    calendar, _ = provider(google, error(410, "updatedMinTooLongAgo", "The requested minimum modification time "
                                                                     "lies too far in the past."))
    changes = calendar.changes(CURSOR)
    assert (changes.items, changes.cursor > CURSOR) == ([], True)


# --- failures -------------------------------------------------------------------------------------------------


def test_a_refused_sign_in_is_reauth_and_asks_to_connect_again(google):
    calendar, _ = provider(google, error(401, "authError", "Invalid Credentials"))
    with pytest.raises(ToolError) as caught:
        calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)
    assert (caught.value.kind, Connection.objects.get(pk=google.pk).status) == ("reauth", "needs_reconnect")


def test_google_limiting_requests_is_rate_limited(google):
    calendar, _ = provider(google, error(403, "rateLimitExceeded", "Rate Limit Exceeded"))
    with pytest.raises(ToolError) as caught:
        calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)
    assert caught.value.kind == "rate_limited"


def test_a_calendar_google_does_not_have_is_not_found(google):
    calendar, _ = provider(google, error(404, "notFound", "Not Found"))
    with pytest.raises(ToolError) as caught:
        calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)
    assert caught.value.kind == "not_found"


# --- token refresh --------------------------------------------------------------------------------------------

NEW_TOKEN = {"access_token": "g-access-2", "expires_in": 3599, "token_type": "Bearer"}


def test_an_expired_token_is_refreshed_before_reading(org, app_settings):
    connection = save_google(org, expiry=an_hour_ago())
    http = Http((200, {"items": []}))
    with mock.patch("integrations.oauth.google_transport", return_value=GoogleTokenEndpoint(200, NEW_TOKEN)):
        GoogleCalendarProvider(connection, http=AuthorizedHttp(credentials_for(connection), http=http)).meetings(
            after=at(16, 0), before=at(21, 0), query=None, limit=20
        )
    assert (http.requests[0]["headers"]["authorization"],
            Connection.objects.get(pk=connection.pk).read_tokens()["access_token"]) == ("Bearer g-access-2",
                                                                                        "g-access-2")


def test_a_token_google_stopped_accepting_is_refreshed_once_and_the_read_tried_again(google):
    http = Http(error(401, "authError", "Invalid Credentials"), (200, NEW_TOKEN), (200, {"items": []}))
    calendar = GoogleCalendarProvider(google, http=AuthorizedHttp(credentials_for(google), http=http))
    calendar.meetings(after=at(16, 0), before=at(21, 0), query=None, limit=20)
    assert ([r["headers"].get("authorization") for r in http.requests if "calendar" in r["path"]],
            Connection.objects.get(pk=google.pk).read_tokens()["access_token"]) == (
        ["Bearer g-access-1", "Bearer g-access-2"], "g-access-2"
    )
