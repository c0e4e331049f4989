"""Rows written and read without the ORM's SQL compiler: the writes every step of a turn makes, and the reads
every turn starts with (issue 13).

The ORM builds and compiles each statement afresh, and for a step's small rows that costs more than the
database's own work: a thread's step wrote its usage, its message, its tool call and the call's result, and
took two seqs, each compiled. Here each kind of statement is made once a process and kept, and the values go
through each field's own `pre_save` (auto_now_add) and `get_db_prep_save` (how this database stores a UUID, a
time, JSON), as the ORM's do, so what is written is the same.

What this doesn't do, it leaves to the ORM: a model with pre_save or post_save receivers (they must run), one
with parents, generated fields or database defaults, a value that is an expression, or a database that can't
return the new row's id from its insert.

Reads (`select`) are what `Model.objects.filter(...)` of plain comparisons gives, every column, with the rows
it names by foreign key joined in as select_related does: the values go in through each field's
`get_db_prep_value`, and come back through the database's and the field's converters, as the ORM's compiler
applies them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from django.db import connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.db.models.options import Options
from django.db.models.signals import post_save, pre_save

M = TypeVar("M", bound=models.Model)
# A column, and a condition on one as the statements here take it: (column, operator, value).
type Column = models.Field[Any, Any]
type Condition = tuple[Column, str, Any]

_STATEMENTS: dict[tuple[Any, ...], str] = {}
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


def _field(meta: Options[Any], name: str) -> Column:
    field = meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise TypeError(f"core.rows: {meta.label}.{name} is not a column")
    return field


def not_updated(model: type[models.Model]) -> Exception:
    # As the ORM's save(update_fields=...) fails when the row is gone: the model's NotUpdated (Django 6), which
    # the stubs don't know yet.
    error: Exception = model.NotUpdated("Save with update_fields did not affect any rows.")  # type: ignore[attr-defined]
    return error


def kept_cursor(connection: BaseDatabaseWrapper) -> CursorWrapper:
    """The cursor a kept statement runs in: on PostgreSQL one whose parameters the server binds, so psycopg prepares
    the statement once it has run `prepare_threshold` times on the connection (roadstar/settings/base.py) and the
    server plans it once, not at every run (the contact a step reads took 0.5 ms to plan and 0.06 to run,
    bench/PERFORMANCE.md); elsewhere, and where the threshold is off, the connection's own cursor. Django's cursor
    (client-side binding, never prepared) stays the one for everything else, so no other query changes. It is
    Django's wrapper either way: its errors, its query log and its execute wrappers are the same."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor  # (psycopg: loaded on PostgreSQL only)

    server_bound = ServerBindingCursor(raw)  # type: ignore[call-arg]  # (the stubs don't know psycopg's)
    made: CursorWrapper = connection._prepare_cursor(server_bound)  # type: ignore[attr-defined]
    return made


def _statement(key: tuple[Any, ...], make: Callable[[], str]) -> str:
    sql = _STATEMENTS.get(key)
    if sql is None:
        sql = _STATEMENTS[key] = make()
    return sql


# A WITH part that makes the statement's own transaction commit without waiting for the disk (PostgreSQL's
# `synchronous_commit` off for it alone: set_config's third argument keeps the setting to the transaction). Used
# only for a statement that commits by itself (autocommit), and only for a row whose loss in a crash of the database
# server (not of a worker: a row committed is there for every other connection at once) costs nothing outside the
# database: each such use says why. A later commit that waits writes this one to disk with it (the log is written
# in order), so such a row is lost only if nothing waited after it.
UNWAITED = "unwaited AS (SELECT set_config('synchronous_commit', 'off', true) AS off)"


