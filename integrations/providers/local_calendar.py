"""The local calendar: the owner's meetings kept in Roadstar's database (LocalEvent), imported from .ics files.

The embedded default, so the example workspace and most tests run with no account and no network. It answers
exactly as Google Calendar's provider does: meetings overlapping the window, soonest first; a hold that invites
nobody and that Undo deletes; new meetings (imported since the cursor) for the `kind:meeting.added` event.
"""

from __future__ import annotations

import datetime
import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.errors import ToolError
from core.owner_zone import zone_named
from integrations.local.models_calendar import LocalEvent
from integrations.providers.base import CalendarProvider, Changes, Meeting, Written, public_link
from integrations.providers.registry import register_provider

# .ics files repeat events for ever: occurrences are kept this far either side of the import.
IMPORT_WINDOW = datetime.timedelta(days=2 * 365)


def event_url(event: LocalEvent) -> str:
    """The event's own web link from its file, else none (""): never a page of Roadstar's, which an agent could
    pass on to a guest (local_books.public_link says why)."""
    return public_link(event.url)


class LocalCalendarProvider(CalendarProvider):
    def _events(self):
        return LocalEvent.objects.filter(connection=self.connection, cancelled=False)

    def meeting(self, event: LocalEvent) -> Meeting:
        return Meeting(id=self.global_id(str(event.pk)), title=event.title, start=event.start, end=event.end,
                       guests=list(event.guests), url=event_url(event))

    def meetings(self, *, after, before, query, limit):
        events = self._events().filter(start__lt=before, end__gt=after)
        if query and query.strip():
            for word in query.lower().split():
                events = events.filter(search__contains=word)
        return [self.meeting(e) for e in events.order_by("start", "id")[:limit]]

    def hold(self, *, title, start, end, note):
        event = LocalEvent.objects.create(
            connection=self.connection, uid=f"hold-{uuid.uuid4().hex}@roadstar", title=title, description=note or "",
            start=start, end=end, held=True,
        )
        return Written(self.meeting(event), {"event": event.pk, "updated": event.updated_at.isoformat()})

    def undo(self, data):
        event = LocalEvent.objects.filter(connection=self.connection, pk=data["event"]).first()
        if event is None or event.cancelled:
            return  # deleted since: what Undo would do is done
        if event.updated_at.isoformat() != data["updated"]:
            raise ToolError(
                "changed",
                f"The hold \"{event.title}\" was changed on the calendar since, so Undo would lose that change; it "
                "is still there.",
            )
        event.delete()

    def changes(self, cursor):
        rows = LocalEvent.objects.filter(connection=self.connection)
        seen = int(cursor) if cursor and cursor.isdigit() else None
        if seen is None:
            return Changes([], str(rows.order_by("-pk").values_list("pk", flat=True).first() or 0))
        added = list(rows.filter(pk__gt=seen).order_by("pk"))
        # Holds and cancelled events move the cursor on too, without being told.
        new = [self.meeting(e) for e in added if not e.held and not e.cancelled]
        return Changes(new, str(added[-1].pk if added else seen))


register_provider("local", "calendar", LocalCalendarProvider)


# --- putting events in: the .ics importer and the example workspace ------------------------------------------


@dataclass
class Imported:
    added: int = 0
    updated: int = 0
    unchanged: int = 0


_FIELDS = ("title", "description", "location", "start", "end", "all_day", "guests", "url", "cancelled")


def event_put(connection, *, uid: str, title: str, start: datetime.datetime, end: datetime.datetime,
              guests: Sequence[str] = (), description: str = "", location: str = "", url: str = "",
              all_day: bool = False, cancelled: bool = False) -> str:
    """Add the event, or bring the one with this uid up to date. Returns "added", "updated" or "unchanged"."""
    values = {"title": title[:500] or "(no title)", "description": description, "location": location[:500],
              "start": start, "end": max(end, start), "all_day": all_day, "guests": list(guests), "url": url[:2000],
              "cancelled": cancelled}
    event = LocalEvent.objects.filter(connection=connection, uid=uid[:500]).first()
    if event is None:
        LocalEvent.objects.create(connection=connection, uid=uid[:500], **values)
        return "added"
    changed = [name for name in _FIELDS if getattr(event, name) != values[name]]
    if not changed:
        return "unchanged"
    for name in changed:
        setattr(event, name, values[name])
    event.save(update_fields=[*changed, "updated_at"])
    return "updated"



