"""Input types that carry the spec's limits, and the `bad_input` message that names the field and the problem."""

from __future__ import annotations

import difflib
import math
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, StringConstraints, ValidationError
from pydantic.fields import FieldInfo

# Bounds every whole number and date a tool takes, so no input reaches the database or a date sum out of range
# ("offset 1e30", "9999-12-31T23:59:59-14:00"): past them the caller gets bad_input naming the input.
MAX_OFFSET = 1_000_000_000  # past any workspace's rows, and within what a database takes as a number
MAX_WHOLE = 2**31 - 1  # the most any other whole number input may be (a database's integer)
MAX_DAYS = 36_500  # a span in days: a hundred years
# Dates and times: a year in this range, far from the edges of what a date holds (year 1 and 9999), so a time
# zone, a day or a year more or less never overflows, and past any date a business means.
FIRST_YEAR, LAST_YEAR = 1000, 9000


# A tool's input is a type to mypy and carries its limits to pydantic: the limits are the Annotated metadata,
# written at the field (`name: Annotated[str, Chars(1, 200)]`), since mypy can't read a call as a type.


def Chars(min_length: int = 0, max_length: int | None = None) -> StringConstraints:  # noqa: N802  (reads as a limit)
    """Text of `min_length` to `max_length` characters: `Annotated[str, Chars(1, 200)]`."""
    return StringConstraints(min_length=min_length, max_length=max_length)


def Whole(ge: int = 0, le: int = MAX_WHOLE) -> FieldInfo:  # noqa: N802  (reads as a limit)
    """A whole number from `ge` to `le`, given as one (3.0, true and "3" are not taken):
    `Annotated[int, Whole(1, 50)]`."""
    whole: FieldInfo = Field(ge=ge, le=le, strict=True)
    return whole


def _uuid_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be an id (text)")
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError as exc:
        raise ValueError(
            f"{value!r} is not an id of Roadstar's (ids look like 8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22)"
        ) from exc


# An id's type, for annotations. Text becomes one only here (ruff's banned-api rule keeps `uuid.UUID` in this
# module): `as_uuid`, or a tool's `Id` input, so a bad id is "not found" or `bad_input`, never a ValueError.
type Uuid = uuid.UUID