def insert(obj: M, *, using: str = "default", wait_for_disk: bool = True, held: bool = False) -> M:
    """`obj.save()` of a new row (Model.objects.create), its id read back when the database makes it.

    `wait_for_disk=False`: on PostgreSQL, a row written in a transaction of its own commits without waiting for
    the disk (UNWAITED); inside a transaction, or elsewhere, it changes nothing.

    `held=True`: a row nothing needs back from the database (its id is made here) waits, inside `holding_writes`,
    to go out with the next statement (see there); anywhere else it is written at once, as without it."""
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
    if held and auto is None and _holds(connection):
        sql = _statement(("insert", model, connection.vendor, True, False),
                         lambda: _insert_sql(connection, meta, fields, None))
        connection._roadstar_held.writes.append((meta.db_table, sql, params))  # type: ignore[attr-defined]
        obj._state.adding = False
        obj._state.db = using
        return obj
    unwaited = not wait_for_disk and connection.vendor == "postgresql" and not connection.in_atomic_block
    key = ("insert", model, connection.vendor, auto is None, unwaited)
    sql = _statement(key, lambda: _insert_sql(connection, meta, fields, auto, unwaited=unwaited))
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        if auto is not None:
            setattr(obj, auto.attname, cursor.fetchone()[0])
    obj._state.adding = False
    obj._state.db = using
    return obj


def _insert_sql(connection: BaseDatabaseWrapper, meta: Options[Any], fields: Sequence[Column],
                auto: Column | None, *, unwaited: bool = False) -> str:
    quote = connection.ops.quote_name
    sql = f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(str(f.column)) for f in fields)}) "
    if unwaited:  # (an INSERT … SELECT types its values by their casts, not by the columns as VALUES does)
        casts = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in fields)
        sql = f"WITH {UNWAITED} {sql}SELECT {casts} FROM unwaited"
    else:
        sql += f"VALUES ({', '.join(['%s'] * len(fields))})"
    return sql + (f" RETURNING {quote(str(auto.column))}" if auto is not None else "")


# --- writes held for the next statement ------------------------------------------------------------------------

class _Held:
    """What `holding_writes` keeps on a connection: the held inserts (their table, SQL and parameters, in the order
    made), and how many savepoints were open when it began."""

    def __init__(self, depth: int):
        self.writes: list[tuple[str, str, list[Any]]] = []
        self.depth = depth


def _savepoints(connection: BaseDatabaseWrapper) -> int:
    # An atomic block with savepoint=False adds None: a failure in it dooms the whole transaction (Django marks it
    # for rollback), so a row held in it goes or is dropped with the rest, as it would have been written.
    return sum(1 for sid in connection.savepoint_ids if sid is not None)


def _holds(connection: BaseDatabaseWrapper) -> bool:
    # A row made inside a savepoint opened since the scope began is written at once: were that savepoint rolled
    # back alone, a held row would still go out.
    held: _Held | None = getattr(connection, "_roadstar_held", None)
    return held is not None and connection.in_atomic_block and _savepoints(connection) == held.depth


