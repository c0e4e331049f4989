"""Per-workspace tallies for broad searches: how many items (SearchTally) and how many items each person is on
(SearchPeopleTally) in each bucket of source, type, year, dir, bulk and UTC month.

A search whose only filters are type, dir, bulk and dates (or none) would otherwise count every match to give its
exact total and counts: 110,000 items in the "everything" search. The tallies hold the same numbers already summed,
so such a search reads a few thousand tally rows for the whole months inside its date range, and counts only the
items of the two partial months at its ends one by one (bench/PERFORMANCE.md).

The database keeps them, like the full-text index (search/fts.py): triggers on search_searchitem (an item's bucket,
and its people's, follow it when it is written, moved or deleted) and on search_searchperson (the people of
`counted` rows, one per item and address). So nothing that writes or deletes items (the writer, a cascade, a bulk
delete) can leave them wrong. Django remakes a SQLite table to alter it, dropping its triggers: a later migration
altering SearchItem or SearchPerson must call `install_sqlite_triggers` (and fts's) again after it.

Under concurrent writers on PostgreSQL, two transactions adding to the same bucket wait on its row: the copies of
different accounts touch different buckets (source is one of the keys), so the wait is between a copy and a deletion
of that account's own items at most.
"""

from __future__ import annotations

ITEMS = "search_searchitem"
PEOPLE = "search_searchperson"
TALLY = "search_searchtally"
PEOPLE_TALLY = "search_searchpeopletally"
BUCKET = ("organization_id", "source", "type", "year", "month", "dir", "bulk")
PEOPLE_BUCKET = ("organization_id", "month", "source", "type", "year", "dir", "bulk", "address", "name")

_SQLITE_MONTH = "substr({}.date, 1, 7)"
_PG_MONTH = "to_char({}.date AT TIME ZONE 'UTC', 'YYYY-MM')"


def _item_sql(month: str, row: str) -> dict[str, str]:
    """The statements that add an item (`row` is new, old or an alias) to its bucket and take it out again, and the
    same for the people counted on it (its counted SearchPerson rows)."""
    m = month.format(row)
    bucket = (f"organization_id = {row}.organization_id AND source = {row}.source AND type = {row}.type "
              f"AND year = {row}.year AND month = {m} AND dir = {row}.dir AND bulk = {row}.bulk")
    return {
        "add": f"INSERT INTO {TALLY} ({', '.join(BUCKET)}, n) VALUES ({row}.organization_id, {row}.source, "
               f"{row}.type, {row}.year, {m}, {row}.dir, {row}.bulk, 1) "
               f"ON CONFLICT ({', '.join(BUCKET)}) DO UPDATE SET n = {TALLY}.n + 1",
        "take": f"UPDATE {TALLY} SET n = n - 1 WHERE {bucket}",
        "add_people": f"INSERT INTO {PEOPLE_TALLY} ({', '.join(PEOPLE_BUCKET)}, n) SELECT {row}.organization_id, {m}, "
                      f"{row}.source, {row}.type, {row}.year, {row}.dir, {row}.bulk, p.address, p.name, 1 "
                      f"FROM {PEOPLE} p WHERE p.item_id = {row}.id AND p.counted "
                      f"ON CONFLICT ({', '.join(PEOPLE_BUCKET)}) DO UPDATE SET n = {PEOPLE_TALLY}.n + 1",
        "take_people": f"UPDATE {PEOPLE_TALLY} SET n = n - 1 WHERE {bucket} AND (address, name) IN "
                       f"(SELECT p.address, p.name FROM {PEOPLE} p WHERE p.item_id = {row}.id AND p.counted)",
    }


def _person_sql(month: str, row: str, only_if: str = "TRUE") -> dict[str, str]:
    """A counted person added to (or taken from) their item's bucket: nothing when the item is gone (its own
    deletion took its people out already)."""
    m = month.format("i")
    return {
        "add": f"INSERT INTO {PEOPLE_TALLY} ({', '.join(PEOPLE_BUCKET)}, n) SELECT i.organization_id, {m}, i.source, "
               f"i.type, i.year, i.dir, i.bulk, {row}.address, {row}.name, 1 FROM {ITEMS} i "
               f"WHERE i.id = {row}.item_id AND {only_if} "
               f"ON CONFLICT ({', '.join(PEOPLE_BUCKET)}) DO UPDATE SET n = {PEOPLE_TALLY}.n + 1",
        "take": f"UPDATE {PEOPLE_TALLY} SET n = n - 1 WHERE {only_if} AND address = {row}.address "
                f"AND name = {row}.name AND "
                f"(organization_id, month, source, type, year, dir, bulk) = (SELECT i.organization_id, {m}, i.source, "
                f"i.type, i.year, i.dir, i.bulk FROM {ITEMS} i WHERE i.id = {row}.item_id)",
    }


# An item moves bucket only when one of these changes; a re-copy of an unchanged item leaves the tallies alone.
_MOVED = ("source", "type", "year", "date", "dir", "bulk")


