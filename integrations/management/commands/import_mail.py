"""`manage.py import_mail PATH…`: mail from .mbox and .eml files (or folders of them) into the local mailbox."""

from __future__ import annotations

import mailbox
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from integrations.local.mailbox import mail_import
from integrations.mail_text import owner_addresses
from integrations.management import local_import


class Command(BaseCommand):
    help = ("Import mail from .mbox and .eml files, or folders of them, into the local mailbox: replies join their "
            "threads, mail from the owner's own addresses is kept as sent, attachments go to the mail folder on disk. "
            "A message already there (by its Message-ID) is skipped, so importing again adds nothing.")

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="The .mbox / .eml files, or folders holding them.")
        parser.add_argument("--org", help="The workspace, by name; needed when there is more than one.")
        parser.add_argument("--account", help="The local account to import into, by name (default: the first one "
                                              "serving mail, made if there is none).")

    def handle(self, *args, **options):
        paths = [Path(p) for p in options["paths"]]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or folder: {', '.join(missing)}.")
        org = local_import.workspace(options["org"])
        connection, made = local_import.local_connection(org, "mail", options["account"])
        try:
            imported, skipped = mail_import(connection, paths, owner=owner_addresses(connection))
        except (OSError, mailbox.Error) as e:
            raise CommandError(f"The mail couldn't be read: {e}") from e
        if made:
            self.stdout.write(f"Made the local mailbox {connection.account} ({connection.account_key}).")
        self.stdout.write(f"{imported} messages imported, {skipped} already there.")
