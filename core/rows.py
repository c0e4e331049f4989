"""Rows written without the ORM's SQL compiler: the writes every step of a turn makes (issue 13).

The ORM builds and compiles each statement afresh, and for a step's small rows that costs more than the
database's own work: a thread's step wrote its usage, its message, its tool call and the call's result, and
took two seqs, each compiled. Here each kind of statement is made once a process and kept, and the values go
through each field's own `pre_save` (auto_now_add) and `get_db_prep_save` (how this database stores a UUID, a
time, JSON), as the ORM's do, so what is written is the same.

What this doesn't do, it leaves to the ORM: a model with pre_save or post_save receivers (they must run), one
with parents, generated fields or database defaults, a value that is an expression, or a database that can't
return the new row's id from its insert.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from django.db import connections, models, transaction
from django.db.models.signals import post_save, pre_save

M = TypeVar("M", bound=models.Model)

_STATEMENTS: dict[tuple, str] = {}
_PLAIN: dict[type[models.Model], bool] = {}


def _plain(model: type[models.Model]) -> bool:
    """Can its rows be written here? The receivers are asked each time (one may be connected after the first
    write); what the model is made of, once."""
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
        return False
    plain = _PLAIN.get(model)
    if plain is None:
        meta = model._meta
        plain = _PLAIN[model] = not (
            meta.parents or meta.proxy or any(f.generated or f.has_db_default() for f in meta.local_concrete_fields)
            or any(f is not meta.auto_field for f in meta.db_returning_fields)
        )
    return plain


def _field(meta, name: str) -> models.Field:
    field = meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise TypeError(f"core.rows: {meta.label}.{name} is not a column")
    return field


def _not_updated(model: type[models.Model]) -> Exception:
    # As the ORM's save(update_fields=...) fails when the row is gone: the model's NotUpdated (Django 6), which
    # the stubs don't know yet.
    return model.NotUpdated("Save with update_fields did not affect any rows.")  # type: ignore[attr-defined]


def _statement(key: tuple, make) -> str:
    sql = _STATEMENTS.get(key)
    if sql is None:
        sql = _STATEMENTS[key] = make()
    return sql


def insert(obj: M, *, using: str = "default") -> M:
    """`obj.save()` of a new row (Model.objects.create), its id read back when the database makes it."""
    model = type(obj)
    connection = connections[using]
    if not _plain(model) or not connection.features.can_return_columns_from_insert:
        obj.save(force_insert=True, using=using)
        return obj
    # As save() does first: a related row not saved yet is refused, and one saved since it was set gives its id.
    obj._prepare_related_fields_for_save(operation_name="save")  # type: ignore[attr-defined]  # (not in the stubs)
    meta = model._meta
    auto = meta.auto_field if getattr(obj, meta.pk.attname) is None else None
    fields = [f for f in meta.local_concrete_fields if f is not auto]
    values = [f.pre_save(obj, add=True) for f in fields]
    if any(hasattr(v, "resolve_expression") for v in values):
        obj.save(force_insert=True, using=using)
        return obj
    params = [f.get_db_prep_save(v, connection) for f, v in zip(fields, values, strict=True)]
    key = ("insert", model, connection.vendor, auto is None)
    sql = _statement(key, lambda: _insert_sql(connection, meta, fields, auto))
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if auto is not None:
            setattr(obj, auto.attname, cursor.fetchone()[0])
    obj._state.adding = False
    obj._state.db = using
    return obj


def _insert_sql(connection, meta, fields, auto) -> str:
    quote = connection.ops.quote_name
    sql = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))})")
    return sql + (f" RETURNING {quote(auto.column)}" if auto is not None else "")


def update_fields(obj: models.Model, names: Sequence[str], *, using: str = "default") -> None:
    """`obj.save(update_fields=names)` of plain values: fails, as the ORM does, when no row was there."""
    model = type(obj)
    if not _plain(model):
        obj.save(update_fields=names, using=using)
        return
    connection = connections[using]
    meta = model._meta
    fields = [_field(meta, name) for name in names]
    values = [f.pre_save(obj, add=False) for f in fields]
    if any(hasattr(v, "resolve_expression") for v in values):
        obj.save(update_fields=names, using=using)
        return
    params = [f.get_db_prep_save(v, connection) for f, v in zip(fields, values, strict=True)]
    params.append(meta.pk.get_db_prep_value(obj.pk, connection))
    sql = _statement(("update", model, connection.vendor, tuple(names)), lambda: _update_sql(connection, meta, fields))
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount == 0:
            raise _not_updated(model)


def _update_sql(connection, meta, fields) -> str:
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s"


def count_up(obj: models.Model, name: str, *, using: str = "default") -> int:
    """`UPDATE … SET name = name + 1 … RETURNING name` for obj's row: the new value, also set on obj. As
    `obj.name = F(name) + 1; obj.save(update_fields=[name])` does, in one statement."""
    model = type(obj)
    connection = connections[using]
    meta = model._meta
    field = _field(meta, name)
    if not _plain(model) or not connection.features.can_return_rows_from_update:
        setattr(obj, field.attname, models.F(field.attname) + 1)
        obj.save(update_fields=[name], using=using)  # the ORM reads the value back with RETURNING
        return getattr(obj, field.attname)

    def make() -> str:
        quote = connection.ops.quote_name
        column = quote(str(field.column))
        return (f"UPDATE {quote(meta.db_table)} SET {column} = {column} + 1 WHERE {quote(str(meta.pk.column))} = %s "
                f"RETURNING {column}")

    sql = _statement(("count_up", model, connection.vendor, name), make)
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, [meta.pk.get_db_prep_value(obj.pk, connection)])
        row = cursor.fetchone()
    if row is None:
        raise _not_updated(model)
    setattr(obj, field.attname, row[0])
    return row[0]


def add_one(model: type[models.Model], name: str, *, pks: Sequence, using: str = "default", **equal) -> int:
    """`model.objects.filter(pk__in=pks, **equal).update(name=F(name) + 1)` for plain equalities: how many rows
    it counted. (A QuerySet's update sends no signals, so there is nothing to leave to the ORM.)"""
    if not pks:
        return 0
    connection = connections[using]
    meta = model._meta
    field = _field(meta, name)
    where = [_field(meta, key) for key in equal]

    def make() -> str:
        quote = connection.ops.quote_name
        column = quote(str(field.column))
        conditions = [f"{quote(str(meta.pk.column))} IN ({', '.join(['%s'] * len(pks))})",
                      *(f"{quote(str(f.column))} = %s" for f in where)]
        return f"UPDATE {quote(meta.db_table)} SET {column} = {column} + 1 WHERE {' AND '.join(conditions)}"

    params = [meta.pk.get_db_prep_value(pk, connection) for pk in pks]
    params += [f.get_db_prep_value(value, connection) for f, value in zip(where, equal.values(), strict=True)]
    sql = _statement(("add_one", model, connection.vendor, name, len(pks), tuple(equal)), make)
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
