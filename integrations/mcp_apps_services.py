"""Writes and reads for the owner's other apps (by their MCP address): connect one, connect it again, its tokens.

The network is integrations/mcp_apps.py's; these write what it got, each in one short transaction. A connected app
is a Connection (app "apps", its account the app's name, its one group named after the app) with its McpApp.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core import rows
from core.memo import kept
from core.models import Card, Organization
from core.registry import Registry
from integrations import catalog
from integrations.mcp_apps import Server
from integrations.models import Connection, McpApp
from integrations.services import _announce, _create, _resolve_cards

GROUP_LIMIT = 30


@dataclass(frozen=True)
class ReservedNames:
    """Group names an app's group may not take: `names()`, Roadstar's own groups. The tool registry sits above this
    app, so it hands them over when it loads (tools/groups/apps.py), the way integrations is handed its event
    recorder."""

    name: str
    names: Callable[[], set[str]]


RESERVED_NAMES: Registry[str, ReservedNames] = Registry("reserved group names", ReservedNames)


def _reserved_names() -> set[str]:
    names = set(catalog.GROUPS) | {"integrations", "help", "search"}
    for source in RESERVED_NAMES.values():
        names |= source.names()
    return names


def group_name_for(*, org: Organization, name: str, url: str) -> str:
    """The group an app adds, named after it: lower-case letters, digits and _, not one of Roadstar's own groups
    nor another connected app's (a second "ledgerly" is "ledgerly_2")."""
    base = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:GROUP_LIMIT] or "app"
    if base[0].isdigit():
        base = "app_" + base
    taken = _reserved_names() | set(
        McpApp.objects.filter(organization=org).exclude(url=url).values_list("group", flat=True)
    )
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def mcp_app_connected(
    *, org: Organization, url: str, server: Server, oauth: dict, tokens: dict
) -> tuple[Connection, list[Card]]:
    """Keep an app Roadstar just signed in to: a new connection, or the same address's connection renewed (its
    account key, group and every id given out before kept). Resolves the connect / reconnect cards it answers."""
    group = group_name_for(org=org, name=server.name, url=url)
    with transaction.atomic():
        app = McpApp.objects.select_for_update().select_related("connection").filter(organization=org, url=url).first()
        if app is None:
            connection = Connection(app=Connection.App.APPS, account=server.name[:254], groups=[group])
            connection.set_tokens(tokens)
            connection = _create(org, connection)
            app = McpApp(connection=connection, organization=org, url=url, group=group)
        else:
            connection = app.connection
            connection.set_tokens(tokens)
            connection.account = server.name[:254]
            connection.status = Connection.Status.CONNECTED
            connection.token_version += 1
            connection.save()
        app.label = server.name[:200]
        app.instructions = server.instructions
        app.tools = server.tools
        app.tools_read_at = timezone.now()
        app.set_oauth(oauth)
        app.save()
        cards = _resolve_cards(org=org, connection=connection)
        _announce(org, connection, cards)
    return connection, cards


@kept  # browse_tools' description and its browse both ask; one read a block
def mcp_apps(*, org: Organization, include_stopped: bool = True) -> list[McpApp]:
    """The workspace's connected apps (by MCP address), oldest first; with `include_stopped`, those whose sign-in
    stopped too (their tools say so)."""
    statuses = {Connection.Status.CONNECTED}
    if include_stopped:
        statuses.add(Connection.Status.NEEDS_RECONNECT)
    # A kept statement (every thread's turn asks, for browse_tools' description), its few rows sorted here.
    apps = rows.select(McpApp, [("organization_id", "=", org.pk)], related=["connection"])
    return sorted((a for a in apps if a.connection.status in statuses), key=lambda a: a.connection.created_at)


def mcp_app(*, org: Organization, group: str) -> McpApp | None:
    return (
        McpApp.objects.filter(organization=org, group=group, connection__status__in=(
            Connection.Status.CONNECTED, Connection.Status.NEEDS_RECONNECT))
        .select_related("connection", "connection__organization").first()
    )
