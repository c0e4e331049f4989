"""The calendar group's services and selectors: what is the same on every calendar app.

Times the agent gives (ISO 8601; a date, or a time without an offset, is read in the owner's time zone), the
accounts to read and merge soonest first, the account that holds time (one that may write, else `reauth` with
its card), Undo of a hold, and the meeting part of contacts.timeline. The apps' own work is in their providers
(integrations/providers/google_calendar.py, local_calendar.py).
"""

from __future__ import annotations

import datetime
from typing import Final

from django.utils import timezone

from core.errors import ToolError, bad_input
from core.models import Organization
from core.owner_zone import owner_time
from core.timefmt import iso
from integrations.models import Connection
from integrations.providers.base import Meeting, Written
from integrations.providers.registry import provider_for
from integrations.selectors import connections_for, require_connection
from integrations.services import Asker

GROUP: Final = "calendar"
# contacts.timeline looks this far back and ahead for meetings with someone.
TIMELINE_BACK = datetime.timedelta(days=365)
TIMELINE_AHEAD = datetime.timedelta(days=180)
TIMELINE_SCAN = 250


def parse_time(value: str, *, field: str, org: Organization) -> datetime.datetime:
    """An input time: ISO 8601 with its offset, or without one (or a bare date) in the owner's time zone."""
    text = value.strip()
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise bad_input(field, f"{value!r} is not a time; give ISO 8601 such as 2026-11-17T10:00:00-05:00") from exc
    return owner_time(org, moment)


def _accounts(org: Organization, asked_by: Asker | None) -> list[Connection]:
    """Every calendar account to read; each one's failure is raised with its card (a list has no `failed`, and
    a meeting left out would show its time as free)."""
    accounts = connections_for(org=org, group=GROUP, include_stopped=True)
    if not accounts:
        require_connection(org=org, group=GROUP, asked_by=asked_by)  # raises not_connected with its card
    return [require_connection(org=org, group=GROUP, account_key=c.account_key, asked_by=asked_by) for c in accounts]


def meeting_list(*, org: Organization, after: str, before: str, query: str | None, limit: int,
                 asked_by: Asker | None = None) -> list[dict]:
    """calendar.list: meetings overlapping the window on every calendar account, soonest first."""
    start = parse_time(after, field="after", org=org)
    end = parse_time(before, field="before", org=org)
    if end <= start:
        raise bad_input("before", "must be later than after")
    query = (query or "").strip() or None
    meetings: list[Meeting] = []
    for connection in _accounts(org, asked_by):
        provider = provider_for(connection, GROUP, asked_by=asked_by)
        meetings += provider.meetings(after=start, before=end, query=query, limit=limit)
    meetings.sort(key=lambda m: (m.start, m.end, m.id))
    return [m.as_result() for m in meetings[:limit]]


def meeting_hold(*, org: Organization, title: str, start: str, end: str, note: str | None,
                 asked_by: Asker | None = None) -> tuple[Connection, Written[Meeting]]:
    """calendar.hold: time blocked on the owner's own calendar, inviting nobody. Needs an account that may write:
    a read-only one is `reauth`, with a card asking the owner to connect it again for writing."""
    begins = parse_time(start, field="start", org=org)
    ends = parse_time(end, field="end", org=org)
    if ends <= begins:
        raise bad_input("end", "must be later than start")
    if not title.strip():
        raise bad_input("title", "must have words in it")
    connection = require_connection(org=org, group=GROUP, write=True, asked_by=asked_by)
    provider = provider_for(connection, GROUP, asked_by=asked_by)
    return connection, provider.hold(title=title.strip(), start=begins, end=ends, note=(note or "").strip() or None)


def meeting_hold_undo(*, org: Organization, actor, change) -> None:
    """Undo of calendar.hold: the hold is deleted, unless it was changed since (`changed`)."""
    data = change.undo or {}
    connection_id = data.get("connection")
    connection = Connection.objects.filter(organization=org, id=connection_id).first() if connection_id else None
    if connection is None:
        raise ToolError("not_found", "The calendar this time was held on is no longer connected.")
    connection = require_connection(org=org, group=GROUP, account_key=connection.account_key, write=True)
    provider_for(connection, GROUP).undo(data["provider"])


# --- contacts.timeline's meetings --------------------------------------------------------------------------------


class MeetingTimeline:
    """contacts.timeline's calendar source: meetings with the contact's addresses, a year back and half a year
    ahead, on every calendar account. `connection` names the account a failure came from."""

    def __init__(self, org: Organization, accounts: list[Connection]):
        self.org, self.accounts = org, accounts
        self.connection = accounts[0].account_key

    def contact_items(self, *, actor, addresses: list[str], limit: int) -> list[dict]:
        now = timezone.now()
        wanted = {a.lower() for a in addresses}
        found: dict[str, Meeting] = {}
        for account in self.accounts:
            self.connection = account.account_key
            connection = require_connection(org=self.org, group=GROUP, account_key=account.account_key)
            provider = provider_for(connection, GROUP)
            for address in addresses:
                for meeting in provider.meetings(after=now - TIMELINE_BACK, before=now + TIMELINE_AHEAD,
                                                 query=address, limit=TIMELINE_SCAN):
                    if wanted & {g.lower() for g in meeting.guests}:
                        found[meeting.id] = meeting
        newest = sorted(found.values(), key=lambda m: m.start, reverse=True)[:limit]
        return [{"kind": "meeting", "id": m.id, "title": m.title, "at": iso(m.start), "url": m.url,
                 "attendees": m.guests} for m in newest]


def meeting_timeline(org: Organization) -> MeetingTimeline | None:
    """The workspace's calendar source for contacts.timeline, or None while no calendar is connected."""
    accounts = connections_for(org=org, group=GROUP, include_stopped=True)
    return MeetingTimeline(org, accounts) if accounts else None
