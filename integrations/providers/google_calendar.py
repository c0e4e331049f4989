"""Google Calendar: the owner's primary calendar, read live, and time held on it (Calendar API v3).

- meetings: events.list on the window (singleEvents, soonest first), leaving out what the owner declined and
  cancelled occurrences; guests are the attendees but the owner and rooms.
- hold: events.insert with no attendees and sendUpdates "none", marked as Roadstar's hold in its private
  extended properties (so the new-meeting watch doesn't tell of it); Undo deletes it, but only while it is as
  it was held (its etag), else `changed`.
- changes: events created since the cursor (a time), read with updatedMin; the cursor moves to the calendar's
  own `updated` time, so a slow clock here loses nothing.
- The search copy (search/google_copy.py): `copy_events` lists every event a page at a time, then, from the sync
  token the last page gave, what changed since (cancelled events included); a sync token Google no longer takes
  (410 Gone) raises CursorExpired.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils import timezone

from core.errors import ToolError
from core.owner_zone import owner_zone, zone_named
from core.timefmt import iso
from integrations.clients import google_execute, google_service
from integrations.providers.base import CalendarProvider, Changes, CursorExpired, Meeting, Written
from integrations.providers.registry import register_provider

CALENDAR = "primary"
HOLD_MARK = {"roadstar": "hold"}
PAGE = 250
MAX_PAGES = 8


@dataclass
class CopiedEvent:
    meeting: Meeting
    text: str  # where and what: its location and description
    organizer: str


@dataclass
class EventsPage:
    events: list[CopiedEvent]
    cancelled: list[str]  # the calendar's own ids of events deleted or cancelled
    next_page: str | None
    sync_token: str | None  # on the last page only


def _time(value: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))


class GoogleCalendarProvider(CalendarProvider):
    def _calendar(self):
        # self.options["http"] is a HttpMockSequence in tests; None in production.
        return google_service(self.connection, "calendar", "v3", http=self.options.get("http"))

    def _run(self, request):
        return google_execute(request, connection=self.connection, group="calendar",
                              asked_by=self.options.get("asked_by"))

    # --- reading events ---------------------------------------------------------------------------------

    def _zone(self, name: str | None) -> datetime.tzinfo:
        # The event's own zone, else the owner's; a name Python doesn't know is passed over.
        if name and (zone := zone_named(name)) is not datetime.UTC:
            return zone
        return owner_zone(self.connection.organization)

    def _when(self, value: dict, zone) -> datetime.datetime:
        if value.get("dateTime"):
            return _time(value["dateTime"])
        day = datetime.date.fromisoformat(value["date"])  # a whole-day event: midnight in the calendar's zone
        return datetime.datetime.combine(
            day, datetime.time(), tzinfo=self._zone(value["timeZone"]) if value.get("timeZone") else zone
        )

    def _declined(self, event: dict) -> bool:
        return any(a.get("self") and a.get("responseStatus") == "declined" for a in event.get("attendees", []))

    def _shown(self, event: dict) -> bool:
        return event.get("status") != "cancelled" and "start" in event and not self._declined(event)

    def meeting(self, event: dict, zone) -> Meeting:
        own = self.connection.account.lower()
        guests = [
            a["email"] for a in event.get("attendees", [])
            if a.get("email") and not a.get("self") and not a.get("resource") and a["email"].lower() != own
        ]
        return Meeting(
            id=self.global_id(event["id"]), title=event.get("summary") or "(no title)",
            start=self._when(event["start"], zone), end=self._when(event.get("end") or event["start"], zone),
            guests=guests, url=event.get("htmlLink") or "",
        )

    def meetings(self, *, after, before, query, limit):
        found, page = [], None
        for _ in range(MAX_PAGES):
            answer = self._run(self._calendar().events().list(
                calendarId=CALENDAR, timeMin=iso(after), timeMax=iso(before), q=query or None, singleEvents=True,
                orderBy="startTime", maxResults=min(PAGE, limit + 10), pageToken=page,
            ))
            zone = self._zone(answer.get("timeZone"))
            found += [self.meeting(e, zone) for e in answer.get("items", []) if self._shown(e)]
            page = answer.get("nextPageToken")
            if len(found) >= limit or not page:
                break
        return found[:limit]

    # --- holding time -----------------------------------------------------------------------------------

    def hold(self, *, title, start, end, note):
        body = {
            "summary": title,
            "start": {"dateTime": start.isoformat()},
            "end": {"dateTime": end.isoformat()},
            "transparency": "opaque",
            "extendedProperties": {"private": HOLD_MARK},
        }
        if note:
            body["description"] = note
        event = self._run(self._calendar().events().insert(calendarId=CALENDAR, body=body, sendUpdates="none"))
        return Written(self.meeting(event, self._zone(None)), {"event": event["id"], "etag": event.get("etag")})

    def undo(self, data):
        events = self._calendar().events()
        try:
            event = self._run(events.get(calendarId=CALENDAR, eventId=data["event"]))
        except ToolError as error:
            if error.kind == "not_found":
                return  # deleted since: what Undo would do is done
            raise
        if event.get("status") == "cancelled":
            return
        if data.get("etag") and event.get("etag") != data["etag"]:
            raise ToolError(
                "changed",
                f"The hold \"{event.get('summary', '')}\" was changed in Google Calendar since, so Undo would lose "
                "that change; it is still there.",
            )
        request = events.delete(calendarId=CALENDAR, eventId=data["event"], sendUpdates="none")
        if data.get("etag"):
            request.headers["If-Match"] = data["etag"]  # changed between the read and the delete: 412, `changed`
        try:
            self._run(request)
        except ToolError as error:
            if error.kind != "not_found":
                raise

    # --- new meetings -----------------------------------------------------------------------------------

    def changes(self, cursor):
        now = iso(timezone.now())
        if cursor is None:
            return Changes([], now)
        since, found, page, newest, last = _time(cursor), [], None, cursor, None
        for _ in range(MAX_PAGES):
            try:
                answer = self._run(self._calendar().events().list(
                    calendarId=CALENDAR, updatedMin=cursor, showDeleted=False, singleEvents=False, orderBy="updated",
                    maxResults=PAGE, pageToken=page,
                ))
            except ToolError as error:
                if error.kind == "not_found":  # Google forgets changes older than it keeps: start again from now
                    return Changes([], now)
                raise
            zone = self._zone(answer.get("timeZone"))
            for event in answer.get("items", []):
                last = event.get("updated") or last
                held = (event.get("extendedProperties") or {}).get("private", {}).get("roadstar") == "hold"
                created = event.get("created")
                if self._shown(event) and not held and created and _time(created) > since:
                    found.append(self.meeting(event, zone))
            if answer.get("updated") and _time(answer["updated"]) > _time(newest):
                newest = answer["updated"]
            page = answer.get("nextPageToken")
            if not page:
                break
        if page and last:
            newest = last  # more than the pages read this time: carry on after the last one read next time
        return Changes(found, newest)


    # --- the search copy ------------------------------------------------------------------------------------

    def copy_events(self, *, sync_token: str | None, page: str | None, size: int) -> EventsPage:
        """One page of every event (no sync token), or of what changed since `sync_token`. Recurring events come as
        one event each (their first time), not as every occurrence."""
        params = {"calendarId": CALENDAR, "maxResults": size, "pageToken": page or None, "singleEvents": False}
        if sync_token:
            params["syncToken"] = sync_token  # deleted events always come with it: showDeleted may not be false
        else:
            params["showDeleted"] = False
        try:
            answer = self._run(self._calendar().events().list(**params))
        except ToolError as error:
            if error.kind == "not_found" and sync_token:  # 410 Gone: the token has expired
                raise CursorExpired("Google Calendar no longer takes this sync token") from error
            raise
        zone = self._zone(answer.get("timeZone"))
        events, cancelled = [], []
        for event in answer.get("items", []):
            if event.get("status") == "cancelled" or "start" not in event:
                cancelled.append(event["id"])
                continue
            text = "\n".join(x for x in (event.get("location"), event.get("description")) if x)
            organizer = (event.get("organizer") or {}).get("email") or self.connection.account
            events.append(CopiedEvent(self.meeting(event, zone), text, organizer.lower()))
        return EventsPage(events, cancelled, answer.get("nextPageToken"), answer.get("nextSyncToken"))


register_provider("google", "calendar", GoogleCalendarProvider)
