"""`python manage.py api_token USERNAME [--new]`: make the owner's token for the REST API.

Prints the token alone on stdout, and how to use it on stderr. Only a hash of it is kept, so it is shown this
once: an owner who has one already is told so, and `--new` replaces it (the old one stops working at once).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.models import ApiToken
from api.tokens import api_token_make
from core.http import user_workspace


class Command(BaseCommand):
    help = "Make the REST API token of a workspace's owner, by username; it is shown once."

    def add_arguments(self, parser):
        parser.add_argument("username", help="The owner's username, as they sign in.")
        parser.add_argument("--new", action="store_true", help="Replace the token; the old one stops working.")

    def handle(self, *args, username, new=False, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user is called {username!r}.")
        org = user_workspace(user)
        if org is None:
            raise CommandError(f"{username} owns no workspace; the API is for a workspace's owner.")
        existing = ApiToken.objects.filter(user=user).first()
        if existing is not None and not new:
            raise CommandError(
                f"{username} has a token already (made {existing.created_at:%Y-%m-%d}, starting {existing.hint}). "
                "Roadstar keeps only a hash of it, so it can't be shown again: run again with --new for a new "
                "one (the old one stops working)."
            )
        token = api_token_make(user=user)
        self.stdout.write(token)
        self.stderr.write(
            f"{username} ({org.name}): send the header 'Authorization: Token <the token above>' to /api/. "
            "Keep it now: it is shown only this once. The schema is at /api/schema/."
        )
