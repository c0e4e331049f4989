"""Reading a JSON object as real models write it: tool-call arguments and `use_tool`'s input.

A model's JSON is usually right, but not always: the object sent again as a JSON string inside the JSON, a trailing
comma, a code fence around it, or a body cut off when the model ran out of room. What can be read without guessing
is read (a string that holds an object, trailing commas, a fence); what can't (a cut-off body, broken JSON) comes
back as one line saying what was wrong and how to send it, so the model can correct it and nothing runs on a guess:
a cut-off `text` repaired into a shorter one would send the owner's client half an email.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class NotAnObject(ValueError):
    """What was written can't be read as one JSON object; the message is the one-line fix."""


def read_object(written: object, *, what: str = "the arguments") -> dict[str, Any]:
    """`written` as a dict: a dict as is, None or blank as {}, a string read as JSON (leniently, as above)."""
    if isinstance(written, dict):
        return written
    if written is None:
        return {}
    if not isinstance(written, str):
        raise NotAnObject(f"{what} must be one JSON object of the tool's inputs, such as {{\"id\": \"…\"}}, "
                          f"not {_kind(written)}")
    text = written.strip()
    if not text:
        return {}
    fenced = FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    for attempt in (text, _without_trailing_commas(text)):
        try:
            value = json.loads(attempt)
        except json.JSONDecodeError:
            continue
        if isinstance(value, str) and value.strip()[:1] == "{":
            return read_object(value, what=what)  # the object sent as a JSON string inside the JSON
        if isinstance(value, dict):
            return value
        raise NotAnObject(f"{what} must be one JSON object of the tool's inputs, such as {{\"id\": \"…\"}}, "
                          f"not {_kind(value)}")
    if _cut_off(text):
        raise NotAnObject(f"{what} were cut off before their end ({len(written):,} characters came): send the call "
                          "again whole; if it was long, put less in one call")
    try:
        json.loads(_without_trailing_commas(text))
    except json.JSONDecodeError as error:
        raise NotAnObject(f"{what} weren't valid JSON ({error.msg} at character {error.pos}): send one JSON object "
                          "of the tool's inputs, with double quotes around names and text") from None
    raise AssertionError("unreachable: the text parsed the second time")


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def _scan(text: str) -> Iterator[tuple[int, str, bool]]:
    """Yield (index, char, inside_a_string) for each character, reading escapes."""
    inside = escaped = False
    for i, char in enumerate(text):
        yield i, char, inside
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True


def _without_trailing_commas(text: str) -> str:
    """The text with each comma that only whitespace separates from a closing } or ] taken out (outside strings)."""
    out: list[str] = []
    pending: int | None = None  # where in `out` the last comma outside a string is, while only whitespace follows
    for _, char, inside in _scan(text):
        if not inside and char in "}]" and pending is not None:
            out[pending] = ""
        if not inside and char == ",":
            pending = len(out)
        elif inside or not char.isspace():
            pending = None
        out.append(char)
    return "".join(out)


def _cut_off(text: str) -> bool:
    """Whether the text is the start of a JSON object that stopped early: a string or a bracket left open."""
    if not text.startswith("{"):
        return False
    depth = 0
    for _, char, inside in _scan(text):
        if not inside and char in "{[":
            depth += 1
        elif not inside and char in "}]":
            depth -= 1
    return depth > 0 or _ends_inside_string(text)


def _ends_inside_string(text: str) -> bool:
    inside = escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
    return inside
