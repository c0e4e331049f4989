"""Which of the owner's accounts are in search, in words for the group's how-to."""

from __future__ import annotations

from integrations.models import Connection, SearchCopy

_BASE_IN_SEARCH = "In search: the workspace's docs, tables, contacts and projects."
_PARTS = {"mail": "mail", "files": "files", "calendar": "meetings"}


def in_search(org) -> list[str]:
    lines = []
    for copy in SearchCopy.objects.filter(
        connection__organization=org, on=True, connection__status=Connection.Status.CONNECTED
    ).select_related("connection").order_by("connection__created_at"):
        connection = copy.connection
        what = " and ".join(_PARTS[g] for g in connection.groups if g in _PARTS)
        if not what:
            continue
        if copy.first_synced_at:
            lines.append(f"{connection.account}'s {what} since {copy.on_since:%Y-%m-%d}")
        elif copy.state != SearchCopy.State.FAILED:
            lines.append(f"{connection.account}'s {what}, still being copied ({copy.percent}%)")
    return lines


def how_to_for(org, base: str) -> str:
    """The spec's how-to, naming the accounts in search and since when; for a workspace with none, word for word."""
    accounts = in_search(org)
    if not accounts:
        return base
    listed = "In search: the workspace's docs, tables, contacts and projects; " + "; ".join(accounts) + "."
    return base.replace(_BASE_IN_SEARCH, listed)
