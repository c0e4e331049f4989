"""`manage.py import_ics FILE`: meetings from an .ics file into the workspace's local calendar."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from integrations.management import local_import
from integrations.providers.local_calendar import ics_import


class Command(BaseCommand):
    help = ("Import meetings from an .ics file into the local calendar (each occurrence of a repeating event within "
            "two years either side of today). Importing the same file again changes nothing.")

    def add_arguments(self, parser):
        local_import.add_arguments(parser, what=".ics file")

    def handle(self, *args, **options):
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        org = local_import.workspace(options["org"])
        with transaction.atomic():  # a file that can't be read leaves no new account behind
            connection, made = local_import.local_connection(org, "calendar", options["account"])
            try:
                outcome = ics_import(connection, path.read_bytes(), time_zone=org.time_zone,
                                     owner=[org.owner_email, connection.account])
            except ValueError as e:
                raise CommandError(f"{path}: {e}") from e
        if made:
            self.stdout.write(f"Made the local calendar {connection.account} ({connection.account_key}).")
        self.stdout.write(f"{path.name}: {outcome.added} meetings added, {outcome.updated} updated, "
                          f"{outcome.unchanged} unchanged.")
