"""Writes for the workspace and Home: Undo of a change, and the cards that wait for the owner."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core import crypto, live, rows
from core.actors import Actor
from core.errors import ToolError
from core.inputs import Uuid
from core.model_endpoint import DEFAULT_NAMES, KEY_LIMIT, NAME_LIMIT, URL_LIMIT, endpoint_for
from core.models import Card, Change, ModelEndpoint, Organization
from core.undo import UNDOS, UndoHandler
from core.web_addresses import model_address_refused


def change_record(
    *, org: Organization, actor: Actor, tool: str, kind: str, sentence: str, listing: str, target_type: str = "",
    target_id: str = "", undo: Mapping[str, Any] | None = None, conversation_id: str | None = None,
    work_id: str | None = None, created: bool = False, change_id: Uuid | None = None,
) -> Change:
    """Record a change an agent made: a line on Home's Your work, or behind the record's own log. `created` says
    the target is a record this change brought into being (the check lets the same work change it freely).
    `change_id`: the id a log entry written before it in this transaction points to already."""
    # (a kept statement: every change an agent makes writes one; in a tool's transaction it goes out with the
    # call's result, core.rows.holding_writes)
    change = rows.insert(Change(
        id=change_id if change_id is not None else uuid.uuid4(), organization=org, actor_kind=actor.kind,
        actor_id=actor.id, actor_name=actor.name, tool=tool, kind=kind, sentence=sentence[:500], listing=listing,
        target_type=target_type, target_id=target_id, undo=undo, conversation_id=conversation_id or "",
        work_id=work_id or "", created=created,
    ), held=True)
    live.notify(org.id, "work")  # after commit: the owner's open Home shows the line
    return change


def change_undo(*, org: Organization, change_id: Uuid | str, actor: Actor) -> Change:
    """Undo one change: the tool's own undo restores exactly what was there, and the Undo is recorded too.

    A change in Roadstar's own records is undone in one transaction. One in an app (a Drive file, a calendar hold)
    is undone with no transaction open: the change is claimed first (a conditional write, so two presses undo it
    once), the app is called, and the Undo is recorded after; a failed undo gives the claim back."""
    change = Change.objects.filter(organization=org, id=change_id).first()
    if change is None:
        raise ToolError("not_found", f"No change with id {change_id} in this workspace.")
    declared = UNDOS.get(change.tool)
    if declared is None or not declared.calls_apps:
        with transaction.atomic():
            change = Change.objects.select_for_update().get(id=change.id)
            handler = _undo_handler(change)
            handler(org=org, actor=actor, change=change)
            return _undo_recorded(org, change, actor)
    handler = _undo_handler(change)
    now = timezone.now()
    if not Change.objects.filter(id=change.id, undone_at__isnull=True).update(undone_at=now):
        raise ToolError("changed", "That change was undone already.")
    try:
        handler(org=org, actor=actor, change=change)
    except BaseException:
        Change.objects.filter(id=change.id, undone_at=now, undone_by__isnull=True).update(undone_at=None)
        raise
    with transaction.atomic():
        return _undo_recorded(org, change, actor, at=now)


def _undo_handler(change: Change) -> UndoHandler:
    if change.undoes_id is not None:
        raise ToolError("unsupported", "That line is an Undo already; it can't be undone in turn.")
    if change.undone_at is not None:
        raise ToolError("changed", "That change was undone already.")
    declared = UNDOS.get(change.tool)
    if change.undo is None or declared is None:
        raise ToolError("unsupported", f"{change.tool} has no Undo.")
    return declared.handler


def _undo_recorded(org: Organization, change: Change, actor: Actor, *, at: datetime.datetime | None = None) -> Change:
    undo_record = Change.objects.create(
        organization=org,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_name=actor.name,
        tool=change.tool,
        kind=change.kind,
        sentence=f"undid: {change.sentence}"[:500],
        listing=change.listing,
        target_type=change.target_type,
        target_id=change.target_id,
        undoes=change,
    )
    change.undone_at = at or timezone.now()
    change.undone_by = undo_record
    change.save(update_fields=["undone_at", "undone_by"])
    live.notify(org.id, "work")
    return undo_record


def card_open(
    *, org: Organization, kind: str, subject: str, title: str, body: str = "", action_label: str = "",
    action_url: str = "", data: dict[str, Any] | None = None,
) -> Card:
    """Put a card on Waiting for you, or return the one already open for the same subject."""
    existing = Card.objects.filter(organization=org, subject=subject, resolved_at__isnull=True).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            card = Card.objects.create(
                organization=org, kind=kind, subject=subject, title=title, body=body, action_label=action_label,
                action_url=action_url, data=data or {},
            )
            live.notify(org.id, "cards")
            return card
    except IntegrityError:
        # Another worker opened the same card a moment ago: that one is the card.
        return Card.objects.get(organization=org, subject=subject, resolved_at__isnull=True)


def card_resolve(*, org: Organization, card_id: Uuid | str) -> Card:
    card = Card.objects.filter(organization=org, id=card_id).first()
    if card is None:
        raise ToolError("not_found", f"No card with id {card_id} in this workspace.")
    if card.resolved_at is None:
        card.resolved_at = timezone.now()
        card.save(update_fields=["resolved_at"])
        live.notify(org.id, "cards")
    return card


# --- the AI model, as the owner sets it on Settings ------------------------------------------------------------


def model_endpoint_set(*, org: Organization, base_url: str, api_key: str | None, names: dict[str, str],
                       forget_key: bool = False) -> ModelEndpoint:
    """Save the workspace's model endpoint. `api_key` None (the box left empty) keeps the saved key; `forget_key`
    removes it. The key is stored encrypted (core.crypto) and never read back onto a page. Each error names the
    field. Saving a connected endpoint resolves Home's "Connect a model" card; the next turn uses it (no restart)."""
    base_url = (base_url or "").strip()
    if len(base_url) > URL_LIMIT:
        raise ToolError("bad_input", f"Address: at most {URL_LIMIT} characters (it has {len(base_url)}).")
    if base_url:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolError("bad_input", "Address: an http:// or https:// address, such as "
                                         "https://api.openai.com/v1 or http://localhost:11434/v1.")
        refused = model_address_refused(base_url)
        if refused:
            raise ToolError("bad_input", f"Address: {refused}")
    if api_key is not None:
        api_key = api_key.strip()
        if len(api_key) > KEY_LIMIT:
            raise ToolError("bad_input", f"Key: at most {KEY_LIMIT} characters (it has {len(api_key)}).")
        if any(c.isspace() for c in api_key):
            raise ToolError("bad_input", "Key: a key has no spaces or line breaks in it; paste it again.")
    clean: dict[str, str] = {}
    for model_id in settings.ROADSTAR_MODELS:
        name = " ".join((names.get(model_id) or "").split())
        if len(name) > NAME_LIMIT:
            raise ToolError("bad_input", f"{model_id}: a model name of at most {NAME_LIMIT} characters.")
        clean[model_id] = name or DEFAULT_NAMES[model_id]
    with transaction.atomic():
        endpoint, _ = ModelEndpoint.objects.select_for_update().get_or_create(organization=org)
        endpoint.base_url = base_url
        endpoint.names = clean
        if forget_key:
            endpoint.api_key = ""
        elif api_key:
            endpoint.api_key = crypto.encrypt({"key": api_key})
        endpoint.save()
        if endpoint_for(org) is not None:
            Card.objects.filter(organization=org, kind=Card.Kind.MODEL, resolved_at__isnull=True).update(
                resolved_at=timezone.now()
            )
            live.notify(org.id, "cards")
    return endpoint