def _aware(value, zone) -> tuple[datetime.datetime, bool]:
    """An iCalendar DATE or DATE-TIME as an aware datetime, and whether it was a whole day."""
    if isinstance(value, datetime.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=zone)), False
    return datetime.datetime.combine(value, datetime.time(), tzinfo=zone), True


def _addresses(value) -> list[str]:
    items = value if isinstance(value, list) else [value] if value else []
    found = []
    for item in items:
        address = str(item).strip()
        if address.lower().startswith("mailto:"):
            address = address[7:]
        if "@" in address:
            found.append(address.strip().lower())
    return found


def _uid(component, start: datetime.datetime, recurring: bool) -> str:
    uid = str(component.get("UID") or "").strip()
    if not uid:
        # A file without UIDs: the same event imported again is known by its title and start.
        seed = f"{component.get('SUMMARY', '')}|{start.isoformat()}"
        uid = "nouid-" + hashlib.sha256(seed.encode()).hexdigest()[:24]
    if recurring:
        uid = f"{uid}/{start.astimezone(datetime.UTC):%Y%m%dT%H%M%SZ}"
    return uid


def ics_import(connection, data: bytes, *, time_zone: str | None = None, owner: Sequence[str] = (),
               now: datetime.datetime | None = None) -> Imported:
    """Import an .ics file's events into the connection's local calendar, each occurrence of a repeating event as
    its own meeting (within two years either side of now). Importing the same file again changes nothing; an
    edited file updates its events in place. `owner`: the owner's own addresses, left out of the guests.

    Raises ValueError for a file that isn't iCalendar.
    """
    import icalendar
    import recurring_ical_events
    import x_wr_timezone

    try:
        calendar = icalendar.Calendar.from_ical(data)
    except ValueError as e:
        raise ValueError(f"not an iCalendar file: {e}") from e
    calendar = x_wr_timezone.to_standard(calendar)
    zone = zone_named(time_zone or str(calendar.get("X-WR-TIMEZONE") or "") or None)
    now = now or timezone.now()
    own = {a.lower() for a in owner if a}
    outcome = Imported()
    # The library marks every occurrence with a RECURRENCE-ID: the file says which events repeat.
    repeating = {str(c.get("UID")) for c in calendar.walk("VEVENT") if "RRULE" in c or "RDATE" in c
                 or "RECURRENCE-ID" in c}
    occurrences = recurring_ical_events.of(calendar).between(now - IMPORT_WINDOW, now + IMPORT_WINDOW)
    with transaction.atomic():
        for component in occurrences:
            if component.name != "VEVENT" or "DTSTART" not in component:
                continue
            start, all_day = _aware(component["DTSTART"].dt, zone)
            end = _aware(component["DTEND"].dt, zone)[0] if "DTEND" in component else start
            recurring = "UID" in component and str(component["UID"]) in repeating
            guests = [a for a in _addresses(component.get("ATTENDEE")) if a not in own]
            result = event_put(
                connection, uid=_uid(component, start, recurring), title=str(component.get("SUMMARY") or ""),
                start=start, end=end, guests=list(dict.fromkeys(guests)),
                description=str(component.get("DESCRIPTION") or ""), location=str(component.get("LOCATION") or ""),
                url=str(component.get("URL") or ""), all_day=all_day,
                cancelled=str(component.get("STATUS") or "").upper() == "CANCELLED",
            )
            setattr(outcome, result, getattr(outcome, result) + 1)
    return outcome
