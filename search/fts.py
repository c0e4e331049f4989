"""The full-text index behind one interface: SQLite FTS5 on the embedded default, PostgreSQL's full-text search
when DATABASE_URL is set. Both are literal (no stemming: the `simple` configuration, FTS5's unicode61), and both
take the query as phrases every one of which must match, each phrase quoted, so nothing the user typed is ever
read as the index's own syntax (a stray `"`, `e-mail`, a leading NOT or OR).

The index is kept by the database: on SQLite an external-content FTS5 table over search_searchitem with triggers;
on PostgreSQL a trigger that fills `vector`, with a GIN index. `install(schema_editor)` makes them (migration 0001).
Django remakes a SQLite table to alter it, which drops its triggers: a later migration that alters SearchItem must
call `install_sqlite_triggers` again after it.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import F, FloatField
from django.db.models.expressions import RawSQL

FTS_TABLE = "search_item_fts"
TABLE = "search_searchitem"

_SQLITE_TABLE = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(title, people, body, content='{TABLE}', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')"
)
_SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER search_item_fts_ai AFTER INSERT ON {TABLE} BEGIN
        INSERT INTO {FTS_TABLE}(rowid, title, people, body) VALUES (new.id, new.title, new.people, new.body);
    END""",
    f"""CREATE TRIGGER search_item_fts_ad AFTER DELETE ON {TABLE} BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, people, body)
        VALUES ('delete', old.id, old.title, old.people, old.body);
    END""",
    f"""CREATE TRIGGER search_item_fts_au AFTER UPDATE OF title, people, body ON {TABLE} BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, people, body)
        VALUES ('delete', old.id, old.title, old.people, old.body);
        INSERT INTO {FTS_TABLE}(rowid, title, people, body) VALUES (new.id, new.title, new.people, new.body);
    END""",
]
# Long bodies are indexed up to here on PostgreSQL (a tsvector holds 1 MB); SQLite indexes them whole.
PG_BODY_CHARS = 200_000
_PG = [
    f"""CREATE FUNCTION search_item_vector_update() RETURNS trigger AS $$
    BEGIN
        NEW.vector := setweight(to_tsvector('simple', coalesce(NEW.title, '')), 'A')
            || setweight(to_tsvector('simple', coalesce(NEW.people, '')), 'B')
            || setweight(to_tsvector('simple', left(coalesce(NEW.body, ''), {PG_BODY_CHARS})), 'C');
        RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    f"""CREATE TRIGGER search_item_vector BEFORE INSERT OR UPDATE OF title, people, body ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION search_item_vector_update()""",
    f"CREATE INDEX search_item_vector_gin ON {TABLE} USING gin (vector)",
]


def install_sqlite_triggers(schema_editor) -> None:
    for name in ("ai", "ad", "au"):
        schema_editor.execute(f"DROP TRIGGER IF EXISTS search_item_fts_{name}")
    for sql in _SQLITE_TRIGGERS:
        schema_editor.execute(sql)


def install(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(_SQLITE_TABLE)
        install_sqlite_triggers(schema_editor)
    elif vendor == "postgresql":
        for sql in _PG:
            schema_editor.execute(sql)
    else:
        raise RuntimeError(f"search has no full-text index for {vendor}")


def uninstall(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for name in ("ai", "ad", "au"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS search_item_fts_{name}")
        schema_editor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    elif vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS search_item_vector ON {TABLE}")
        schema_editor.execute("DROP FUNCTION IF EXISTS search_item_vector_update()")
        schema_editor.execute("DROP INDEX IF EXISTS search_item_vector_gin")


# --- querying -------------------------------------------------------------------------------------------------


def _sqlite_query(phrases: list[str]) -> str:
    return " ".join('"' + phrase.replace('"', '""') + '"' for phrase in phrases)


def _pg_query(phrases: list[str]) -> str:
    return " ".join('"' + phrase.replace('"', " ") + '"' for phrase in phrases)


def match(queryset, phrases: list[str]):
    """Only the items where every phrase matches, in title, people or body."""
    if connection.vendor == "postgresql":
        return queryset.filter(vector=SearchQuery(_pg_query(phrases), config="simple", search_type="websearch"))
    return queryset.filter(id__in=RawSQL(
        f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", [_sqlite_query(phrases)]))


def relevance(phrases: list[str]):
    """How well an item matches, higher is better: a title match weighs most, then people, then the body."""
    if connection.vendor == "postgresql":
        return SearchRank(F("vector"), SearchQuery(_pg_query(phrases), config="simple", search_type="websearch"))
    return RawSQL(
        f"(SELECT -bm25({FTS_TABLE}, 10.0, 4.0, 1.0) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s "
        f"AND {FTS_TABLE}.rowid = {TABLE}.id)", [_sqlite_query(phrases)], output_field=FloatField())


def ranked(items, phrases: list[str], start: int, count: int) -> list[tuple[int, str]]:
    """(id, group) of the matches among `items`, best first, from `start`: on SQLite one join of the FTS table
    ordered by bm25 (a bm25 per row in a subquery would run the whole MATCH again for every row)."""
    if connection.vendor == "postgresql":
        ordered = items.annotate(score=relevance(phrases)).order_by("-score", "-date", "-id")
        return list(ordered.values_list("id", "group")[start:start + count])
    inner, params = items.order_by().values("id").query.sql_with_params()
    sql = (f'SELECT {TABLE}.id, {TABLE}."group" FROM {FTS_TABLE} JOIN {TABLE} ON {TABLE}.id = {FTS_TABLE}.rowid '
           f"WHERE {FTS_TABLE} MATCH %s AND {TABLE}.id IN ({inner}) "
           f"ORDER BY bm25({FTS_TABLE}, 10.0, 4.0, 1.0), {TABLE}.date DESC, {TABLE}.id DESC LIMIT %s OFFSET %s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [_sqlite_query(phrases), *params, count, start])
        return [(row[0], row[1]) for row in cursor.fetchall()]
