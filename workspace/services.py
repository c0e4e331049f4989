"""The workspace's work: runs, the agent's files, files brought in (open) and sent out (files.save, mail's attach).

Every function takes the workspace (`org`) and who acts (`actor`): a run sees that actor's folder and the
workspace's shared folder, and nothing else of this machine.
"""

from __future__ import annotations

import os
from pathlib import PurePosixPath

from django.conf import settings

from core.actors import Actor
from core.errors import ToolError
from integrations.files import content
from integrations.files import services as files_services
from integrations.providers.base import FileData
from integrations.services import Asker
from workspace import folders, sandbox
from workspace.folders import Place

READ_PAGE_LINES = 2_000
READ_MAX_BYTES = 50 * 1024 * 1024  # a text file read from here; bigger ones are for code
_SNIFF_BYTES = 8_192


def place(*, org, actor: Actor) -> Place:
    return folders.place_for(org=org, actor=actor)


# --- bash ------------------------------------------------------------------------------------------------------


def workspace_run(*, org, actor: Actor, command: str, on_call: sandbox.CallHandler | None = None) -> dict:
    """Run a shell command in the actor's folder: the spec's `{calls, tookMs, usage, stopped?, exitCode, output}`."""
    sandbox.require_available()
    where = place(org=org, actor=actor)
    where.ensure()
    # A folder over its cap still runs, with no room to write (the sandbox gives it none): `rm` must always work,
    # or a folder filled past its cap would be stuck for good.
    quota = int(settings.WORKSPACE_FOLDER_BYTES)
    used = folders.folder_bytes([where.folder, where.shared])
    result = sandbox.run(folder=where.folder, shared=where.shared, command=command, uid=where.uid, on_call=on_call)
    answer = {
        "calls": result.calls,
        "tookMs": result.took_ms,
        "usage": result.usage(),
        "exitCode": result.exit_code,
        "output": result.output,
    }
    if result.stopped:
        answer["stopped"] = result.stopped
    if used >= quota:
        answer["output"] = (f"[Your folder and shared held {used:,} bytes when this ran, at or over the "
                            f"workspace's {quota:,}, so nothing could be written: remove files you no longer need "
                            f"(rm), then run again.]\n{result.output}")
    return answer


# --- read, write, edit -----------------------------------------------------------------------------------------


def _is_binary(data: bytes) -> bool:
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def file_read(*, org, actor: Actor, path: str, offset: int | None, limit: int | None) -> dict:
    where = place(org=org, actor=actor)
    target = folders.target(where, path)
    size = folders.file_size(target, raw=path)
    if size > READ_MAX_BYTES:
        return {"path": target.shown, "binary": True, "size": size}
    data = folders.read_bytes(target, raw=path)
    if _is_binary(data):
        return {"path": target.shown, "binary": True, "size": len(data)}
    lines = data.decode("utf-8").splitlines()
    start = offset or 1
    count = limit or READ_PAGE_LINES
    if lines and start > len(lines):
        raise ToolError("bad_input", f"offset: {path!r} has {len(lines)} lines; start at {len(lines)} or before")
    page = lines[start - 1: start - 1 + count]
    end = start - 1 + len(page)
    return {"path": target.shown, "text": "\n".join(page), "totalLines": len(lines),
            "nextOffset": end + 1 if end < len(lines) else None}


def file_write(*, org, actor: Actor, path: str, text: str) -> dict:
    where = place(org=org, actor=actor)
    where.ensure()
    target = folders.target(where, path)
    size = folders.write_bytes(target, text.encode("utf-8"), raw=path)
    return {"path": target.shown, "size": size}


