"""Replacing and appending text in a document's flat text, and finding exactly what to put back for Undo.

Both providers work on a document as one string (a Google Doc's body text runs, a Markdown file, a .docx's
paragraphs joined by newlines), so Undo is worked out the same way on each:
- if the text is exactly as the write left it (same hash), the write's own positions are used;
- else, after replace_text, the occurrences of the new text are counted: if they are as many as the write left,
  and the characters either side of each one it made are as it left them, those are put back (edits elsewhere in
  the document don't stop Undo); otherwise `changed`;
- else, after append_text, the added paragraph is removed if it is still there exactly once; otherwise `changed`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from integrations.providers.base import file_changed_since


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def find_all(text: str, find: str) -> list[int]:
    """Where `find` starts in `text`, left to right, without overlaps (as a replace-all goes)."""
    starts: list[int] = []
    at = 0
    if not find:
        return starts
    while (i := text.find(find, at)) != -1:
        starts.append(i)
        at = i + len(find)
    return starts


@dataclass
class Edit:
    """One span of the text to change: `length` characters at `start` become `insert`."""

    start: int
    length: int
    insert: str


def apply(text: str, edits: list[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.insert + text[edit.start + edit.length:]
    return text


# --- replace ---------------------------------------------------------------------------------------------------


@dataclass
class Replaced:
    text: str  # the text after
    starts: list[int]  # where each match was (in the text before)
    undo: dict  # find, replace, starts (in the text after), hash, pattern


def replace(text: str, find: str, replacement: str) -> Replaced:
    starts = find_all(text, find)
    edits = [Edit(s, len(find), replacement) for s in starts]
    after = apply(text, edits)
    shift = len(replacement) - len(find)
    new_starts = [s + i * shift for i, s in enumerate(starts)]
    ours = set(new_starts)
    pattern = [o in ours for o in find_all(after, replacement)] if replacement else None
    if pattern is not None and sum(pattern) != len(new_starts):
        pattern = None  # the new text overlaps itself: only the exact positions can be trusted
    return Replaced(after, starts, {
        "find": find, "replace": replacement, "starts": new_starts, "hash": text_hash(after), "pattern": pattern,
        "around": [_around(after, s, len(replacement)) for s in new_starts],
    })


def _around(text: str, start: int, length: int) -> list[str]:
    """The characters either side of a span: an edit that grew the new text ("Ortiz Bakery Co.") shows there."""
    return [text[start - 1: start] if start else "", text[start + length: start + length + 1]]


def replace_undo_edits(current: str, data: dict, *, what: str) -> list[Edit]:
    """The edits that put `find` back where this replace put `replace`; `changed` when that can't be told."""
    find, replacement = data["find"], data["replace"]
    if text_hash(current) == data["hash"]:
        starts = data["starts"]
    elif data.get("pattern") is not None:
        found = find_all(current, replacement)
        if len(found) != len(data["pattern"]):
            raise file_changed_since(what, f"the text {_short(replacement)!r} was changed since")
        starts = [at for at, ours in zip(found, data["pattern"], strict=False) if ours]
        if [_around(current, at, len(replacement)) for at in starts] != data.get("around", []):
            raise file_changed_since(what, f"the text around {_short(replacement)!r} was changed since")
    else:
        raise file_changed_since(what, "it was edited since")
    return [Edit(s, len(replacement), find) for s in starts]


# --- append ----------------------------------------------------------------------------------------------------


@dataclass
class Appended:
    text: str
    start: int  # where the new paragraph's own text starts
    end: int
    undo: dict


def append(text: str, added: str, *, at: int | None = None, separator: str = "\n\n") -> Appended:
    """`added` as a new paragraph: after the text (or at `at`, before a closing newline the document keeps)."""
    at = len(text) if at is None else at
    head = text[:at]
    if not head.strip() or head.endswith(separator):
        sep = ""
    elif separator == "\n\n" and head.endswith("\n"):
        sep = "\n"
    else:
        sep = separator
    inserted = sep + added
    after = text[:at] + inserted + text[at:]
    start = at + len(sep)
    return Appended(after, start, start + len(added), {
        "inserted": inserted, "at": at, "hash": text_hash(after),
    })


def append_undo_edits(current: str, data: dict, *, what: str) -> list[Edit]:
    inserted = data["inserted"]
    if text_hash(current) == data["hash"]:
        return [Edit(data["at"], len(inserted), "")]
    found = find_all(current, inserted)
    if len(found) != 1:
        raise file_changed_since(what, "the added text was changed since")
    return [Edit(found[0], len(inserted), "")]


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