@contextlib.contextmanager
def holding_writes(using: str = "default") -> Iterator[None]:
    """Inside a transaction on PostgreSQL: rows inserted with `insert(..., held=True)` wait on the connection and go
    out as data-modifying WITH parts of the next statement, where each was a round trip of its own. In a checked
    change to a contact (tools.pipeline runs every tool in this scope), the check's decision goes with the contact's
    update, and the log entry and the change's record with the call's result: three round trips less.

    Nothing can read them missing. The parts of a WITH all see the statement's starting snapshot, so a statement
    that names a held row's table, or one that can't take a WITH (a savepoint, an executemany, one without
    parameters, a server-side cursor's), has the held rows written by themselves first; an execute wrapper
    (Django's: every statement on the connection passes through it) sees to both. What is still held when the
    block ends is written then, inside the transaction, before its commit. On an error the held rows are dropped
    with the transaction they were part of. The foreign keys are checked at commit (Django makes them DEFERRABLE
    INITIALLY DEFERRED), so the order of the parts doesn't matter. Elsewhere (SQLite, no transaction open, a scope
    already open) it changes nothing."""
    connection = connections[using]
    if (connection.vendor != "postgresql" or not connection.in_atomic_block
            or getattr(connection, "_roadstar_held", None) is not None):
        yield
        return
    held = _Held(_savepoints(connection))

    def with_held_rows(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if held.writes:
            # (a server-side cursor, as QuerySet.iterator() opens: DECLARE refuses a WITH that writes)
            named = getattr(getattr(context.get("cursor"), "cursor", None), "name", None)
            if many or named or not isinstance(params, list | tuple) or not _takes_held(sql, held):
                _write_held(connection, held)
            else:
                parts, held_params = _held_parts(held)
                sql, params = _with(parts, sql), [*held_params, *params]
        return execute(sql, params, many, context)

    connection._roadstar_held = held  # type: ignore[attr-defined]
    connection.execute_wrappers.append(with_held_rows)
    try:
        yield
        if held.writes and not connection.needs_rollback:  # (a doomed transaction rolls back: nothing to write)
            _write_held(connection, held)
    finally:
        connection.execute_wrappers.remove(with_held_rows)
        connection._roadstar_held = None  # type: ignore[attr-defined]


_TAKES_A_WITH = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH ")


def _takes_held(sql: str, held: _Held) -> bool:
    """Whether the statement can carry the held rows: one a WITH can start (not a recursive one, whose RECURSIVE
    must come first) that names none of their tables (it would read them missing, and by name is enough: every
    statement here names its tables, and a name found in a string only makes the rows go out by themselves)."""
    head = sql.lstrip()[:15].upper()
    return (head.startswith(_TAKES_A_WITH) and not head.startswith("WITH RECURSIVE")
            and not any(table in sql for table, _, _ in held.writes))


def _held_parts(held: _Held) -> tuple[list[str], list[Any]]:
    writes, held.writes = held.writes, []  # (taken first: the statement passes through the wrapper too)
    return [f"held{i} AS ({sql})" for i, (_, sql, _) in enumerate(writes)], [p for *_, each in writes for p in each]


def _with(parts: list[str], sql: str) -> str:
    sql = sql.lstrip()
    if sql[:5].upper() == "WITH ":
        return f"WITH {', '.join(parts)}, {sql[5:]}"
    return f"WITH {', '.join(parts)} {sql}"


def _write_held(connection: BaseDatabaseWrapper, held: _Held) -> None:
    if len(held.writes) == 1:
        _, sql, params = held.writes.pop()
    else:
        parts, params = _held_parts(held)
        sql = _with(parts, "SELECT 1")
    with transaction.mark_for_rollback_on_error(connection.alias), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)


def insert_parts(obj: models.Model, connection: BaseDatabaseWrapper, *,
                 given: dict[str, str] | None = None) -> tuple[str, str, list[Any]]:
    """One new row of a plain model for an `INSERT INTO table (columns) SELECT values …` written out elsewhere (a
    statement of several writes): its columns, its values as SQL (`CAST(%s AS type)` each, or the SQL `given` for
    a field by name, such as a column of the statement's own WITH), and their parameters, prepared as `insert`
    prepares them. The auto id is left to the database. (The SQL is made once a process for each model.)"""
    model = type(obj)
    if not _plain(model):
        raise TypeError(f"core.rows: {model._meta.label} has receivers or parts the ORM must write")
    given = given or {}
    key = ("parts", model, connection.vendor, tuple(sorted(given.items())))
    made = _PARTS.get(key)
    if made is None:
        quote = connection.ops.quote_name
        meta = model._meta
        fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field]
        values = [given[f.name] if f.name in given else f"CAST(%s AS {f.db_type(connection)})" for f in fields]
        made = _PARTS[key] = (", ".join(quote(str(f.column)) for f in fields), ", ".join(values),
                              [f for f in fields if f.name not in given])
    columns, values_sql, bound = made
    params = []
    for f in bound:
        value = f.pre_save(obj, add=True)
        if hasattr(value, "resolve_expression"):
            raise TypeError(f"core.rows: {model._meta.label}.{f.name} is an expression")
        params.append(f.get_db_prep_save(value, connection))
    return columns, values_sql, params


