"""Writes for connections: making and renewing them, their tokens, and the cards that ask the owner to connect.

Cards and the needs_reconnect mark are written through integrations.durable.keep: they are made on the way to a
tool's `not_connected` / `reauth` error, and must stand when that error rolls the tool's transaction back.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from core.actors import Actor
from core.errors import ToolError
from core.models import Card, Organization
from core.services import card_open, card_resolve
from integrations import catalog
from integrations.crypto import TokensUnreadable
from integrations.durable import keep
from integrations.models import Connection, SearchCopy
from integrations.signals import connected

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Asker:
    """The conversation that needed an app: told when the owner connects it (integrations.signals.connected)."""

    agent_id: str | None
    conversation_id: str | None
    name: str = ""

    @classmethod
    def of(cls, ctx) -> Asker:
        """From a tool's ToolContext."""
        actor = ctx.actor
        return cls(
            agent_id=actor.id if actor.kind == "agent" else None,
            conversation_id=ctx.conversation_id or None,
            name=actor.name,
        )

    def as_data(self) -> dict:
        return {"agent_id": self.agent_id, "conversation_id": self.conversation_id}


class NothingGranted(Exception):
    """The owner finished the app's sign-in but allowed none of what Roadstar uses."""


# --- account keys ---------------------------------------------------------------------------------------------


def _new_account_key(org: Organization) -> str:
    taken = set(Connection.objects.filter(organization=org).values_list("account_key", flat=True))
    while True:
        key = secrets.token_hex(4)
        if key not in taken:
            return key


def _create(org: Organization, connection: Connection) -> Connection:
    """Save a new connection under a fresh account key."""
    connection.organization = org
    # The unique (organization, account_key) constraint settles a race between two new connections.
    for _ in range(5):
        connection.account_key = _new_account_key(org)
        try:
            with transaction.atomic():
                connection.save(force_insert=True)
            return connection
        except IntegrityError:
            continue
    raise IntegrityError("could not find a free account key")


# --- making connections ---------------------------------------------------------------------------------------


def connection_create_local(*, org: Organization, account: str, groups: list[str]) -> Connection:
    """A connection to the embedded local providers (the example workspace and tests), serving `groups`."""
    unknown = [g for g in groups if g not in catalog.GROUPS]
    if unknown or not groups:
        raise ValueError(f"groups must be some of {', '.join(catalog.GROUPS)}; got {groups!r}")
    with transaction.atomic():
        connection = _create(org, Connection(
            app=Connection.App.LOCAL, account=account, groups=list(dict.fromkeys(groups)), scopes=[catalog.LOCAL_SCOPE]
        ))
        cards = _resolve_cards(org=org, connection=connection)
        _announce(org, connection, cards)
    return connection


def connection_save_oauth(
    *, org: Organization, actor: Actor, app: str, account: str, scopes: list[str], tokens: dict, realm_id: str = ""
) -> tuple[Connection, list[Card]]:
    """Store what an OAuth callback got: a new connection, or the same account's connection renewed.

    Renewing keeps the account key, so every id given out before still works. `tokens` is
    {"access_token", "refresh_token", "expiry" (ISO, UTC)}; a renewal without a refresh token keeps the old one.
    Resolves the connect / reconnect cards it answers, and sends integrations.signals.connected after commit.
    """
    info = catalog.app(app)
    groups = info.groups_granted(scopes)
    if not groups:
        raise NothingGranted(f"The sign-in allowed none of {info.label}.")
    with transaction.atomic():
        # The same account connected again: a QuickBooks company by its id (its name can change), others by name.
        same = {"realm_id": realm_id} if realm_id else {"account__iexact": account}
        existing = Connection.objects.select_for_update().filter(organization=org, app=app, **same).first()
        if existing is None:
            connection = Connection(app=app, account=account, groups=groups, scopes=sorted(set(scopes)),
                                    realm_id=realm_id)
            connection.set_tokens(tokens)
            connection = _create(org, connection)
        else:
            connection = existing
            if not tokens.get("refresh_token"):
                tokens = {**tokens, "refresh_token": _stored_refresh_token(connection)}
            connection.set_tokens(tokens)
            connection.account = account
            connection.groups = groups
            connection.scopes = sorted(set(scopes))
            connection.status = Connection.Status.CONNECTED
            connection.token_version += 1
            connection.save()
        cards = _resolve_cards(org=org, connection=connection)
        _announce(org, connection, cards)
    return connection, cards


def _stored_refresh_token(connection: Connection) -> str | None:
    try:
        return connection.read_tokens().get("refresh_token")
    except TokensUnreadable:
        return None


def _announce(org, connection, cards) -> None:
    transaction.on_commit(lambda: _tell_connected(org, connection, cards))


