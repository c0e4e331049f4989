"""Which actions the check reads, by the tool's "Owner's yes" kind (`spec/how-it-works/the-owners-yes.md`).

Reads and new things go unchecked. "Depends" tools are decided by their input. Tools that carry a note for the
check (a cost) are checked whatever their kind. To add a tool: put its name in the set of its kind below, or, when
its kind depends on its input, in `_DEPENDS` with a function of the input. A tool this table doesn't know is
treated as one that changes what's there: an unknown action is never waved through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Kind = Literal["reads", "makes", "changes", "deletes", "sends", "costs"]
CHECKED: frozenset[str] = frozenset({"changes", "deletes", "sends", "costs"})

_READS = frozenset({
    "books.invoices", "books.invoice", "calendar.list", "comments.list", "companies.list", "companies.read",
    "companies.timeline", "contacts.list", "contacts.find", "contacts.read", "contacts.timeline", "docs.list",
    "docs.read", "files.search", "files.read", "files.sheet_rows", "filings.latest", "filings.read", "help.search",
    "help.read", "integrations.list", "mail.search", "mail.read", "newsfeed.read", "pages.list", "pages.read",
    "projects.list", "projects.activity", "search.search", "search.read", "tables.list", "tables.read",
    "templates.search", "templates.read", "web.search", "web.read", "workspace.bash", "workspace.read",
    "workspace.write", "workspace.edit", "workspace.open",
    # Agent tools that only read or talk among agents.
    "browse_tools", "find_tools", "read_thread", "zoom_memory", "message_date",
})
_MAKES = frozenset({
    "calendar.hold", "comments.comment", "companies.create", "companies.record", "companies.link_person",
    "contacts.create", "contacts.add_many", "contacts.note", "contacts.follow_up", "contacts.link_project",
    "files.copy", "files.folder", "files.create_doc", "files.create_sheet", "files.save_attachment",
    "integrations.connect", "mail.draft", "pages.mark", "projects.create", "tables.add_row",
    "templates.propose_add", "templates.propose_share",
    "hand_off", "remember", "make_agent", "start_thread", "message_thread", "close_thread", "skills",
})
_CHANGES = frozenset({
    "companies.update", "companies.about", "companies.context", "contacts.update", "contacts.context",
    "docs.edit", "docs.answer", "files.move", "files.rename", "files.append_text", "files.append_rows",
    "files.update_cells", "files.replace_text", "pages.update", "pages.move", "projects.update",
    "tables.accept_cell", "change_agent",
})
_DELETES = frozenset({"companies.unrecord"})
_SENDS = frozenset({"mail.send"})
# Checked whatever their kind: they carry a note for the check to weigh, such as a cost.
_COSTS = frozenset({"pages.request", "tables.build", "tables.research_rows"})

_DEPENDS: dict[str, Callable[[dict[str, Any]], Kind]] = {
    # A new doc is something new; a docId means writing over a doc that's there.
    "docs.write": lambda i: "changes" if i.get("docId") else "makes",
    # Adding an item makes something new; `done` closes one.
    "companies.open": lambda i: "changes" if i.get("done") else "makes",
    # With `over`, a new version replaces the Drive file it was opened from.
    "files.save": lambda i: "changes" if i.get("over") else "makes",
    # Changing a routine is checked; listing, adding, and turning on or off are the owner's own chat at work.
    "triggers": lambda i: "changes" if i.get("action") == "change" else "makes",
}


def action_kind(tool: str, tool_input: dict[str, Any]) -> Kind:
    if tool in _DEPENDS:
        return _DEPENDS[tool](tool_input or {})
    if tool in _COSTS:
        return "costs"
    if tool in _SENDS:
        return "sends"
    if tool in _DELETES:
        return "deletes"
    if tool in _CHANGES:
        return "changes"
    if tool in _READS:
        return "reads"
    if tool in _MAKES:
        return "makes"
    return "changes"


def is_checked(tool: str, tool_input: dict[str, Any]) -> bool:
    return action_kind(tool, tool_input) in CHECKED
