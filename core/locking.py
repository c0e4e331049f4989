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

from django.db import router, transaction


def lock(instance) -> None:
    """Read `instance`'s row again into it, under the row's lock: call it first thing inside the transaction that
    will write the row. What the caller had read of it before (related rows it prefetched too) is replaced."""
    model = type(instance)
    using = router.db_for_write(model, instance=instance)
    if not transaction.get_connection(using).in_atomic_block:
        raise RuntimeError(f"lock({model.__name__}) outside a transaction would hold nothing: open one first")
    instance.refresh_from_db(from_queryset=model._base_manager.db_manager(using).select_for_update())
