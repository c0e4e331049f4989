"""Every page in the owner's time zone.

The database keeps UTC. A signed-in owner's request runs with their workspace's zone active, so every time a page
shows (`|date`, `|timesince`, `localtime`, the pages' `when`) and every time without an offset a page reads is in
that one zone: the same email shows the same hour on the contact page, the company page, Home and a chat.

The zone is looked up only when something first asks for it: a request that shows no time reads no session, user
or workspace for it (the 500 page, which must read nothing that may have failed, stays at no query).
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.http import user_workspace

if TYPE_CHECKING:
    from core.models import Organization


def zone_named(name: str | None) -> datetime.tzinfo:
    """The zone a name names; a name Python doesn't know (edited in the admin, an app's own) is UTC, not a crash.

    The one place a zone is made from a name (ruff's banned-api rule keeps `zoneinfo.ZoneInfo` here)."""
    if not name:
        return datetime.UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        return datetime.UTC


def owner_zone(org: Organization | None) -> datetime.tzinfo:
    """The workspace's zone (UTC for no workspace, or one whose zone Python doesn't know)."""
    return zone_named(org.time_zone) if org is not None else datetime.UTC


def owner_time(org: Organization | None, value: datetime.datetime) -> datetime.datetime:
    """A time as given: one without an offset is the owner's local time."""
    return value.replace(tzinfo=owner_zone(org)) if value.tzinfo is None else value


def owner_today(org: Organization | None, now: datetime.datetime | None = None) -> datetime.date:
    """The owner's date now (or at `now`)."""
    return (now or timezone.now()).astimezone(owner_zone(org)).date()


class _RequestZone(datetime.tzinfo):
    """The signer's workspace zone, found on first use; UTC for a request with no owner signed in."""

    def __init__(self, request: HttpRequest) -> None:
        self._request = request
        self._zone: datetime.tzinfo | None = None

    def zone(self) -> datetime.tzinfo:
        if self._zone is None:
            self._zone = owner_zone(user_workspace(getattr(self._request, "user", None)))
        return self._zone

    def utcoffset(self, dt: datetime.datetime | None) -> datetime.timedelta | None:
        return self.zone().utcoffset(dt)

    def dst(self, dt: datetime.datetime | None) -> datetime.timedelta | None:
        return self.zone().dst(dt)

    def tzname(self, dt: datetime.datetime | None) -> str | None:
        return self.zone().tzname(dt)

    def fromutc(self, dt: datetime.datetime) -> datetime.datetime:
        # The real zone does the conversion (and sets fold for the repeated hour); the result carries it.
        zone = self.zone()
        return zone.fromutc(dt.replace(tzinfo=zone))

    def __str__(self) -> str:
        # Django names the active zone to the database (a date_hierarchy's truncation, `__date` lookups) by
        # `tzname(None) or str(zone)`: the real zone's own name, so the database gets "America/Chicago", never a label.
        return str(self.zone())

    def __repr__(self) -> str:
        return f"<the owner's zone: {self._zone!r}>"


class OwnerTimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with timezone.override(_RequestZone(request)):
            return self.get_response(request)