_PARTS: dict[tuple[Any, ...], tuple[str, str, list[Column]]] = {}


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
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount == 0:
            raise not_updated(model)


def _update_sql(connection: BaseDatabaseWrapper, meta: Options[Any], fields: Sequence[Column]) -> str:
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(str(f.column))} = %s" for f in fields)
    return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(str(meta.pk.column))} = %s"


def count_up(obj: models.Model, name: str, *, using: str = "default", fence: tuple[str, Any] | None = None) -> int:
    """`UPDATE … SET name = name + 1 … RETURNING name` for obj's row: the new value, also set on obj. As
    `obj.name = F(name) + 1; obj.save(update_fields=[name])` does, in one statement.

    `fence`, (column, value): the row counts up only while that column holds that value (a turn's lease token),
    else the model's NotUpdated, as for a row that is gone: the check costs no statement of its own."""
    model = type(obj)
    connection = connections[using]
    meta = model._meta
    field = _field(meta, name)
    if fence is not None:
        fence_field = _field(meta, fence[0])
        if not connection.features.can_return_rows_from_update:
            if not model._default_manager.filter(pk=obj.pk, **{fence_field.attname: fence[1]}).update(
                    **{field.attname: models.F(field.attname) + 1}):
                raise not_updated(model)
            value: int = model._default_manager.filter(pk=obj.pk).values_list(field.attname, flat=True).get()
            setattr(obj, field.attname, value)
            return value
    if fence is None and (not _plain(model) or not connection.features.can_return_rows_from_update):
        setattr(obj, field.attname, models.F(field.attname) + 1)
        obj.save(update_fields=[name], using=using)  # the ORM reads the value back with RETURNING
        counted: int = getattr(obj, field.attname)
        return counted

    def make() -> str:
        quote = connection.ops.quote_name
        column = quote(str(field.column))
        fenced = f" AND {quote(str(fence_field.column))} = %s" if fence is not None else ""
        return (f"UPDATE {quote(meta.db_table)} SET {column} = {column} + 1 WHERE {quote(str(meta.pk.column))} = %s"
                f"{fenced} RETURNING {column}")

    sql = _statement(("count_up", model, connection.vendor, name, fence[0] if fence else None), make)
    params = [meta.pk.get_db_prep_value(obj.pk, connection)]
    if fence is not None:
        params.append(fence_field.get_db_prep_value(fence[1], connection))
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise not_updated(model)
    setattr(obj, field.attname, row[0])
    return int(row[0])


