"""Read-modify-write without lost updates: read the row again under its lock, inside the transaction that writes it.

A service that merges into a row (a contact's `fields`, a company's `details`, an agent's notes) computes the new
value from the old one. Read outside the write's transaction, two writers both start from the same old value and
the second one's save drops the first one's change. So the read happens inside the transaction, under the row's
lock:

- on PostgreSQL, `SELECT … FOR UPDATE` holds the row until the transaction ends, and a second writer waits there;
- on SQLite, Roadstar's transactions are IMMEDIATE (settings.py): BEGIN takes the database's write lock, so any
  read inside the transaction already comes after the last writer's commit (SELECT … FOR UPDATE doesn't exist
  there, and Django leaves it out).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connections, models, router, transaction
from django.db.models.fields.mixins import FieldCacheMixin
from django.db.models.options import Options

from core import rows


def lock(instance: models.Model) -> None:
    """Read `instance`'s row again into it, under the row's lock: call it first thing inside the transaction that
    will write the row. What the caller had read of it before (related rows it prefetched too) is replaced."""
    model = type(instance)
    using = router.db_for_write(model, instance=instance)
    if not transaction.get_connection(using).in_atomic_block:
        raise RuntimeError(f"lock({model.__name__}) outside a transaction would hold nothing: open one first")
    instance.refresh_from_db(from_queryset=model._base_manager.db_manager(using).select_for_update())


def set_if_unchanged(instance: models.Model, *, values: dict[str, Any], unchanged: Iterable[str]) -> bool:
    """Compare-and-set: write `values` (by field name) into `instance`'s row only if its `unchanged` fields still
    hold what `instance` read (fields of text, numbers or null; not JSON). True when it wrote: the row is then
    under its lock, and read back into `instance` as `lock()` would have read it (the RETURNING of the UPDATE).
    False when the row moved on (or is gone): nothing was written, and the caller locks and reads it again.

    One statement where `lock()` then a save are two, and as sound: the UPDATE's WHERE is evaluated under the
    row's lock (PostgreSQL re-evaluates it on the row a concurrent writer committed; SQLite's IMMEDIATE
    transaction already holds the write lock), so what the caller computed from its read is what was there."""
    model = type(instance)
    meta = model._meta
    using = router.db_for_write(model, instance=instance)
    connection = connections[using]
    if not connection.in_atomic_block:
        raise RuntimeError(f"set_if_unchanged({model.__name__}) outside a transaction: open one first")
    quote = connection.ops.quote_name
    same = "IS NOT DISTINCT FROM" if connection.vendor == "postgresql" else "IS"
    sets, where, params = [], [f"{quote(str(meta.pk.column))} = %s"], []
    for name, value in values.items():
        field = _column(meta, name)
        sets.append(f"{quote(str(field.column))} = %s")
        params.append(field.get_db_prep_save(value, connection))
    params.append(meta.pk.get_db_prep_value(instance.pk, connection))
    for name in unchanged:
        field = _column(meta, name)
        where.append(f"{quote(str(field.column))} {same} %s")
        params.append(field.get_db_prep_value(getattr(instance, field.attname), connection))
    returning = ", ".join(quote(str(f.column)) for f in meta.concrete_fields)
    sql = (f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} WHERE {' AND '.join(where)} "
           f"RETURNING {returning}")
    # A kept statement (prepared on PostgreSQL), the returned row converted as a query's would be (UUIDs, JSON,
    # times), with no ORM compiling: a checked change to a contact runs this every time.
    with rows.kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    if found is None:
        return False
    _read_into(instance, rows.from_row(model, found, using=using))
    return True


def _column(meta: Options[Any], name: str) -> models.Field[Any, Any]:
    field = meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise TypeError(f"set_if_unchanged: {meta.label}.{name} is not a column")
    return field


def _read_into(instance: models.Model, fresh: models.Model) -> None:
    # What refresh_from_db (lock) does with the row it read: every column taken, what was loaded with the old row
    # (prefetched and cached related rows) let go.
    meta = instance._meta
    instance._prefetched_objects_cache = {}  # type: ignore[attr-defined]  # Django's own cache, not in the stubs
    for field in meta.concrete_fields:
        setattr(instance, field.attname, getattr(fresh, field.attname))
        if field.is_relation and isinstance(field, FieldCacheMixin) and field.is_cached(instance):
            field.delete_cached_value(instance)
    for rel in meta.related_objects:
        if rel.is_cached(instance):
            rel.delete_cached_value(instance)