def _sqlite_triggers() -> list[str]:
    new, old = _item_sql(_SQLITE_MONTH, "new"), _item_sql(_SQLITE_MONTH, "old")
    pnew, pold = _person_sql(_SQLITE_MONTH, "new", "new.counted"), _person_sql(_SQLITE_MONTH, "old", "old.counted")
    moved = " OR ".join(f"old.{c} IS NOT new.{c}" for c in _MOVED)
    return [
        f"CREATE TRIGGER search_tally_ai AFTER INSERT ON {ITEMS} BEGIN {new['add']}; END",
        f"CREATE TRIGGER search_tally_ad AFTER DELETE ON {ITEMS} BEGIN {old['take']}; {old['take_people']}; END",
        f"CREATE TRIGGER search_tally_au AFTER UPDATE OF {', '.join(_MOVED)} ON {ITEMS} WHEN {moved} BEGIN "
        f"{old['take']}; {old['take_people']}; {new['add']}; {new['add_people']}; END",
        f"CREATE TRIGGER search_people_tally_ai AFTER INSERT ON {PEOPLE} WHEN new.counted BEGIN {pnew['add']}; END",
        f"CREATE TRIGGER search_people_tally_ad AFTER DELETE ON {PEOPLE} WHEN old.counted BEGIN {pold['take']}; END",
        f"CREATE TRIGGER search_people_tally_au AFTER UPDATE OF item_id, address, name, counted ON {PEOPLE} BEGIN "
        f"{pold['take']}; {pnew['add']}; END",
    ]


_SQLITE_NAMES = ("search_tally_ai", "search_tally_ad", "search_tally_au", "search_people_tally_ai",
                 "search_people_tally_ad", "search_people_tally_au")


def _pg() -> list[str]:
    new, old = _item_sql(_PG_MONTH, "NEW"), _item_sql(_PG_MONTH, "OLD")
    pnew, pold = _person_sql(_PG_MONTH, "NEW"), _person_sql(_PG_MONTH, "OLD")
    moved = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in _MOVED)
    return [
        f"""CREATE FUNCTION search_tally_item() RETURNS trigger AS $$
        BEGIN
            IF TG_OP IN ('DELETE', 'UPDATE') THEN {old['take']}; {old['take_people']}; END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN {new['add']}; {new['add_people']}; END IF;
            RETURN NULL;
        END $$ LANGUAGE plpgsql""",
        f"""CREATE TRIGGER search_tally_item AFTER INSERT OR DELETE ON {ITEMS}
        FOR EACH ROW EXECUTE FUNCTION search_tally_item()""",
        f"""CREATE TRIGGER search_tally_item_moved AFTER UPDATE OF {', '.join(_MOVED)} ON {ITEMS}
        FOR EACH ROW WHEN ({moved}) EXECUTE FUNCTION search_tally_item()""",
        f"""CREATE FUNCTION search_tally_person() RETURNS trigger AS $$
        BEGIN
            IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.counted THEN {pold['take']}; END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.counted THEN {pnew['add']}; END IF;
            RETURN NULL;
        END $$ LANGUAGE plpgsql""",
        f"""CREATE TRIGGER search_tally_person AFTER INSERT OR DELETE OR UPDATE OF item_id, address, name, counted
        ON {PEOPLE} FOR EACH ROW EXECUTE FUNCTION search_tally_person()""",
    ]


def _backfill(month: str) -> list[str]:
    """What the triggers would have summed had they always been there: for a database with a copy already."""
    return [
        f"""UPDATE {PEOPLE} SET counted = TRUE WHERE id IN (SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY item_id, address ORDER BY name DESC, id) AS n
            FROM {PEOPLE} WHERE NOT owner AND address <> '') AS ranked WHERE n = 1)""",
        f"""INSERT INTO {TALLY} ({', '.join(BUCKET)}, n)
            SELECT organization_id, source, type, year, {month.format(ITEMS)}, dir, bulk, COUNT(*) FROM {ITEMS}
            GROUP BY organization_id, source, type, year, {month.format(ITEMS)}, dir, bulk""",
        f"""INSERT INTO {PEOPLE_TALLY} ({', '.join(PEOPLE_BUCKET)}, n)
            SELECT i.organization_id, {month.format('i')}, i.source, i.type, i.year, i.dir, i.bulk, p.address, p.name,
            COUNT(*) FROM {PEOPLE} p JOIN {ITEMS} i ON i.id = p.item_id WHERE p.counted
            GROUP BY i.organization_id, {month.format('i')}, i.source, i.type, i.year, i.dir, i.bulk, p.address,
            p.name""",
    ]


def install_sqlite_triggers(schema_editor) -> None:
    for name in _SQLITE_NAMES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
    for sql in _sqlite_triggers():
        schema_editor.execute(sql)


def install(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for sql in _backfill(_SQLITE_MONTH):
            schema_editor.execute(sql)
        install_sqlite_triggers(schema_editor)
    elif vendor == "postgresql":
        for sql in [*_backfill(_PG_MONTH), *_pg()]:
            schema_editor.execute(sql)
    else:
        raise RuntimeError(f"search has no tallies for {vendor}")


def uninstall(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for name in _SQLITE_NAMES:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
    elif vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS search_tally_item ON {ITEMS}")
        schema_editor.execute(f"DROP TRIGGER IF EXISTS search_tally_item_moved ON {ITEMS}")
        schema_editor.execute(f"DROP TRIGGER IF EXISTS search_tally_person ON {PEOPLE}")
        schema_editor.execute("DROP FUNCTION IF EXISTS search_tally_item()")
        schema_editor.execute("DROP FUNCTION IF EXISTS search_tally_person()")
    schema_editor.execute(f"DELETE FROM {TALLY}")
    schema_editor.execute(f"DELETE FROM {PEOPLE_TALLY}")
    schema_editor.execute(f"UPDATE {PEOPLE} SET counted = FALSE")
