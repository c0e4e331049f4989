"""`python manage.py mcp_token --agent NAME [--org ORG_NAME] [--name NAME]`: make a connection token.

Prints the token alone on stdout (it is shown only now), and how to connect on stderr.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from agents.services import agent_by_name
from core.errors import ToolError
from core.models import Organization
from mcp_server.addresses import mcp_url
from mcp_server.services import mcp_token_make


class Command(BaseCommand):
    help = "Make a connection token with which an outside AI app or a Mac program signs in to /mcp as one agent."

    def add_arguments(self, parser):
        parser.add_argument("--agent", required=True, help="The agent the app works as, by name.")
        parser.add_argument("--org", help="The workspace, by name; needed when there is more than one.")
        parser.add_argument("--name", default="Made on the command line", help="What the token is for.")

    def handle(self, *args, agent, org=None, name, **options):
        workspace = self._workspace(org)
        try:
            row, plaintext = mcp_token_make(org=workspace, agent=agent_by_name(org=workspace, name=agent), name=name)
        except ToolError as error:
            raise CommandError(error.message) from error
        self.stdout.write(plaintext)
        self.stderr.write(
            f"{row.agent.name} in {workspace.name}: connect to {mcp_url()} with the header "
            "'Authorization: Bearer <the token above>'. It isn't shown again."
        )

    @staticmethod
    def _workspace(name: str | None) -> Organization:
        if name:
            found = Organization.objects.filter(name__iexact=name.strip()).first()
            if found is None:
                raise CommandError(f"No workspace called {name!r}. There are: {_names()}.")
            return found
        workspaces = list(Organization.objects.all()[:2])
        if not workspaces:
            raise CommandError("There is no workspace yet.")
        if len(workspaces) > 1:
            raise CommandError(f"Say which workspace with --org. There are: {_names()}.")
        return workspaces[0]


def _names() -> str:
    return ", ".join(Organization.objects.order_by("name").values_list("name", flat=True))