def _tell_connected(org, connection, cards) -> None:
    # The connection is committed: a receiver that fails (a note to the asking thread) is logged, and must not
    # turn the owner's finished connect into an error page.
    for receiver, outcome in connected.send_robust(sender=Connection, org=org, connection=connection, cards=cards):
        if isinstance(outcome, Exception):
            logger.error("connected: %r failed for connection %s", receiver, connection.id, exc_info=outcome)


def _resolve_cards(*, org: Organization, connection: Connection) -> list[Card]:
    """Resolve the open cards this connection answers, noting on each which connection answered it."""
    resolved = []
    open_cards = Card.objects.filter(
        organization=org, kind__in=(Card.Kind.CONNECT, Card.Kind.RECONNECT), resolved_at__isnull=True,
        data__app=connection.app,
    )
    for card in open_cards:
        data = card.data
        if card.kind == Card.Kind.CONNECT:
            answers: object = not data.get("groups") or set(data["groups"]) & set(connection.groups)
        else:
            answers = data.get("account_key") == connection.account_key and all(
                connection.can_write(g) for g in data.get("write_groups", [])
            )
        if not answers:
            continue
        data["connected"] = {
            "connection_id": str(connection.id), "account_key": connection.account_key, "account": connection.account
        }
        card.save(update_fields=["data"])
        resolved.append(card_resolve(org=org, card_id=card.id))
    return resolved


# --- tokens ---------------------------------------------------------------------------------------------------


def connection_tokens_save(*, connection: Connection, tokens: dict) -> bool:
    """Save refreshed tokens, encrypted, if nobody saved newer ones since `connection` was read.

    A compare-and-set on token_version: a racing refresh, or this write replayed after a rollback, never puts
    older tokens over newer ones. Updates `connection` in place. False when newer tokens were there already.
    """
    expected = connection.token_version
    connection.set_tokens(tokens)
    ciphertext, expires_at = connection.tokens, connection.token_expires_at

    def write() -> bool:
        return bool(
            Connection.objects.filter(pk=connection.pk, token_version=expected).update(
                tokens=ciphertext, token_expires_at=expires_at, token_version=expected + 1, updated_at=timezone.now()
            )
        )

    saved = keep(write)
    connection.token_version = expected + 1
    return saved


def connection_needs_reconnect(*, connection: Connection, asked_by: Asker | None = None) -> Card:
    """The app refused the connection's sign-in: mark it needs_reconnect and put the reconnect card on Home."""

    def write():
        Connection.objects.filter(pk=connection.pk, status=Connection.Status.CONNECTED).update(
            status=Connection.Status.NEEDS_RECONNECT, updated_at=timezone.now()
        )

    keep(write)
    if connection.status == Connection.Status.CONNECTED:
        connection.status = Connection.Status.NEEDS_RECONNECT
    return reconnect_card_open(connection=connection, signed_out=True, asked_by=asked_by)


# --- cards ----------------------------------------------------------------------------------------------------


def _add_asker(data: dict, asked_by: Asker | None, why: str = "") -> None:
    if asked_by is not None:
        entry = asked_by.as_data()
        data.setdefault("asked_by", entry)
        askers = data.setdefault("askers", [])
        if entry not in askers:
            askers.append(entry)
    if why:
        line = f"{asked_by.name}: {why}" if asked_by is not None and asked_by.name else why
        lines = data.setdefault("why", [])
        if line not in lines:
            lines.append(line)


def _connect_body(info: catalog.App, data: dict) -> str:
    if data.get("why"):
        return "\n".join(data["why"])
    groups = data.get("groups") or list(info.groups)
    uses = "; ".join(catalog.GROUP_USE[g] for g in groups if g in catalog.GROUP_USE)
    return f"Your agents need it to {uses}."


def connect_card_open(
    *, org: Organization, app: str, group: str | None = None, why: str = "", asked_by: Asker | None = None
) -> tuple[Card, bool]:
    """The card asking the owner to connect `app` (for `group`); the open one for that app if there is one.

    Returns (card, made): made is False when an open card was reused (the asker and why are added to it).
    """
    info = catalog.app(app)

    def write() -> tuple[Card, bool]:
        # Under the card's lock: two threads asking at once both end up on it, as askers and whys.
        with transaction.atomic():
            card = Card.objects.select_for_update().filter(
                organization=org, kind=Card.Kind.CONNECT, resolved_at__isnull=True, data__app=app
            ).first()
            made = card is None
            data: dict[str, Any] = dict(card.data) if card else {"app": app, "groups": []}
            if group and group not in data["groups"]:
                data["groups"].append(group)
            _add_asker(data, asked_by, why)
            if card is None:
                card = card_open(
                    org=org, kind=Card.Kind.CONNECT, subject=f"connect:{group or app}", title=f"Connect {info.label}",
                    body=_connect_body(info, data), action_label="Connect",
                    action_url=reverse("integrations:connect", args=[app]), data=data,
                )
                if card.data != data:  # an open card for the same subject with other data: merge into it
                    card.data = {**card.data, **data}
                    card.save(update_fields=["data"])
            else:
                card.data, card.body = data, _connect_body(info, data)
                card.save(update_fields=["data", "body"])
            return card, made

    return keep(write)


