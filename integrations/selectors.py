"""Reads for connections, always within one workspace: which accounts serve a group, and ids that carry their account.

`require_connection` is a read that, when it fails, leaves the card the error points to on Home (a not_connected or
reauth error carries `card`, and the owner must find that card there).
"""

from __future__ import annotations

from collections.abc import Callable

from core.errors import ToolError
from core.models import Organization
from integrations import catalog
from integrations.errors import label_for, needs_write, signed_out
from integrations.models import Connection
from integrations.providers.registry import registered
from integrations.services import Asker, connect_card_open

# Statuses whose connection still belongs to the workspace's apps (removing/removed ones are on their way out).
_LIVE = (Connection.Status.CONNECTED, Connection.Status.NEEDS_RECONNECT)


def connections(*, org: Organization) -> list[Connection]:
    """Every connection of the workspace, removed ones included, oldest first."""
    return list(Connection.objects.filter(organization=org).order_by("created_at", "account"))


def connections_for(
    *, org: Organization, group: str, source: str | None = None, include_stopped: bool = False
) -> list[Connection]:
    """The connected accounts serving `group`, oldest first; with `source`, only accounts whose name contains it.

    Empty when none: a tool that needs one then calls `require_connection`, which raises not_connected with a card.
    `include_stopped` adds the accounts whose sign-in stopped (needs_reconnect), so a search across accounts can
    list them in `failed`: `require_connection(account_key=…)` raises their reauth error, with its card.
    """
    statuses = _LIVE if include_stopped else (Connection.Status.CONNECTED,)
    # A workspace has a handful of connections: filtering groups here works the same on SQLite and PostgreSQL.
    rows = Connection.objects.filter(organization=org, status__in=statuses).order_by("created_at", "account")
    found = [c for c in rows if c.serves(group)]
    if source:
        needle = source.strip().lower()
        found = [c for c in found if needle in c.account.lower()]
    return found


def require_connection(
    *, org: Organization, group: str, account_key: str | None = None, write: bool = False, asked_by: Asker | None = None
) -> Connection:
    """A connected account that can do the work, or the error that asks the owner for one.

    - `account_key` given (from an id): that account; unknown is not_found. Without it: the oldest connected
      account serving `group` (one that can write first, when `write`).
    - none serves the group, or the one asked for was removed: ToolError("not_connected", card=…), with a connect
      card on Home.
    - the account's sign-in stopped (needs_reconnect), or `write` and it may only read:
      ToolError("reauth", card=…), with a reconnect card on Home.
    `asked_by` (Asker.of(ctx)) is recorded on the card, so the conversation is told when the owner connects.
    """
    if group not in catalog.GROUPS:
        raise ValueError(f"unknown group {group!r}")
    rows = Connection.objects.filter(organization=org).order_by("created_at", "account")
    if account_key is not None:
        connection = rows.filter(account_key=account_key).first()
        if connection is None:
            raise ToolError("not_found", f"No connected account {account_key} in this workspace: search for it again.")
        if not connection.serves(group):
            raise ToolError("not_found", f"{account_key} is {connection.account}, which isn't used for {group}.")
        candidates = [connection] if connection.status in _LIVE else []
        app = connection.app
    else:
        candidates = [c for c in rows if c.status in _LIVE and c.serves(group)]
        app = catalog.DEFAULT_APP[group]
    if not candidates:
        card, _ = connect_card_open(org=org, app=app, group=group, asked_by=asked_by)
        label = catalog.app(app).group_labels.get(group, catalog.app(app).label)
        raise ToolError(
            "not_connected",
            f"{label} isn't connected. A card on Home offers {org.owner_first_name} the connection: say in a line "
            "what it lets you do, and carry on with the rest.",
            card=card.title,
        )
    connected = [c for c in candidates if c.is_connected]
    usable = [c for c in connected if c.can_write(group)] if write else connected
    if usable:
        return usable[0]
    connection = (connected or candidates)[0]
    label = label_for(connection, group)
    if not connection.is_connected:
        raise signed_out(connection, label=label, asked_by=asked_by)
    raise needs_write(connection, group=group, label=label, asked_by=asked_by)


def apps_overview(*, org: Organization, tool_count: Callable[[str], int]) -> dict:
    """integrations.list: what is connected, what could be, and what isn't built yet (from the provider registry).
    `tool_count(group)` is how many tools a group has: the tool registry sits above this app, so it is passed in."""
    built = registered()
    rows = connections(org=org)
    apps, seen = [], set()
    for connection in rows:
        if connection.status not in _LIVE:
            continue
        for group in connection.groups:
            label = connection.app_info.group_labels.get(
                group, connection.account if connection.app == catalog.OTHER_APPS else connection.app_info.label
            )
            if (group, label) not in seen:
                seen.add((group, label))
                apps.append({"name": group, "app": label, "tools": tool_count(group)})
    connected = []
    for connection in rows:
        entry = {"integration": connection.app, "account": connection.account or None}
        if connection.status != Connection.Status.CONNECTED:
            entry["status"] = connection.status
        connected.append(entry)
    live_apps = {c.app for c in rows if c.status in _LIVE}
    can_connect, not_yet = [], []
    for key in catalog.CONNECTABLE:
        info = catalog.app(key)
        missing = [g for g in info.groups if (key, g) not in built]
        if len(missing) == len(info.groups):
            not_yet.append(info.label)
            continue
        not_yet.extend(info.group_labels[g] for g in missing)
        if key not in live_apps:
            can_connect.append({"integration": key, "app": info.label})
    # Any other app that has an MCP address, as many as the owner likes.
    can_connect.append({"integration": catalog.OTHER_APPS, "app": catalog.app(catalog.OTHER_APPS).label})
    not_yet.extend(catalog.NOT_YET.values())
    return {"apps": apps, "connected": connected, "canConnect": can_connect, "notYet": not_yet}
