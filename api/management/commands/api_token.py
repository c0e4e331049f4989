"""`python manage.py api_token USERNAME [--new]`: the owner's token for the REST API.

Prints the token alone on stdout, and how to use it on stderr. The same token is given again until `--new`
replaces it (the old one stops working at once).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token

from api.permissions import workspace_of


class Command(BaseCommand):
    help = "Make (or show) the REST API token of a workspace's owner, by username."

    def add_arguments(self, parser):
        parser.add_argument("username", help="The owner's username, as they sign in.")
        parser.add_argument("--new", action="store_true", help="Replace the token; the old one stops working.")

    def handle(self, *args, username, new=False, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user is called {username!r}.")
        org = workspace_of(user)
        if org is None:
            raise CommandError(f"{username} owns no workspace; the API is for a workspace's owner.")
        with transaction.atomic():
            if new:
                Token.objects.filter(user=user).delete()
            token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
        self.stderr.write(
            f"{username} ({org.name}): send the header 'Authorization: Token <the token above>' to /api/. "
            "The schema is at /api/schema/."
        )
