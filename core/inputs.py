"""Input types that carry the spec's limits, and the `bad_input` message that names the field and the problem."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, StringConstraints, ValidationError


def Text(min_length: int = 0, max_length: int | None = None):  # noqa: N802  (reads like a type in declarations)
    return Annotated[str, StringConstraints(min_length=min_length, max_length=max_length)]


def _uuid_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be an id (text)")
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        raise ValueError(f"{value!r} is not an id of Roadstar's (ids look like 8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22)")


# A Roadstar record id. Any text is taken, then it must be a UUID; which workspace holds it is the service's
# question (another workspace's id is `not_found`, never a leak).
Id = Annotated[str, BeforeValidator(_uuid_text)]

Offset = Annotated[int, Field(ge=0, strict=True)]


def _link(value: str) -> str:
    if not value.startswith(("http://", "https://")) or len(value) > 2000 or " " in value:
        raise ValueError("must be a web link starting with http:// or https://")
    return value


Link = Annotated[str, AfterValidator(_link)]

IsoDateTime = datetime
IsoDate = date


def _loc(loc: tuple) -> str:
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
    return part in _TYPE_TAGS or "[" in part or part.startswith("function-")


@cache
def _field_names(model) -> frozenset[str]:
    """Every input name in a model and the models nested in it: an input may be named like a tag (`date`)."""
    names, pending = set(), [f.annotation for f in model.model_fields.values()]
    names.update(f.alias or name for name, f in model.model_fields.items())
    while pending:
        annotation = pending.pop()
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names |= _field_names(annotation)
        pending.extend(get_args(annotation))
    return frozenset(names)


def describe_validation_error(error: ValidationError, tool) -> str:
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
            problems.append(f"{where}: {tool.name} has no such input; its inputs are {', '.join(inputs)}")
        elif item["type"] == "missing":
            problems.append(f"{where}: required")
        else:
            message = item["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {message}")
    return "; ".join(problems)
