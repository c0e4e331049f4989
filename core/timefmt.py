"""Times as the tools give them: ISO 8601 in UTC with a Z, to the second."""

from __future__ import annotations

import datetime


def iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
