"""`manage.py import_invoices FILE`: invoices from a CSV into the workspace's local books."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from integrations.management import local_import
from integrations.providers.local_books import COLUMNS, CsvProblem, csv_import


class Command(BaseCommand):
    help = ("Import invoices from a CSV into the local books: one row per invoice, or one per line with the same "
            "id. Columns by their usual names: " + ", ".join(COLUMNS) + ". Importing it again changes nothing.")

    def add_arguments(self, parser):
        local_import.add_arguments(parser, what="CSV of invoices")

    def handle(self, *args, **options):
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        org = local_import.workspace(options["org"])
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            text = path.read_text(encoding="latin-1")
        with transaction.atomic():  # a file that can't be read leaves no new account behind
            connection, made = local_import.local_connection(org, "books", options["account"])
            try:
                outcome = csv_import(connection, text)
            except CsvProblem as e:
                raise CommandError(f"{path}: {e}") from e
        if made:
            self.stdout.write(f"Made the local books {connection.account} ({connection.account_key}).")
        self.stdout.write(f"{path.name}: {outcome.added} invoices added, {outcome.updated} updated, "
                          f"{outcome.unchanged} unchanged.")
