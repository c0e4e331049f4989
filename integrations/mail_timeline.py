"""contacts.timeline's mail: live threads with a contact's addresses, across the workspace's mail accounts.

Kept apart from the mail service (which writes contacts' logs); IntegrationsConfig.ready gives it to contacts.
"""

from __future__ import annotations

import datetime

from core.errors import ToolError
from core.timefmt import iso
from integrations.mail_text import owner_addresses, plain_address
from integrations.models import Connection
from integrations.providers.base import Hit, MailQuery
from integrations.providers.registry import provider_for
from integrations.selectors import connections_for

TIMELINE_PER_ADDRESS = 20
_OLDEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)


class MailTimeline:
    """contacts.timeline's mail source: live threads with the contact's addresses, across the mail accounts."""

    def __init__(self, accounts: list[Connection]):
        self.accounts = accounts
        self.connection = accounts[0].account_key

    def contact_items(self, *, actor, addresses: list[str], limit: int) -> list[dict]:
        items: dict[str, dict] = {}
        errors: list[ToolError] = []
        for connection in self.accounts:
            owner = owner_addresses(connection)
            try:
                provider = provider_for(connection, "mail")
                for address in addresses:
                    query = MailQuery(text=f"from:{address} OR to:{address} OR cc:{address}")
                    for hit in provider.search(query, limit=min(limit, TIMELINE_PER_ADDRESS)).items:
                        items[hit.id] = _timeline_item(hit, owner)
            except ToolError as error:
                errors.append(error)
        if errors and not items:
            raise errors[0]
        return sorted(items.values(), key=lambda item: item["at"], reverse=True)[:limit]


def _timeline_item(hit: Hit, owner: set[str]) -> dict:
    item = {"kind": "mail", "id": hit.id, "title": hit.title, "at": iso(hit.date or _OLDEST), "url": hit.url}
    if hit.who:
        item["from"] = hit.who
        item["direction"] = "out" if plain_address(hit.who) in owner else "in"
    if hit.snippet:
        item["snippet"] = hit.snippet
    return item


def mail_timeline(org) -> MailTimeline | None:
    """The workspace's mail for contacts.timeline, or None while no mail account is connected."""
    accounts = connections_for(org=org, group="mail")
    return MailTimeline(accounts) if accounts else None
