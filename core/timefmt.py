"""Times as the tools give them: ISO 8601 in UTC with a Z, to the second."""

from __future__ import annotations

import datetime
from typing import overload


# A time gives its text, and None gives None: the overloads let a caller with a time know it gets text.
@overload
def iso(value: datetime.datetime) -> str: ...
@overload
def iso(value: None) -> None: ...
@overload
def iso(value: datetime.datetime | None) -> str | None: ...
def iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
