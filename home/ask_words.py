"""An ask as the owner reads it on Home: the action it holds back (who an email goes to, its subject and text; the
field and its old and new value; the file or doc it would write over) and the check's reason, said to the owner.

The check's reasons stay word for word for agents and in the API (checks/reasons.py); only here, in the owner's
Home view, are they turned to speak to the owner: "someone you haven't named", not "the owner".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from checks import reasons

FOR_OWNER = {
    reasons.SENSITIVE: "it would send a password, card or bank number, or an ID number",
    reasons.NOT_NAMED: "it goes to someone you haven't named",
    reasons.REMOVES: "it removes or rewrites something you didn't point to",
    reasons.FROM_READ: "the request came from something your agent read, not from you",
    reasons.UNDECIDED: "the check couldn't decide",
    reasons.UNREACHABLE: "the check couldn't be reached",
}

# What each action does, in the owner's words (tests/home/test_ask_shows_action.py: every checked tool has one).
WHAT = {
    "mail.send": "Send this email",
    "tables.build": "Build a research table",
    "tables.research_rows": "Research rows of a table again",
    "tables.accept_cell": "Accept a value in a table",
    "mail.draft": "Draft this email",
    "contacts.update": "Change a contact",
    "contacts.context": "Rewrite a contact's Context",
    "companies.update": "Change a company",
    "companies.about": "Rewrite a company's About",
    "companies.context": "Rewrite a company's Context",
    "companies.unrecord": "Take an entry off a company's timeline",
    "companies.open": "Change a company's open items",
    "projects.update": "Change a project",
    "docs.write": "Write a doc's whole text",
    "docs.edit": "Edit a doc",
    "docs.answer": "Answer a note on a doc",
    "files.move": "Move files",
    "files.rename": "Rename a file",
    "files.append_text": "Add text to a doc in Drive",
    "files.save": "Put a file in Drive",
    "files.append_rows": "Add rows to a sheet",
    "files.update_cells": "Write over cells in a sheet",
    "files.replace_text": "Replace text in a doc in Drive",
    "pages.request": "Ask for a research page",
    "pages.update": "Change figures in a research page",
    "pages.move": "Move a research page to another project",
}
# Any other action (an app's tool, a new one) is said without its tool name; its inputs below say what it does.
OTHER = "Do this"

# Inputs that name the record rather than change it: the record is named from `replaces` instead.
_IDS = {"id", "ids", "contactId", "companyId", "projectId", "docId", "threadId", "entryId", "fileId", "datasetId"}
_TEXT_KEPT_AS = ("context", "about")
_LONG = 160  # a value longer than this (or on several lines) is folded away under <details>


@dataclass(frozen=True)
class Value:
    label: str
    new: str
    old: str = ""  # what it has now, when the action would overwrite or remove it
    long: bool = False


@dataclass(frozen=True)
class AskAction:
    what: str
    rows: list[Value] = field(default_factory=list)
    writes_over: str = ""  # the file or doc that would be written over
    note: str = ""  # a note the tool carries for the check, such as a cost


def reason_for_owner(reason: str, *, known: list[str] | None = None) -> str:
    """The check's reason said to the owner. `known`: the action's recipients' names when all are the owner's
    contacts (checks.selectors.known_recipients); then "someone you haven't named" would be untrue, and the ask
    says whom it is for and that the owner hasn't let it go yet (a rule of theirs such as "I see every quote
    first", Always ask, or words that don't cover this send)."""
    if reason == reasons.NOT_NAMED and known:
        whom = known[0] if len(known) == 1 else f"{', '.join(known[:-1])} and {known[-1]}"
        return f"it is for {whom}, and you haven't said yet that it can go"
    return FOR_OWNER.get(reason, reason)


def _words(value: Any) -> str:
    if value is None:
        return "(nothing)"
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return json.dumps(value, ensure_ascii=False, indent=1)


def _label(key: str) -> str:
    spaced = "".join(f" {c.lower()}" if c.isupper() else c for c in key).replace("_", " ").strip()
    return spaced[:1].upper() + spaced[1:]


def _value(label: str, new: Any, old: Any = None) -> Value:
    new_words = _words(new)
    old_words = _words(old) if old not in (None, "", [], {}) else ""
    long = any(len(w) > _LONG or "\n" in w for w in (new_words, old_words))
    return Value(label=label, new=new_words, old=old_words, long=long)


def _attachments(attach: Any) -> str:
    """The attachments as the owner knows them: a workspace file by its name; an app's file or an email's attachment
    is only an id in the input (`7c41e2d0:1MWj…`), never shown: said by where it comes from."""
    names = []
    for one in attach or []:
        if not isinstance(one, dict):
            continue
        if one.get("workspace"):
            names.append(str(one["workspace"]).rstrip("/").rsplit("/", 1)[-1])
        elif one.get("file"):
            names.append("a file from your Drive")
        elif one.get("attachment"):
            names.append("an attachment of the email it answers")
        else:
            names.append("an attachment")
    return ", ".join(names)


def describe(*, tool: str, input: dict | None, replaces: Any = None, note: str = "") -> AskAction:
    """The held action, as the owner checks it before saying yes."""
    given = dict(input or {})
    old = replaces if isinstance(replaces, dict) else {}
    what = WHAT.get(tool, OTHER)
    if tool.startswith("mail."):
        rows = [_value("To", given.get("to") or "the sender of the email it replies to")]
        if given.get("cc"):
            rows.append(_value("Cc", given["cc"]))
        rows.append(_value("Subject", given.get("subject", "")))
        if given.get("attach"):
            rows.append(_value("Attachments", _attachments(given["attach"])))
        rows.append(Value(label="Text", new=_words(given.get("text", "")), long=True))
        return AskAction(what=what, rows=rows, note=note)
    rows = []
    for key, new in given.items():
        if key in _IDS:
            continue
        if key == "fields" and isinstance(new, dict):
            old_fields = old.get("fields")
            fields_before = old_fields if isinstance(old_fields, dict) else {}
            rows += [_value(_label(str(k)), v, fields_before.get(k)) for k, v in new.items()]
            continue
        before = old.get(key)
        if key == "text" and before is None:  # Context and About: the new text replaces the one kept under its name
            before = next((old[k] for k in _TEXT_KEPT_AS if k in old), None)
        rows.append(_value("Why" if key == "why" else _label(key), new, before))
    # What it replaces that the input doesn't name (an entry taken off, a sheet's cells): shown as it is now.
    named = set(given) | {"name", "doc", "file", "fields"} | (set(_TEXT_KEPT_AS) if "text" in given else set())
    rows += [Value(label=_label(k), new="(removed or rewritten)", old=_words(v), long=len(_words(v)) > _LONG
                   or "\n" in _words(v)) for k, v in old.items() if k not in named]
    subject = old.get("name") or ""
    if subject:
        what = f"{what}: {subject}"
    return AskAction(what=what, rows=rows, writes_over=str(old.get("file") or old.get("doc") or ""), note=note)


def in_a_line(action: AskAction) -> str:
    """The action in one line, for the chat's note of the owner's answer: "Send this email to rosa@… “Rates”"."""
    rows = {row.label: row.new for row in action.rows}
    if "Subject" in rows:
        return f"{action.what} to {rows.get('To', '')}: “{rows['Subject']}”"
    return action.what