def as_uuid(value: object) -> Uuid | None:
    """The id as a UUID, or None when it is not one (then no row can have it: not_found, not a crash)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value).strip())
    except (TypeError, ValueError):
        return None


# A Roadstar record id. Any text is taken, then it must be a UUID; which workspace holds it is the service's
# question (another workspace's id is `not_found`, never a leak).
Id = Annotated[str, BeforeValidator(_uuid_text), Field(json_schema_extra={"format": "uuid"})]


@dataclass(frozen=True)
class Record:
    """Marks an id input as naming a record of the workspace: the pipeline finds it (or answers not_found) before
    the check asks the owner about an action on it."""

    kind: str  # a key of tools.targets.KINDS (contact, company, project, doc, note), or "item" (see AppItem)


# Each kind's id, written out (not made by a call) so mypy reads it as str.
ContactId = Annotated[str, BeforeValidator(_uuid_text), Record("contact"), Field(json_schema_extra={"format": "uuid"})]
CompanyId = Annotated[str, BeforeValidator(_uuid_text), Record("company"), Field(json_schema_extra={"format": "uuid"})]
ProjectId = Annotated[str, BeforeValidator(_uuid_text), Record("project"), Field(json_schema_extra={"format": "uuid"})]
DocId = Annotated[str, BeforeValidator(_uuid_text), Record("doc"), Field(json_schema_extra={"format": "uuid"})]
DocNoteId = Annotated[str, BeforeValidator(_uuid_text), Record("note"), Field(json_schema_extra={"format": "uuid"})]
DatasetId = Annotated[str, BeforeValidator(_uuid_text), Record("dataset"), Field(json_schema_extra={"format": "uuid"})]
PageId = Annotated[str, BeforeValidator(_uuid_text), Record("page"), Field(json_schema_extra={"format": "uuid"})]

# Marks an input holding an id a tool gave for a thing in one of the owner's apps (a file, a mail thread, an
# attachment): such ids carry their account (`7c41e2d0:19a2c4e07d5b3f18`), and an account of another workspace is
# not_found before the check. A link (a pasted Drive link) is left to the tool.
AppItem = Record("item")


Offset = Annotated[int, Whole(0, MAX_OFFSET)]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    if abs(value) > 1e15:
        raise ValueError("must be between -1e15 and 1e15")
    return value


# A number with a fractional part, such as a sheet's cell: finite and of a sensible size.
Number = Annotated[float, Field(strict=True), AfterValidator(_finite)]


def _link(value: str) -> str:
    if not value.startswith(("http://", "https://")) or len(value) > 2000 or " " in value:
        raise ValueError("must be a web link starting with http:// or https://")
    return value


Link = Annotated[str, AfterValidator(_link)]

def in_range[D: date](value: D) -> D:  # a datetime is a date too: what comes in goes out
    """A date or time of a year from FIRST_YEAR to LAST_YEAR, in UTC too when it has an offset."""
    out = ValueError(f"{value.isoformat()} is out of range; give a date from the year {FIRST_YEAR} to {LAST_YEAR}")
    year = value.year
    if isinstance(value, datetime) and value.tzinfo is not None:
        try:
            year = value.astimezone(UTC).year
        except OverflowError as exc:  # 9999-12-31T23:59:59-14:00 is past what a datetime holds, in UTC
            raise out from exc
    if not FIRST_YEAR <= year <= LAST_YEAR:
        raise out
    return value


def _time_text_in_range(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return value  # not a time at all: the service that reads it says how to write one
    in_range(parsed)
    return value


IsoDateTime = Annotated[datetime, AfterValidator(in_range)]
IsoDate = Annotated[date, AfterValidator(in_range)]
# A time as text, read by a service in the owner's time zone (calendar times, files' modifiedAfter): up to 40
# characters, and when it reads as a date or time, one in range.
TimeText = Annotated[str, Chars(0, 40), AfterValidator(_time_text_in_range)]


def refuse_bad_characters(value: Any, path: str = "") -> None:
    """Text a workspace keeps has no NUL character (PostgreSQL refuses it, and it means nothing in text) and no
    lone surrogate (no encoding holds one). Looks through lists and objects; raises ValueError saying where."""
    at = f" at {path}" if path else ""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"holds the NUL character (\\u0000){at}; send the text without it")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"holds a character that is not valid Unicode (a lone surrogate){at}") from exc
    elif isinstance(value, dict):
        for key, inner in value.items():
            refuse_bad_characters(key, f"{path} (a name)" if path else "a name")
            refuse_bad_characters(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            refuse_bad_characters(inner, f"{path}[{i}]")


def _loc(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = str(part)
    return text or "input"


_TYPE_TAGS = {"str", "int", "float", "bool", "none", "list", "dict", "datetime", "date"}


def _is_validator_tag(part: str) -> bool:
    return part in _TYPE_TAGS or "[" in part or part.startswith(("function-", "constrained-"))


@cache
def _field_names(model: type[BaseModel]) -> frozenset[str]:
    """Every input name in a model and the models nested in it: an input may be named like a tag (`date`)."""
    names: set[str] = set()
    pending = [f.annotation for f in model.model_fields.values()]
    names.update(f.alias or name for name, f in model.model_fields.items())
    while pending:
        annotation = pending.pop()
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names |= _field_names(annotation)
        pending.extend(get_args(annotation))
    return frozenset(names)


def describe_validation_error(error: ValidationError, tool: Any) -> str:
    """One sentence per problem, each naming where it is (`people[3].role`) and what is wrong."""
    inputs = [f.alias or name for name, f in tool.input.model_fields.items()]
    problems = []
    for item in error.errors(include_url=False):
        # Pydantic adds the name of a union member or validator to the location; the agent knows only fields.
        loc = tuple(
            p for p in item["loc"]
            if isinstance(p, int) or p in _field_names(tool.input) or not _is_validator_tag(str(p))
        )
        where = _loc(loc)
        if item["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[-1]) if loc else "", inputs, n=1, cutoff=0.6)
            meant = f" (did you mean {close[0]}?)" if close and len(loc) == 1 else ""
            problems.append(f"{where}: {tool.name} has no such input{meant}; its inputs are {', '.join(inputs)}")
        elif item["type"] == "missing":
            problems.append(f"{where}: required")
        else:
            message = item["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {message}")
    return "; ".join(problems)