def insert_numbered(obj: M, number: str, counter: models.Model, name: str, *, fence: tuple[str, Any] | None = None,
                    past: tuple[int, str, Any] | None = None, using: str = "default") -> M:
    """Insert `obj` numbered by `counter`'s count: its `number` is `count_up(counter, name, fence=fence) - 1`, as
    a message takes its conversation's next seq. On PostgreSQL in one statement (the counter's UPDATE in a WITH,
    the INSERT selecting from it: one round trip where the two are two), elsewhere the two; the counter's row is
    locked to the commit either way, and a fence that doesn't hold inserts nothing and raises the counter model's
    NotUpdated, as count_up does.

    `past`, (limit, a field's name, a value): the row is written with that value in that field instead when the
    number taken is past `limit` (what a step's message keeps depends on the seq it takes)."""
    model = type(obj)
    connection = connections[using]
    meta, counter_meta = model._meta, type(counter)._meta
    if connection.vendor != "postgresql" or not _plain(model) or meta.pk.attname == number:
        return _insert_numbered_apart(obj, number, counter, name, fence=fence, past=past, using=using)
    obj._prepare_related_fields_for_save(operation_name="save")  # type: ignore[attr-defined]  # (not in the stubs)
    auto = meta.auto_field if getattr(obj, meta.pk.attname) is None else None
    fields = [f for f in meta.local_concrete_fields if f is not auto]
    numbered = _field(meta, number)
    varied = _field(meta, past[1]) if past is not None else None
    values = [None if f is numbered else f.pre_save(obj, add=True) for f in fields]
    if any(hasattr(v, "resolve_expression") for v in values):
        return _insert_numbered_apart(obj, number, counter, name, fence=fence, past=past, using=using)
    count = _field(counter_meta, name)
    fence_field = _field(counter_meta, fence[0]) if fence is not None else None

    def make() -> str:
        quote = connection.ops.quote_name
        column = quote(str(count.column))
        fenced = f" AND {quote(str(fence_field.column))} = %s" if fence_field is not None else ""
        chosen = []
        for f in fields:
            cast = f"CAST(%s AS {f.db_type(connection)})"
            if f is numbered:
                chosen.append("counted.n")
            elif f is varied:
                chosen.append(f"CASE WHEN counted.n > %s THEN {cast} ELSE {cast} END")
            else:
                chosen.append(cast)
        returning = ", ".join(quote(str(f.column)) for f in (auto, numbered) if f is not None)
        return (f"WITH counted AS (UPDATE {quote(counter_meta.db_table)} SET {column} = {column} + 1 "
                f"WHERE {quote(str(counter_meta.pk.column))} = %s{fenced} RETURNING {column} - 1 AS n) "
                f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(str(f.column)) for f in fields)}) "
                f"SELECT {', '.join(chosen)} FROM counted RETURNING {returning}")

    key = ("insert_numbered", model, number, type(counter), name, fence[0] if fence else None,
           past[1] if past else None, auto is None)
    sql = _statement(key, make)
    params = [counter_meta.pk.get_db_prep_value(counter.pk, connection)]
    if fence_field is not None:
        params.append(fence_field.get_db_prep_value(fence[1], connection))  # type: ignore[index]
    for f, value in zip(fields, values, strict=True):
        if f is numbered:
            continue
        if f is varied:
            params += [past[0], f.get_db_prep_save(past[2], connection)]  # type: ignore[index]
        params.append(f.get_db_prep_save(value, connection))
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise not_updated(type(counter))
    taken = row[-1]
    setattr(obj, numbered.attname, taken)
    if auto is not None:
        setattr(obj, auto.attname, row[0])
    if varied is not None and taken > past[0]:  # type: ignore[index]
        setattr(obj, varied.attname, past[2])  # type: ignore[index]
    setattr(counter, count.attname, taken + 1)
    obj._state.adding = False
    obj._state.db = using
    return obj


def _insert_numbered_apart(obj: M, number: str, counter: models.Model, name: str, *,
                           fence: tuple[str, Any] | None, past: tuple[int, str, Any] | None, using: str) -> M:
    taken = count_up(counter, name, using=using, fence=fence) - 1
    setattr(obj, _field(type(obj)._meta, number).attname, taken)
    if past is not None and taken > past[0]:
        setattr(obj, _field(type(obj)._meta, past[1]).attname, past[2])
    return insert(obj, using=using)


def add_one(model: type[models.Model], name: str, *, pks: Sequence[Any], using: str = "default", **equal: Any) -> int:
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
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        changed: int = cursor.rowcount
        return changed


# --- reads ------------------------------------------------------------------------------------------------------

# The comparisons a select's conditions may make: (a field's attname, one of these, the value).
_OPERATORS = {"=": "=", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "in": "IN", "is null": "IS NULL"}


