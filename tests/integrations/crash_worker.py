"""A worker process for the crash test (test_mail_hold_crash.py), on the database its environment names.

    python -m tests.integrations.crash_worker setup N     migrate, then hold N emails (due now), one account
    python -m tests.integrations.crash_worker sweep       the minute's sweep, as the worker runs it
    python -m tests.integrations.crash_worker sweep late K  the sweep once K dead workers' leases are over
    python -m tests.integrations.crash_worker report      each email's state, the open cards, the sent copies

Each prints one JSON line. The test kills `sweep` with SIGKILL while the SMTP server holds it after the hand-off.
"""

from __future__ import annotations

import datetime
import json
import os
import sys


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.test")
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from core.actors import Actor
    from core.models import Card
    from integrations import mail_hold
    from integrations.local.models_mail import HeldEmail, LocalMailMessage
    from integrations.mail_service import Outgoing, mail_provider
    from integrations.services import connection_create_local

    command = argv[0]
    if command == "setup":
        call_command("migrate", verbosity=0)
        from tests.factories import OrganizationFactory

        org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", owner_email="sam@fernhill.test")
        box = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
        start = timezone.now() - mail_hold.HOLD - datetime.timedelta(minutes=1)
        ids = []
        for i in range(int(argv[1])):
            outgoing = Outgoing(box, mail_provider(box), None, None, [f"client{i}@clients.test"], [], [])
            held, _, _ = mail_hold.email_hold(
                org=org, actor=Actor.system(), conversation_id=None, outgoing=outgoing, subject=f"Email {i}",
                text=f"Hello {i}", signature=False, now=start + datetime.timedelta(milliseconds=i),
            )
            ids.append(held.message_id)
        print(json.dumps({"message_ids": ids}))
    elif command == "sweep":
        now = timezone.now()
        if argv[1:2] == ["late"]:  # `late K`: K leases on, past the claims of K workers killed one after another
            now += int(argv[2]) * (mail_hold.LEASE + datetime.timedelta(seconds=1))
        print(json.dumps({"sent": mail_hold.email_sweep(now=now)}))
    elif command == "report":
        print(json.dumps({
            "states": dict(HeldEmail.objects.values_list("message_id", "state")),
            "asked": sorted(
                Card.objects.filter(resolved_at__isnull=True, data__unsure=True).values_list("data__held_email_id",
                                                                                               flat=True)
            ),
            "unsure_ids": sorted(str(i) for i in HeldEmail.objects.filter(state="unsure").values_list("id", flat=True)),
            "sent_copies": LocalMailMessage.objects.filter(box="sent").count(),
        }))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
