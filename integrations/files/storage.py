"""The local files' folder on disk: `ROADSTAR_FILES_ROOT` (a setting or the environment), else var/files beside
the code. Each workspace's files are under <root>/<workspace id>/<account key>/.

Bytes are written once and never overwritten: a write makes a new blob and the file's row points to it, and the
blob it replaced is removed only after the transaction commits. A write that rolls back leaves the row pointing at
the old blob, still there.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.db import transaction

from core.errors import ToolError


def files_root() -> Path:
    return Path(settings.ROADSTAR_FILES_ROOT)


def blob_write(connection, file_id: str, data: bytes, extension: str = "") -> str:
    """Store `data` in a new blob; its path relative to the root."""
    relative = Path(str(connection.organization_id)) / connection.account_key / (
        f"{file_id}-{secrets.token_hex(6)}{extension}"
    )
    path = files_root() / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".part")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return relative.as_posix()


def blob_read(relative: str, *, name: str) -> bytes:
    if not relative:
        return b""
    try:
        return (files_root() / relative).read_bytes()
    except FileNotFoundError as exc:
        raise ToolError(
            "unavailable", f"{name}'s bytes are missing from Roadstar's files folder ({files_root()})."
        ) from exc


def blob_forget(relative: str) -> None:
    """Remove a replaced blob once the write that replaced it is committed."""
    if not relative:
        return

    def remove():
        try:
            (files_root() / relative).unlink()
        except FileNotFoundError:
            pass

    transaction.on_commit(remove)
