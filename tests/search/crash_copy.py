"""A worker process for the search copy's crash test (test_copy_crash.py), on the database its environment names.

    python -m tests.search.crash_copy setup N        migrate, then a mailbox of N messages with search turned on
    python -m tests.search.crash_copy copy K         copy in batches of 50; with K, die by SIGKILL inside the
                                                     K-th batch's transaction, its items written, not committed
    python -m tests.search.crash_copy copy late      copy once the dead worker's lease has run out
    python -m tests.search.crash_copy report         items copied, distinct keys, and the copy's state

Each prints one JSON line.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import sys


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.test")
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from integrations.local.mailbox import Incoming, message_store
    from integrations.models import Connection, SearchCopy
    from integrations.services import connection_create_local, connection_search_set
    from search import index, sync
    from search.models import SearchItem

    command = argv[0]
    if command == "setup":
        call_command("migrate", verbosity=0)
        from tests.factories import OrganizationFactory

        org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", owner_email="sam@fernhill.test")
        box = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
        start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
        for i in range(int(argv[1])):
            message_store(box, Incoming(
                sender=f"Client {i} <client{i}@clients.test>", to=["sam@fernhill.test"], cc=[],
                subject=f"Order {i}", text=f"Order number ORD-{i} please", date=start + datetime.timedelta(hours=i),
                box="inbox", thread_key=f"t{i // 3}", key=None, attachments=[], message_id="", in_reply_to="",
                references="",
            ))
        connection_search_set(org=org, account_key=box.account_key, on=True)
        print(json.dumps({"ok": True}))
    elif command == "copy":
        box = Connection.objects.get()
        if argv[1:2] == ["late"]:
            SearchCopy.objects.filter(connection=box, claimed_until__lt=timezone.now() + sync.LEASE * 2).update(
                claimed_until=timezone.now() - datetime.timedelta(seconds=1))  # the dead worker's lease is over
        elif argv[1:2]:
            die_in, calls = int(argv[1]), [0]
            real_put = index.put

            def put_then_die(org, entries):
                real_put(org, entries)
                calls[0] += 1
                if calls[0] == die_in:
                    os.kill(os.getpid(), signal.SIGKILL)  # inside the batch's transaction: nothing of it commits

            index.put = put_then_die
        print(json.dumps({"state": sync.copy_run(box, batch=50)}))
    elif command == "report":
        box = Connection.objects.get()
        copy = SearchCopy.objects.get(connection=box)
        keys = list(SearchItem.objects.filter(connection=box).values_list("key", flat=True))
        print(json.dumps({"items": len(keys), "distinct": len(set(keys)), "state": copy.state,
                          "position": copy.position, "claimed": copy.claim != ""}))


if __name__ == "__main__":
    main(sys.argv[1:])