def select(model: type[M], where: Sequence[tuple[str, str, Any]], *, order_by: Sequence[str] = (),
           related: Sequence[str] = (), limit: int | None = None, using: str = "default") -> list[M]:
    """`model.objects.select_related(*related).filter(...).order_by(*order_by)[:limit]`, every column, where each
    condition is (attname, operator, value) and all must hold: `("conversation_id", "=", conversation.pk)`,
    `("seq", ">=", 12)`, `("id", "in", ids)`, `("closed_at", "is null", True)`. `order_by` names attnames, "-"
    first for descending; `related` names foreign keys that can't be null, their rows joined in and cached on
    each row as select_related caches them. A model instance given as a value stands for its primary key. The
    rows come in no order but the one asked for (the model's Meta.ordering is not applied)."""
    connection = connections[using]
    meta = model._meta
    conditions = [(_field_of(meta, name), _OPERATORS[op], value) for name, op, value in where]
    joined = [_join_of(meta, name) for name in related]
    shape = tuple((f.attname, op, len(v) if op == "IN" else bool(v) if op == "IS NULL" else None)
                  for f, op, v in conditions)
    key = ("select", model, connection.vendor, shape, tuple(order_by), tuple(related), limit)
    made = _READS.get(key)
    if made is None:
        made = _READS[key] = _select_statement(connection, meta, conditions, joined, order_by, limit)
    if any(op == "IN" and not value for _, op, value in conditions):
        return []  # as the ORM: an empty IN matches nothing, and asks nothing
    sql, converters = made
    params = _where_params(conditions, connection)
    with kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    models_read: list[tuple[Any, Any]] = [(model, meta.concrete_fields), *(
        (f.related_model, f.related_model._meta.concrete_fields) for f in joined)]
    out = []
    for values in found:
        values = list(values)
        for at, convs, expression in converters:
            value = values[at]
            for converter in convs:
                value = converter(value, expression, connection)
            values[at] = value
        at = 0
        objects = []
        for each, fields in models_read:
            objects.append(each.from_db(using, [f.attname for f in fields], values[at:at + len(fields)]))
            at += len(fields)
        for field, pointed in zip(joined, objects[1:], strict=True):
            field.set_cached_value(objects[0], pointed)
        out.append(objects[0])
    return out


_READS: dict[tuple[Any, ...], tuple[str, list[Any]]] = {}
_CONVERTERS: dict[tuple[Any, ...], list[tuple[int, list[Any], Any]]] = {}


def from_row(model: type[M], values: Sequence[Any], *, using: str = "default") -> M:
    """A row of every column of `model`, in its concrete fields' order (what a statement of one's own returned: an
    UPDATE's RETURNING), made an instance as the ORM's compiler makes one: each value through the database's and
    the field's converters (UUIDs, JSON, times)."""
    connection = connections[using]
    meta = model._meta
    key = (model, connection.vendor)
    converters = _CONVERTERS.get(key)
    if converters is None:
        converters = _CONVERTERS[key] = []
        for at, field in enumerate(meta.concrete_fields):
            expression = field.get_col(meta.db_table)
            convs = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
            if convs:
                converters.append((at, convs, expression))
    row = list(values)
    for at, convs, expression in converters:
        value = row[at]
        for converter in convs:
            value = converter(value, expression, connection)
        row[at] = value
    return model.from_db(using, [f.attname for f in meta.concrete_fields], row)


def update(model: type[models.Model], where: Sequence[tuple[str, str, Any]], *, using: str = "default",
           **values: Any) -> int:
    """`model.objects.filter(...).update(**values)` for plain values (no expressions), the conditions as `select`
    takes them: how many rows it changed. (A QuerySet's update sends no signals: nothing is left to the ORM.)"""
    connection = connections[using]
    meta = model._meta
    conditions = [(_field_of(meta, name), _OPERATORS[op], value) for name, op, value in where]
    setting = [_field(meta, name) for name in values]
    if any(op == "IN" and not value for _, op, value in conditions):
        return 0
    shape = tuple((f.attname, op, len(v) if op == "IN" else bool(v) if op == "IS NULL" else None)
                  for f, op, v in conditions)
    key = ("update_where", model, connection.vendor, shape, tuple(values))

    def make() -> str:
        quote = connection.ops.quote_name
        sets = ", ".join(f"{quote(str(f.column))} = %s" for f in setting)
        return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {_where_sql(connection, conditions, alias=None)}"

    sql = _statement(key, make)
    if any(hasattr(v, "resolve_expression") for v in values.values()):
        raise TypeError("core.rows.update: plain values only (an expression is the ORM's update)")
    params = [f.get_db_prep_save(v, connection) for f, v in zip(setting, values.values(), strict=True)]
    params += _where_params(conditions, connection)
    with transaction.mark_for_rollback_on_error(using), kept_cursor(connection) as cursor:
        cursor.execute(sql, params)
        changed: int = cursor.rowcount
        return changed


