"""A fingerprint of an action: what a yes is stored against, so it covers that action and nothing else.

A yes covers what the owner saw when saying it: for a send, its recipients, subject, text and attachments; for a
change, its target and every value it would write, and what it would replace. So the fingerprint is the whole
input, for any tool, taken generically from its validated form (ids as the tool reads them, defaults as given),
never from a hand-kept list of each tool's "important" fields: a field a tool gains later is covered without
anyone remembering to add it. Two sends to the same person with another subject or text are two actions.

Only what cannot change the action is left out: the agent's own `why` (the reason it gives the log), spacing and
letter case where they carry no meaning (runs of whitespace, the case and order of addresses).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

from checks.kinds import action_kind
from checks.rules import RECIPIENT_KEYS
from checks.types import Action
from checks.words import emails_in

# The agent's commentary on an action, kept on the log but not part of what is done.
_COMMENTARY = frozenset({"why"})


def _text(value: str) -> str:
    return " ".join(unicodedata.normalize("NFC", value).split())


def _whom(value: Any) -> list[str]:
    """Whom a send reaches is a set of addresses: their order, letter case and display names don't change it."""
    out: set[str] = set()
    for item in value if isinstance(value, list | tuple) else [value]:
        if isinstance(item, str):
            out |= emails_in(item) or {_text(item).lower()}
        elif item is not None:
            out.add(json.dumps(_canonical(item), sort_keys=True, default=str))
    return sorted(out)


def _canonical(value: Any, key: str = "") -> Any:
    if key in RECIPIENT_KEYS and value is not None:
        return _whom(value)
    if isinstance(value, dict):
        return {k: _canonical(v, k) for k, v in sorted(value.items()) if k not in _COMMENTARY}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, str):
        return _text(value)
    return value


def canonical_action(action: Action, validated: dict[str, Any] | None = None) -> dict[str, Any]:
    """The action as a yes covers it. `validated` is the tool's input after validation, when the caller has it
    (the tool pipeline does): then an id written in capitals or a date in another zone is the same action."""
    tool_input = validated if validated is not None else (action.input or {})
    return {
        "tool": action.tool,
        "kind": action_kind(action.tool, action.input or {}),
        "input": _canonical(tool_input),
        # What it would overwrite: a yes to replacing one value is not a yes to replacing what is there now.
        "replaces": _canonical(action.replaces),
    }


def fingerprint(action: Action, validated: dict[str, Any] | None = None) -> str:
    canonical = json.dumps(canonical_action(action, validated), sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
