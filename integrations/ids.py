"""The ids a tool gives out for an app's items: the account key, a colon, and the app's own id, so an id says which
connected account it came from (`7c41e2d0:19a2c4e07d5b3f18`). The providers make them; the services read them back.
"""

from __future__ import annotations

import re

from core.errors import ToolError
from core.models import Organization
from integrations.models import Connection

_ID = re.compile(r"^([0-9a-f]{8}):(.+)$", re.DOTALL)


def join_id(connection: Connection, rest: str) -> str:
    """The id a tool gives out: the account key, a colon, and the app's own id. `7c41e2d0:19a2c4e07d5b3f18`."""
    return f"{connection.account_key}:{rest}"


def split_id(value: str, *, org: Organization) -> tuple[Connection, str]:
    """The connection an id came from, and the app's own id. Another workspace's or an unknown key is not_found."""
    match = _ID.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ToolError(
            "not_found",
            f"{value!r} isn't an id a tool gave: ids carry their account, like 7c41e2d0:19a2c4e07d5b3f18. Pass ids "
            "exactly as a tool gave them, or search again.",
        )
    key, rest = match.groups()
    connection = Connection.objects.filter(organization=org, account_key=key).first()
    if connection is None:
        raise ToolError("not_found", f"No connected account {key} in this workspace: search for it again.")
    return connection, rest