def file_edit(*, org, actor: Actor, path: str, old_text: str, new_text: str) -> dict:
    where = place(org=org, actor=actor)
    target = folders.target(where, path)
    data = folders.read_bytes(target, raw=path, limit=READ_MAX_BYTES)
    if _is_binary(data):
        raise ToolError("bad_input", f"path: {path!r} isn't a text file; change it with code")
    text = data.decode("utf-8")
    found = text.count(old_text)
    if found == 0:
        raise ToolError("bad_input", f"oldText: not found in {target.shown}; read the file and copy the text "
                                     "exactly, spaces and line breaks included")
    if found > 1:
        raise ToolError("bad_input", f"oldText: found {found} times in {target.shown}; it must appear once, so "
                                     "give more of the text around it")
    changed = text.replace(old_text, new_text, 1)
    size = folders.write_bytes(target, changed.encode("utf-8"), raw=path)
    return {"path": target.shown, "size": size}


# --- open: files in --------------------------------------------------------------------------------------------


def _inbox_name(name: str, taken: set[str]) -> str:
    """A file name safe in the inbox (no folders, no dot files), made unique within this one open."""
    clean = PurePosixPath(name.replace("\\", "/")).name.strip().lstrip(".") or "file"
    clean = "".join(ch for ch in clean if ch.isprintable() and ch not in "/\x00")[:200] or "file"
    stem, dot, ext = clean.rpartition(".")
    if not dot:
        stem, ext = clean, ""
    candidate, n = clean, 2
    while candidate in taken:
        candidate = f"{stem} ({n}).{ext}" if ext else f"{clean} ({n})"
        n += 1
    taken.add(candidate)
    return candidate


def files_open(*, org, actor: Actor, asker: Asker, files: list[str], attachments: list[tuple[str | None, str]]
               ) -> dict:
    """Copy Drive files and email attachments into the actor's inbox (/work/inbox); the spec's `{opened}`."""
    if not files and not attachments:
        raise ToolError("bad_input", "files: give Drive files or attachments to open")
    where = place(org=org, actor=actor)
    where.ensure()
    fetched: list[tuple[FileData, str | None]] = []
    for value in files:
        fetched.append(files_services.file_for_workspace(org=org, asker=asker, value=value))
    for email, attachment in attachments:
        fetched.append((files_services.attachment_for_workspace(org=org, asker=asker, email=email,
                                                                attachment=attachment), None))
    opened: list[dict[str, str]] = []
    taken: set[str] = set()
    for data, source in fetched:
        name = _inbox_name(data.name, taken)
        target = folders.target(where, f"/work/inbox/{name}", field="files")
        folders.write_bytes(target, data.data, raw=target.shown, field="files")
        item = {"path": target.shown}
        if source is not None:
            item["from"] = source
        opened.append(item)
    return {"opened": opened}


# --- files out: files.save and mail's attach -------------------------------------------------------------------


def workspace_file(*, org, actor: Actor, path: str, field: str = "workspace") -> FileData:
    """A workspace file's bytes, as files.save and mail's attach take it."""
    where = place(org=org, actor=actor)
    target = folders.target(where, path, field=field)
    data = folders.read_bytes(target, raw=path, field=field, limit=content.MAX_FILE_BYTES)
    return FileData(name=target.name, mime_type=content.mime_of(target.name), data=data)


def workspace_file_save(*, org, actor: Actor, asker: Asker, workspace: str, folder_id: str | None,
                        name: str | None, as_google: bool | None, over: str | None) -> files_services.Outcome:
    data = workspace_file(org=org, actor=actor, path=workspace)
    if as_google and data.mime_type not in (content.XLSX, content.DOCX, content.PPTX, content.CSV):
        raise ToolError("bad_input", f"asGoogle: {os.path.basename(workspace)} isn't an .xlsx, .docx, .pptx or "
                                     ".csv, so it can't become a Google file; leave asGoogle out")
    if as_google and name is None:
        stem, dot, _ = data.name.rpartition(".")
        name = stem if dot else data.name
    return files_services.file_save(org=org, asker=asker, data=data, folder_id=folder_id, name=name,
                                    as_google=bool(as_google), over=over)
