"""`manage.py import_files FOLDER`: a folder of files into the workspace's local files, its folders kept."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from integrations.management import local_import
from integrations.providers.local_files import LocalFilesProvider
from integrations.providers.registry import provider_for


class Command(BaseCommand):
    help = ("Import a folder of files (.md, .txt, .csv, .xlsx, .docx, .pdf, pictures …) into the local files, with "
            "its folders. Importing it again adds nothing twice: files whose bytes changed are updated.")

    def add_arguments(self, parser):
        parser.add_argument("folder", help="The folder to import.")
        parser.add_argument("--org", help="The workspace, by name; needed when there is more than one.")
        parser.add_argument("--account", help="The local account to import into, by name (default: the first one, "
                                              "made if there is none).")

    def handle(self, *args, **options):
        path = Path(options["folder"])
        if not path.is_dir():
            raise CommandError(f"No folder {path}.")
        org = local_import.workspace(options["org"])
        with transaction.atomic():  # a folder that can't be read leaves no new account behind
            connection, made = local_import.local_connection(org, "files", options["account"])
            try:
                provider = provider_for(connection, "files")
                assert isinstance(provider, LocalFilesProvider)  # local_connection's account is a local one
                outcome = provider.import_path(path)
            except OSError as e:
                raise CommandError(f"{path}: {e}") from e
        if made:
            self.stdout.write(f"Made the local files {connection.account} ({connection.account_key}).")
        self.stdout.write(f"{path.name}: {len(outcome.added)} added, {len(outcome.updated)} updated, "
                          f"{outcome.unchanged} unchanged.")