def _reconnect_body(connection: Connection, data: dict) -> str:
    info = connection.app_info
    lines = []
    if data.get("signed_out"):
        lines.append(
            f"{info.label} stopped accepting Roadstar's sign-in for {connection.account}. Connect it again so your "
            "agents can carry on."
        )
    if data.get("write_groups"):
        what = ", ".join(info.group_labels.get(g, g) for g in data["write_groups"])
        lines.append(
            f"{connection.account} is connected for reading only. Connect it again and allow writing in {what}."
        )
    lines.extend(data.get("why", []))
    return "\n".join(lines)


def reconnect_card_open(
    *, connection: Connection, write_groups: Sequence[str] = (), signed_out: bool = False,
    asked_by: Asker | None = None, why: str = "",
) -> Card:
    """The card asking the owner to connect this account again: its sign-in stopped, or writing needs allowing."""
    org = connection.organization

    def write() -> Card:
        card = Card.objects.filter(
            organization=org, kind=Card.Kind.RECONNECT, resolved_at__isnull=True,
            subject=f"reconnect:{connection.account_key}",
        ).first()
        data: dict[str, Any] = dict(card.data) if card else {
            "app": connection.app, "account_key": connection.account_key, "connection_id": str(connection.id),
            "write_groups": [], "signed_out": False,
        }
        data["signed_out"] = data.get("signed_out") or signed_out
        for g in write_groups:
            if g not in data["write_groups"]:
                data["write_groups"].append(g)
        _add_asker(data, asked_by, why)
        query = f"?account={connection.account_key}"
        if data["write_groups"]:
            query += "&write=" + ",".join(data["write_groups"])
        url = reverse("integrations:connect", args=[connection.app]) + query
        if card is None:
            return card_open(
                org=org, kind=Card.Kind.RECONNECT, subject=f"reconnect:{connection.account_key}",
                title=f"Connect {connection.account} again", body=_reconnect_body(connection, data),
                action_label="Connect again", action_url=url, data=data,
            )
        card.data, card.body, card.action_url = data, _reconnect_body(connection, data), url
        card.save(update_fields=["data", "body", "action_url"])
        return card

    return keep(write)


def connection_offer(
    *, org: Organization, app: str, why: str = "", asked_by: Asker | None = None
) -> tuple[Card, bool]:
    """integrations.connect: the card that connects `app`, or connects it again when its only account stopped.

    Returns (card, made): made is False when the card was open already (the asker and why are added to it).
    """
    rows = list(Connection.objects.filter(organization=org, app=app, status__in=(
        Connection.Status.CONNECTED, Connection.Status.NEEDS_RECONNECT)))
    stopped = [c for c in rows if c.status == Connection.Status.NEEDS_RECONNECT]
    if stopped and len(stopped) == len(rows):
        connection = stopped[0]
        open_before = Card.objects.filter(
            organization=org, subject=f"reconnect:{connection.account_key}", resolved_at__isnull=True
        ).exists()
        card = reconnect_card_open(connection=connection, signed_out=True, asked_by=asked_by, why=why)
        return card, not open_before
    return connect_card_open(org=org, app=app, why=why, asked_by=asked_by)


# --- search: the owner's per-account setting ----------------------------------------------------------------------


def connection_search_set(*, org: Organization, account_key: str, on: bool) -> SearchCopy:
    """Turn search on or off for one account of this workspace (another workspace's account is not_found).

    On: the account's copy starts afresh (the search app's sweep copies it within a minute, with progress on
    Connections). Off: search stops finding it at once, and the sweep deletes the copy.
    """
    with transaction.atomic():
        connection = Connection.objects.select_for_update().filter(organization=org, account_key=account_key).first()
        if connection is None or connection.status != Connection.Status.CONNECTED:
            raise ToolError("not_found", "No such connected account in this workspace.")
        copy, _ = SearchCopy.objects.get_or_create(connection=connection)
        if on and not copy.on:
            SearchCopy.objects.filter(pk=copy.pk).update(
                on=True, on_since=timezone.now(), state=SearchCopy.State.WAITING, position={}, copied=0, total=0,
                first_synced_at=None, synced_at=None, error="", claim="", claimed_until=None)
        elif not on and copy.on:
            SearchCopy.objects.filter(pk=copy.pk).update(on=False, state=SearchCopy.State.OFF, claim="",
                                                         claimed_until=None)
        copy.refresh_from_db()
    return copy
