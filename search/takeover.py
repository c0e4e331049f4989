"""What search's copy takes over from mail's and files' live tools, account by account (spec: tools/mail.md,
tools/files.md: "Where search is on, `search` and `read` here cover only what search's copy doesn't hold yet. Once
every account is copied whole, mail keeps only `draft` and `send`, and its how-to says so").

An account's part is *copied whole* when search is on for it, it is connected, its first sync has finished and the
copy isn't failed, and its app's copy holds everything the live tools reach there: Gmail and the local mailbox
(every message but drafts, trash and spam, which live search doesn't show either), Drive and the local files. A
OneDrive account is not: its copy follows the owner's own drive by the delta query, and files shared from other
drives or SharePoint are found only live (search/onedrive_copy.py). Until then the live tools keep the account.

- `mail.search` / `files.search` leave out the accounts copied whole (tools/groups: `skip=`);
- `mail.read` / `files.read` of a thread or file the copy holds answer with its id in search, to read it there;
- once every mail account is copied whole, `mail.search` and `mail.read` are absent (the mail group's `tool_on`);
- the mail and files how-tos say, for the agent reading them, which accounts are read where.
"""

from __future__ import annotations

from core import rows
from core.errors import ToolError
from core.memo import kept
from integrations.models import Connection, SearchCopy
from search.models import SearchItem

_WHOLE = {"mail": {Connection.App.GOOGLE, Connection.App.LOCAL},
          "files": {Connection.App.GOOGLE, Connection.App.LOCAL}}
_LIVE_ONLY = ("search", "read")


@kept
def _accounts(*, org) -> list[tuple[Connection, SearchCopy | None]]:
    """The workspace's connected accounts with their search copies (kept for a browse's length), by kept statements:
    every thread's turn asks, for browse_tools' description, and most workspaces' answer is no account, one read.
    Each copy is cached on its connection (and a connection with none says so), as select_related caches it."""
    connections = rows.select(Connection, [("organization_id", "=", org.pk),
                                           ("status", "=", Connection.Status.CONNECTED)], order_by=["created_at"])
    copies = {copy.connection_id: copy for copy in rows.select(
        SearchCopy, [("connection_id", "in", [c.pk for c in connections])])}  # (none: not asked)
    out = []
    for connection in connections:
        copy = copies.get(connection.pk)
        Connection.search_copy.related.set_cached_value(connection, copy)
        if copy is not None:
            SearchCopy._meta.get_field("connection").set_cached_value(copy, connection)
        out.append((connection, copy))
    return out


def _whole(connection: Connection, copy: SearchCopy | None, group: str) -> bool:
    return (copy is not None and copy.on and copy.first_synced_at is not None
            and copy.state != SearchCopy.State.FAILED and connection.app in _WHOLE.get(group, set()))


def copied_whole(org, group: str) -> list[Connection]:
    """The accounts of `group` (mail or files) that search's copy holds whole, oldest first."""
    return [c for c, copy in _accounts(org=org) if c.serves(group) and _whole(c, copy, group)]


def live_accounts(org, group: str) -> list[Connection]:
    """The connected accounts of `group` the live tools still search."""
    return [c for c, copy in _accounts(org=org) if c.serves(group) and not _whole(c, copy, group)]


def skipped_keys(org, group: str) -> frozenset[str]:
    return frozenset(c.account_key for c in copied_whole(org, group))


def mail_only_writes(org) -> bool:
    """Every connected mail account is copied whole: mail keeps only draft and send."""
    whole = copied_whole(org, "mail")
    return bool(whole) and not live_accounts(org, "mail")


def mail_tool_on(org, tool_name: str) -> bool:
    return tool_name.rpartition(".")[2] not in _LIVE_ONLY or not mail_only_writes(org)


def held_mail_thread(org, value: str) -> str | None:
    """The search id of a thread mail.read was given, when the copy holds that account whole and has the thread."""
    return _held(org, "mail", value, lambda key, rest: f"mail:{key}:t:{rest}", thread=True)


def held_file(org, value: str) -> str | None:
    """The search id of a file files.read was given, when the copy holds that account whole and has the file."""
    return _held(org, "files", value, lambda key, rest: f"files:{key}:{rest}", thread=False)


def _held(org, group: str, value: str, search_id, *, thread: bool) -> str | None:
    key, colon, rest = value.strip().partition(":")
    if not colon or not rest or len(key) != 8:
        return None  # a link, or not an id a tool gave: the live tool says what is wrong with it
    if key not in skipped_keys(org, group):
        return None
    wanted = search_id(key, rest)
    items = SearchItem.objects.filter(organization=org)
    found = items.filter(thread=wanted).exists() if thread else items.filter(key=wanted).exists()
    return wanted if found else None


def refuse_held(held: str | None, what: str) -> None:
    if held is not None:
        raise ToolError("bad_input", f"id: this {what} is in search's copy, which reads it without asking the "
                                     f"owner's account: read it with search.read, id {held}")


def how_to(org, group: str, base: str) -> str:
    """The group's how-to, with a line on what search took over where search is on; word for word where it isn't."""
    whole = copied_whole(org, group)
    if not whole:
        return base
    names = ", ".join(c.account for c in whole)
    if group == "mail" and mail_only_writes(org):
        return (base + f" Every mail account is in search ({names}): find and read mail with search.search and "
                       "search.read; mail keeps only draft and send.")
    live = ", ".join(c.account for c in live_accounts(org, group))
    what = "mail" if group == "mail" else "files"
    line = (f" In search: {names}'s {what}; find and read those with search.search and search.read. This group's "
            f"search and read cover only what search doesn't hold yet")
    return base + line + (f": {live}." if live else ".")
