"""What import_ics and import_invoices share: the workspace, and its local connection for the group."""

from __future__ import annotations

from django.core.management.base import CommandError

from core.models import Organization
from integrations.models import Connection
from integrations.services import connection_create_local


def add_arguments(parser, *, what: str) -> None:
    parser.add_argument("file", help=f"The {what} to import.")
    parser.add_argument("--org", help="The workspace, by name; needed when there is more than one.")
    parser.add_argument("--account", help="The local account to import into, by name (default: the first one, "
                                          "made if there is none).")


def workspace(name: str | None) -> Organization:
    rows = Organization.objects.all()
    if name:
        rows = rows.filter(name__iexact=name.strip())
    found = list(rows[:2])
    if not found:
        raise CommandError(f"No workspace named {name!r}." if name else "There is no workspace yet.")
    if len(found) > 1:
        raise CommandError("There is more than one workspace: name one with --org.")
    return found[0]


def local_connection(org: Organization, group: str, account: str | None) -> tuple[Connection, bool]:
    """The workspace's local account serving `group` (by name with `account`), made if there is none."""
    rows = Connection.objects.filter(organization=org, app=Connection.App.LOCAL, status=Connection.Status.CONNECTED)
    found = [c for c in rows if c.serves(group) and (not account or c.account.lower() == account.strip().lower())]
    if found:
        return found[0], False
    name = (account or org.owner_email or org.name).strip()
    return connection_create_local(org=org, account=name, groups=[group]), True
