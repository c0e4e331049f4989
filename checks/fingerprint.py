"""A fingerprint of an action: what a yes is stored against, so it covers that action and nothing else.

It is the tool, its kind, and the parts that say what the action is done to: the recipients of a send, the ids of
the things changed, and which of their fields. Not the wording: the owner answered "send Dana the quote", and the
agent may polish the sentence before it runs the send again.
"""

from __future__ import annotations

import hashlib
import json

from checks.kinds import action_kind
from checks.rules import RECIPIENT_KEYS, recipients_of, target_ids
from checks.types import Action

# Input keys that are content or the agent's own commentary, not what the action is done to.
_CONTENT_KEYS = frozenset({"why", "text", "subject", "body", "html", "attach", "threadId", "signature", "lines",
                           "answers", "replyAll", "values", "edits", "find", "replace"})


def canonical_action(action: Action) -> dict:
    tool_input = action.input or {}
    kind = action_kind(action.tool, tool_input)
    fields: list[str] = []
    if kind != "sends":
        fields = sorted(k for k in tool_input if k not in _CONTENT_KEYS and k not in RECIPIENT_KEYS)
    return {
        "tool": action.tool,
        "kind": kind,
        "recipients": sorted(recipients_of(tool_input)),
        "targets": sorted(target_ids(action.tool, tool_input)),
        "fields": fields,
        # Where a move takes things is what the owner said yes to, as much as what moves.
        "destination": tool_input.get("folderId") if kind != "sends" else None,
    }


def fingerprint(action: Action) -> str:
    canonical = json.dumps(canonical_action(action), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
