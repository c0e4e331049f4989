"""Snapshots of a record's fields, so Undo restores exactly what was there, or finds that it changed since."""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from django.db import models

from core.errors import ToolError
from core.registry import Registry

if TYPE_CHECKING:
    from core.actors import Actor
    from core.models import Change, Organization


class UndoHandler(Protocol):
    """Undoes one change its tool made, from what the tool kept (`undo_data(change)`); raises a ToolError when it
    can't (the record changed again since)."""

    def __call__(self, *, org: Organization, actor: Actor, change: Change) -> None: ...


@dataclass(frozen=True)
class Undo:
    """How the changes of one tool are undone: `handler(*, org, actor, change)`."""

    tool: str  # the name of the tool whose changes it undoes
    handler: UndoHandler
    # It calls an app (a Drive file, a calendar hold): it runs with no transaction open (core.services.change_undo).
    calls_apps: bool = False


# The tools above register theirs as they are declared (tools.registry), all of them when Django loads the apps, so
# core names none.
UNDOS: Registry[str, Undo] = Registry("undo", Undo, key=lambda undo: undo.tool)


def undo_data(change: Change) -> Any:
    """What a change's undo needs, as its tool wrote it (JSON, whose shape the handler knows: it declares it where
    it reads it). change_undo calls a handler only for a change that has some."""
    if change.undo is None:
        raise ValueError(f"change {change.id} ({change.tool}) has nothing to undo")
    return change.undo


def _jsonable(value: object) -> object:
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal)):  # noqa: TID251 (the type: no text is parsed)
        return str(value)
    return value


def snapshot(instance: models.Model, names: Iterable[str]) -> dict[str, Any]:
    """The named fields as JSON (foreign keys by their id), in the shape `restore` takes back."""
    return {name: _jsonable(getattr(instance, _field(instance, name).attname)) for name in names}


def _field(instance: models.Model, name: str) -> models.Field[Any, Any]:
    """A concrete field of the record (a snapshot never names a reverse relation)."""
    field = instance._meta.get_field(name)
    assert isinstance(field, models.Field), f"{name} is not a field of {type(instance).__name__}"
    return field


def restore(instance: models.Model, *, before: dict[str, Any], after: dict[str, Any], what: str) -> None:
    """Put `before` back, but only if the record still holds `after`: else it changed again, and Undo stops."""
    if snapshot(instance, after.keys()) != after:
        raise ToolError(
            "changed",
            f"{what} changed again since, so Undo would lose that later change; nothing was restored.",
        )
    for name, value in before.items():
        field = _field(instance, name)
        setattr(instance, field.attname, field.to_python(value) if value is not None else None)
    instance.save(update_fields=[_field(instance, n).name for n in before] + _auto_now(instance))


def _auto_now(instance: models.Model) -> list[str]:
    return [f.name for f in instance._meta.concrete_fields if getattr(f, "auto_now", False)]