def _where_sql(connection: BaseDatabaseWrapper, conditions: Sequence[Condition], *, alias: str | None) -> str:
    quote = connection.ops.quote_name
    wheres = []
    for field, op, value in conditions:
        column = f"{alias}.{quote(str(field.column))}" if alias else quote(str(field.column))
        if op == "IN":
            wheres.append(f"{column} IN ({', '.join(['%s'] * len(value))})")
        elif op == "IS NULL":
            wheres.append(f"{column} IS NULL" if value else f"{column} IS NOT NULL")
        else:
            wheres.append(f"{column} {op} %s")
    return " AND ".join(wheres) if wheres else "1 = 1"


def _where_params(conditions: Sequence[Condition], connection: BaseDatabaseWrapper) -> list[Any]:
    params: list[Any] = []
    for field, op, value in conditions:
        if op == "IN":
            params += [_prep(field, v, connection) for v in value]
        elif op != "IS NULL":
            params.append(_prep(field, value, connection))
    return params


def _field_of(meta: Options[Any], attname: str) -> Column:
    for field in meta.concrete_fields:
        if field.attname == attname:
            return field
    raise TypeError(f"core.rows: {meta.label} has no column {attname!r}")


def _join_of(meta: Options[Any], name: str) -> models.ForeignKey[Any, Any]:
    field = meta.get_field(name)
    if not isinstance(field, models.ForeignKey) or field.null:
        raise TypeError(f"core.rows: {meta.label}.{name} is not a foreign key that can't be null")
    return field


def _prep(field: models.Field[Any, Any], value: object, connection: BaseDatabaseWrapper) -> object:
    if isinstance(value, models.Model):
        value = value.pk
    return field.get_db_prep_value(value, connection, prepared=False)


def _select_statement(connection: BaseDatabaseWrapper, meta: Options[Any], conditions: Sequence[Condition],
                      joined: Sequence[models.ForeignKey[Any, Any]], order_by: Sequence[str],
                      limit: int | None) -> tuple[str, list[Any]]:
    quote = connection.ops.quote_name
    tables = [("t0", meta), *((f"t{i + 1}", f.related_model._meta) for i, f in enumerate(joined))]
    columns: list[str] = []
    converters: list[tuple[int, list[Any], Any]] = []
    for alias, each in tables:
        for field in each.concrete_fields:
            expression = field.get_col(alias)
            convs = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
            if convs:
                converters.append((len(columns), convs, expression))
            columns.append(f"{alias}.{quote(str(field.column))}")
    sql = f"SELECT {', '.join(columns)} FROM {quote(meta.db_table)} t0"
    for (alias, each), field in zip(tables[1:], joined, strict=True):
        sql += (f" JOIN {quote(each.db_table)} {alias} ON {alias}.{quote(str(each.pk.column))} = "
                f"t0.{quote(str(field.column))}")
    if conditions:
        sql += " WHERE " + _where_sql(connection, conditions, alias="t0")
    if order_by:
        sql += " ORDER BY " + ", ".join(
            f"t0.{quote(str(_field_of(meta, name.lstrip('-')).column))}{' DESC' if name.startswith('-') else ' ASC'}"
            for name in order_by)
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return sql, converters
