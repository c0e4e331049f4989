"""A change line's words for what a field now holds: "phone to 555-0199", "labels to Client, Vendor", "job title
(cleared)". Home's lines say the new value, not only which field changed (or why), whoever made the change: the
owner on a record's page (contacts.services) or an agent's tool (tools.groups)."""

from __future__ import annotations

from typing import Any

LONGEST = 80  # a longer value is cut: the record's page has it whole, and the line links there


def short(text: str, most: int = LONGEST) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def value_words(value: Any) -> str | None:
    """The value as the owner reads it; None for nothing (a field cleared)."""
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, (list, tuple)):
        return short(", ".join(str(v) for v in value))
    if isinstance(value, dict):
        return short(", ".join(f"{k}: {v}" for k, v in value.items()))
    return short(str(value))


def field_to(field: str, value: Any) -> str:
    words = value_words(value)
    return f"{field} (cleared)" if words is None else f"{field} to {words}"


def joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def fields_to(pairs: list[tuple[str, Any]]) -> str:
    """Several fields' new values in one phrase: "phone to 555-0199 and job title to Office manager"."""
    return joined([field_to(field, value) for field, value in pairs])
