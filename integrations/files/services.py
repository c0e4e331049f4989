"""The files tools' work, the same on every app: which account an id or a Drive link is in, search across the
owner's accounts, reading files as text, tabs or pictures, every write with what its Undo needs, and Undo.

Writes return an `Outcome`: the tool's result, the sentence Home shows, the full id of the file it acted on (so
the check can tell what this same piece of work made) and the Change's undo, `{"connection": <id>, "provider":
<the provider's own undo data>}`; `file_change_undo` gives that back to the same account's provider.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import json
from dataclasses import dataclass
from typing import Any

from core.errors import ToolError
from core.owner_zone import owner_time
from integrations.errors import failure
from integrations.files import content, sheets
from integrations.files.content import GOOGLE_SHEET, PAGE_CHARS
from integrations.ids import split_id
from integrations.models import Connection
from integrations.providers.base import FileData, FileMeta, FilesProvider
from integrations.providers.registry import provider_class, provider_for
from integrations.selectors import connections_for, require_connection
from integrations.services import Asker

FOLDER_PAGE = 50
EVENT_TEXT_CHARS = 4_000


@dataclass
class Ref:
    """A file as a tool names it: its account, that account's provider, and the app's own id."""

    connection: Connection
    provider: FilesProvider
    local_id: str
    _meta: FileMeta | None = None

    @property
    def id(self) -> str:
        return self.provider.global_id(self.local_id)

    def get(self) -> FileMeta:
        if self._meta is None:
            self._meta = self.provider.get(self.local_id)
        return self._meta


@dataclass
class Outcome:
    result: dict
    sentence: str
    target_id: str
    undo: dict | None
    # The file it names is one this write made (a copy, a new doc, sheet, folder or saved attachment), not one
    # that was there: only such a file is the piece of work's own to change without the owner's yes.
    created: bool = False


def _provider(connection: Connection) -> FilesProvider:
    return provider_for(connection, "files")


def _is_link(value: str) -> bool:
    return value.startswith(("http://", "https://", "/files/"))


def file_ref(*, org, value: str, asker: Asker | None, write: bool = False) -> Ref:
    """The file an id or a pasted link names. Another workspace's or an unknown id: not_found."""
    value = value.strip()
    if _is_link(value):
        return _ref_from_link(org=org, link=value, asker=asker, write=write)
    connection, local_id = split_id(value, org=org)
    connection = require_connection(org=org, group="files", account_key=connection.account_key, write=write,
                                    asked_by=asker)
    return Ref(connection, _provider(connection), local_id)


def _ref_from_link(*, org, link: str, asker, write: bool) -> Ref:
    # A Drive link doesn't say which of the owner's accounts it is in: ask each account that reads such links.
    first_error, parsed = None, False
    for connection in connections_for(org=org, group="files", include_stopped=True):
        cls = provider_class(connection.app, "files")
        local_id = cls.id_from_link(link) if cls is not None else None
        if local_id is None:
            continue
        parsed = True
        try:
            live = require_connection(org=org, group="files", account_key=connection.account_key, write=write,
                                      asked_by=asker)
            ref = Ref(live, _provider(live), local_id)
            ref.get()
            return ref
        except ToolError as error:
            if error.kind != "not_found" and first_error is None:
                first_error = error
    if first_error is not None:
        raise first_error
    if not parsed:
        raise ToolError("not_found", "That link isn't a link to a file in the owner's connected files. Pass an id "
                                     "from search, or search for the file.")
    raise ToolError("not_found", "No connected account has the file at that link, or it was moved or trashed: "
                                 "search for it.")


def _destination(*, org, asker, value: str | None, field: str,
                 connection: Connection | None = None) -> tuple[Connection, str | None]:
    """Where a write puts a file: the folder's account and the folder's own id, or, with no folder given, the
    account given (else the oldest files account that may write) and no folder. A folder must be in `connection`."""
    if value is None:
        return connection or require_connection(org=org, group="files", write=True, asked_by=asker), None
    folder = file_ref(org=org, value=value, asker=asker, write=True)
    if connection is not None and folder.connection.pk != connection.pk:
        raise ToolError("bad_input", f"{field}: that folder is in {folder.connection.account}, not in "
                                     f"{connection.account} where this is; use a folder of the same account")
    if folder.get().kind != "folder":
        raise ToolError("bad_input", f"{field}: {folder.get().name} is a file, not a folder")
    return folder.connection, folder.local_id


def _quoted(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= n else text[: n - 1] + '…'}”"


def _undo(connection: Connection, provider_undo: dict) -> dict:
    return {"connection": str(connection.id), "provider": provider_undo}


# --- reads ----------------------------------------------------------------------------------------------------


def parse_modified_after(value: str | None, *, org) -> datetime.datetime | None:
    if value is None or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError as exc:
        raise ToolError("bad_input", f"modifiedAfter: {value!r} isn't a date; write it like 2026-10-01 or "
                                     "2026-10-01T09:00:00Z") from exc
    return owner_time(org, moment)


def _page_tokens(page: str | None) -> dict[str, str] | None:
    if not page:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(page.encode() + b"=" * (-len(page) % 4)))
        tokens = data["a"]
        if not isinstance(tokens, dict):
            raise ValueError
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
        raise ToolError("bad_input", "page: pass nextPage exactly as search gave it") from exc
    return {str(k): str(v) for k, v in tokens.items()}


def _next_page(tokens: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps({"a": tokens}, separators=(",", ":")).encode()).decode().rstrip("=")


def _shares(limit: int, n: int) -> list[int]:
    """`limit` split across n accounts, the first ones taking what doesn't divide; each at least one."""
    return [max(1, limit // n + (1 if i < limit % n else 0)) for i in range(n)]


def files_search(*, org, asker, query: str, source: str | None, modified_after: str | None, limit: int,
                 page: str | None, skip_accounts: frozenset[str] = frozenset()) -> dict:
    after = parse_modified_after(modified_after, org=org)
    tokens = _page_tokens(page)
    accounts = connections_for(org=org, group="files", source=source, include_stopped=True)
    if not accounts:
        every = connections_for(org=org, group="files", include_stopped=True)
        if source and every:
            names = ", ".join(c.account for c in every)
            raise ToolError("bad_input", f"source: no files account's name contains {source!r}; the accounts are "
                                         f"{names}")
        require_connection(org=org, group="files", asked_by=asker)
    # The accounts search's copy holds whole are searched there (search/takeover.py), not here.
    accounts = [c for c in accounts if c.account_key not in skip_accounts]
    if tokens is not None:
        accounts = [c for c in accounts if c.account_key in tokens]
    found, searched, failed, more = [], [], [], {}
    for connection, share in zip(accounts, _shares(limit, len(accounts)) if accounts else [], strict=False):
        try:
            live = require_connection(org=org, group="files", account_key=connection.account_key, asked_by=asker)
            result = _provider(live).search(
                query, modified_after=after, limit=share, page=tokens.get(connection.account_key) if tokens else None
            )
        except ToolError as error:
            failed.append(failure(connection, error))
            continue
        searched.append(connection.account)
        found.append([hit.as_result(source=connection.account) for hit in result.items])
        if result.next_page:
            more[connection.account_key] = result.next_page
    hits = [hit for row in _interleave(found) for hit in row]
    out: dict[str, Any] = {"hits": hits, "searched": searched, "failed": failed}
    if more:
        out["nextPage"] = _next_page(more)
    return out


def _interleave(lists: list[list]) -> list[list]:
    """Each account's best first, then each one's second…: relevance can't be compared across accounts."""
    rows = []
    for i in range(max((len(x) for x in lists), default=0)):
        rows.append([x[i] for x in lists if i < len(x)])
    return rows


def file_text(ref: Ref, meta: FileMeta) -> content.Extracted:
    """A file's words (or picture), the same on every app; a Google Sheet tab by tab."""
    if meta.mime_type == GOOGLE_SHEET:
        return content.Extracted(text=content.tabs_text(ref.provider.tabs(ref.local_id)))
    limit = content.MAX_IMAGE_BYTES if meta.kind == "image" else content.MAX_FILE_BYTES
    if meta.size is not None and meta.size > limit:
        # Said before downloading what can't be read anyway.
        raise ToolError("too_large", f"{meta.name} is over {limit // content.MB} MB, too large to read here. Use its "
                                     f"link instead: {meta.url}")
    return content.extract(ref.provider.download(ref.local_id))


def files_read(*, org, asker, id: str, offset: int, page: str | None) -> dict:
    ref = file_ref(org=org, value=id, asker=asker)
    meta = ref.get()
    out: dict[str, Any] = {"id": meta.id, "source": ref.connection.account, "title": meta.name, "url": meta.url}
    if meta.kind == "folder":
        listing = ref.provider.list_folder(ref.local_id, limit=FOLDER_PAGE, page=page)
        count = len(listing.items)
        out["text"] = (f"The folder {meta.name}: {count} item{'s' if count != 1 else ''}"
                       + (", and more with nextPage." if listing.next_page else "."))
        out["items"] = [hit.as_result() for hit in listing.items]
        if listing.next_page:
            out["nextPage"] = listing.next_page
        return out
    if page:
        raise ToolError("bad_input", "page: only a folder's items come in pages; a file's text goes on with offset")
    extracted = file_text(ref, meta)
    if extracted.image is not None:
        return {**out, "text": "", "image": extracted.image}
    text = extracted.text
    if offset and offset >= len(text):
        raise ToolError("bad_input", f"offset: {meta.name} has {len(text)} characters, so the text ends before "
                                     f"{offset}")
    out["text"] = text[offset: offset + PAGE_CHARS]
    if offset + PAGE_CHARS < len(text):
        out["nextOffset"] = offset + PAGE_CHARS
    if extracted.note:
        out["note"] = extracted.note
    return out


def sheet_rows(*, org, asker, id: str, range_: str) -> dict:
    ref = file_ref(org=org, value=id, asker=asker)
    return {"values": ref.provider.sheet_values(ref.local_id, range_)}


# --- writes that make something -------------------------------------------------------------------------------


def file_copy(*, org, asker, id: str, name: str, folder_id: str | None) -> Outcome:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    _, folder = _destination(org=org, asker=asker, value=folder_id, field="folderId", connection=ref.connection)
    source = ref.get()
    written = ref.provider.copy(ref.local_id, name=name, folder_id=folder)
    return Outcome(written.value.as_result(), f"copied {source.name} as {_quoted(name)}", written.value.id,
                   _undo(ref.connection, written.undo), created=True)


def folder_create(*, org, asker, name: str, parent_id: str | None) -> Outcome:
    connection, parent = _destination(org=org, asker=asker, value=parent_id, field="parentId")
    written = _provider(connection).create_folder(name=name, parent_id=parent)
    return Outcome(written.value.as_result(), f"made the folder {_quoted(name)}", written.value.id,
                   _undo(connection, written.undo), created=True)


def doc_create(*, org, asker, name: str, markdown: str, folder_id: str | None) -> Outcome:
    connection, folder = _destination(org=org, asker=asker, value=folder_id, field="folderId")
    written = _provider(connection).create_doc(name=name, markdown=markdown, folder_id=folder)
    return Outcome(written.value.as_result(), f"wrote the doc {_quoted(name)}", written.value.id,
                   _undo(connection, written.undo), created=True)


def sheet_create(*, org, asker, name: str, rows: list[list], folder_id: str | None) -> Outcome:
    connection, folder = _destination(org=org, asker=asker, value=folder_id, field="folderId")
    written = _provider(connection).create_sheet(name=name, rows=rows, folder_id=folder)
    return Outcome(written.value.as_result(), f"made the sheet {_quoted(name)} with {len(rows)} row"
                   + ("s" if len(rows) != 1 else ""), written.value.id, _undo(connection, written.undo), created=True)


def _mail_provider(connection: Connection):
    return provider_for(connection, "mail")


def _attachment_source(*, org, asker, email: str | None, attachment: str) -> tuple[Connection, str, str]:
    """(mail connection, thread's own id, attachment's own id) from mail's ids or a search id."""
    if email is not None:
        connection, thread_id = split_id(email, org=org)
        if not connection.serves("mail"):
            raise ToolError("bad_input", f"email: {email} isn't a mail thread's id; pass the id mail search gave")
        value = attachment.strip()
        if value.startswith(f"{connection.account_key}:"):
            value = value.split(":", 1)[1]
        return connection, thread_id, value
    # An id from search: <app>:<account key>:t:<thread>:a:<attachment>.
    parts = attachment.strip().split(":")
    if len(parts) >= 6 and parts[2] == "t" and "a" in parts[4:5]:
        key = parts[1]
        connection, _ = split_id(f"{key}:x", org=org)
        return connection, parts[3], ":".join(parts[5:])
    raise ToolError("bad_input", "email: required unless attachment is an id from search (gmail:…:t:…:a:…); give "
                                 "the thread's id from mail search as email, and the id mail read listed as "
                                 "attachment")


def attachment_save(*, org, asker, email: str | None, attachment: str, folder_id: str | None,
                    name: str | None) -> Outcome:
    mail_connection, thread_id, attachment_id = _attachment_source(org=org, asker=asker, email=email,
                                                                   attachment=attachment)
    mail_connection = require_connection(org=org, group="mail", account_key=mail_connection.account_key,
                                         asked_by=asker)
    # Into the folder's account; with no folder, the mail's own account when it keeps files too (one Google).
    same = None
    if folder_id is None and mail_connection.serves("files"):
        same = require_connection(org=org, group="files", account_key=mail_connection.account_key, write=True,
                                  asked_by=asker)
    connection, folder = _destination(org=org, asker=asker, value=folder_id, field="folderId", connection=same)
    data = _mail_provider(mail_connection).read_attachment(thread_id, attachment_id)
    if data.size > content.MAX_FILE_BYTES:
        raise ToolError("too_large", f"{data.name} is over 25 MB, too large to save from here.")
    written = _provider(connection).upload(data, name=name or data.name, folder_id=folder)
    return Outcome(written.value.as_result(), f"saved the attachment {_quoted(name or data.name)} to "
                   f"{connection.app_info.group_labels.get('files', 'files')}", written.value.id,
                   _undo(connection, written.undo), created=True)


def file_save(*, org, asker, data: FileData, folder_id: str | None, name: str | None, as_google: bool,
              over: str | None) -> Outcome:
    """files.save's app side: the workspace file's bytes as a new file, or with `over`, a new version of that file."""
    if data.size > content.MAX_FILE_BYTES:
        raise ToolError("too_large", f"workspace: {data.name} is over 25 MB, too large to put in Drive from here.")
    if over is not None:
        if folder_id is not None or name is not None or as_google:
            raise ToolError("bad_input", "over: a new version keeps the file's name, folder and kind; leave out "
                                         "folderId, name and asGoogle")
        ref = file_ref(org=org, value=over, asker=asker, write=True)
        meta = ref.get()
        if meta.kind == "folder":
            raise ToolError("bad_input", f"over: {meta.name} is a folder, not a file")
        written = ref.provider.upload_version(ref.local_id, data)
        return Outcome(written.value.as_result(), f"saved a new version of {_quoted(meta.name)} from the workspace",
                       ref.id, _undo(ref.connection, written.undo))
    connection, folder = _destination(org=org, asker=asker, value=folder_id, field="folderId")
    written = _provider(connection).upload(data, name=name or data.name, folder_id=folder, convert=bool(as_google))
    where = connection.app_info.group_labels.get("files", "files")
    return Outcome(written.value.as_result(), f"saved {_quoted(written.value.name)} from the workspace to {where}",
                   written.value.id, _undo(connection, written.undo), created=True)


def file_for_workspace(*, org, asker, value: str) -> tuple[FileData, str]:
    """A Drive file's bytes for the workspace (Google files as Office files), and its full id (`from`)."""
    ref = file_ref(org=org, value=value, asker=asker)
    meta = ref.get()
    if meta.kind == "folder":
        raise ToolError("bad_input", f"files: {meta.name} is a folder; open the files in it")
    return ref.provider.download_office(ref.local_id), ref.id


def attachment_for_workspace(*, org, asker, email: str | None, attachment: str) -> FileData:
    """An email attachment's bytes for the workspace."""
    connection, thread_id, attachment_id = _attachment_source(org=org, asker=asker, email=email,
                                                              attachment=attachment)
    connection = require_connection(org=org, group="mail", account_key=connection.account_key, asked_by=asker)
    return _mail_provider(connection).read_attachment(thread_id, attachment_id)


# --- writes that change what's there --------------------------------------------------------------------------


def files_move(*, org, asker, ids: list[str], folder_id: str) -> Outcome:
    folder = file_ref(org=org, value=folder_id, asker=asker, write=True)
    target = folder.get()
    if target.kind != "folder":
        raise ToolError("bad_input", f"folderId: {target.name} is a file, not a folder")
    refs = []
    for i, value in enumerate(ids):
        ref = file_ref(org=org, value=value, asker=asker, write=True)
        if ref.connection.pk != folder.connection.pk:
            raise ToolError("bad_input", f"ids[{i}]: it is in {ref.connection.account} and the folder in "
                                         f"{folder.connection.account}; files move only within one account")
        ref.get()
        refs.append(ref)
    moved, undos = [], []
    try:
        for ref in refs:
            written = ref.provider.move(ref.local_id, folder_id=folder.local_id)
            moved.append({"id": ref.id, "name": ref.get().name, "from": written.value})
            undos.append(written.undo)
    except ToolError:
        # Drive has no transaction: put back the moves already made, so a failure leaves everything where it was.
        for undo in reversed(undos):
            try:
                folder.provider.undo(undo)
            except ToolError:
                pass
        raise
    names = moved[0]["name"] if len(moved) == 1 else f"{len(moved)} files"
    provider_undo = undos[0] if len(undos) == 1 else {"op": "many", "items": undos}
    return Outcome({"moved": moved}, f"moved {names} to {target.name}", refs[0].id if len(refs) == 1 else folder.id,
                   _undo(folder.connection, provider_undo))


def file_rename(*, org, asker, id: str, name: str) -> Outcome:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    written = ref.provider.rename(ref.local_id, name=name)
    return Outcome({"before": written.value, "id": ref.id}, f"renamed {_quoted(written.value)} to {_quoted(name)}",
                   ref.id, _undo(ref.connection, written.undo))


def text_append(*, org, asker, id: str, text: str) -> Outcome:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    meta = ref.get()
    written = ref.provider.append_text(ref.local_id, text=text)
    start, end = written.value
    return Outcome({"start": start, "end": end, "id": ref.id}, f"added a paragraph to {meta.name}: {_quoted(text)}",
                   ref.id, _undo(ref.connection, written.undo))


def text_replace(*, org, asker, id: str, find: str, replace: str) -> Outcome | dict:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    meta = ref.get()
    written = ref.provider.replace_text(ref.local_id, find=find, replace=replace)
    result = {"id": ref.id, "find": find, "replace": replace, "changed": written.value}
    if not written.value:
        return result
    times = "once" if written.value == 1 else f"{written.value} times"
    return Outcome(result, f"replaced {_quoted(find, 40)} with {_quoted(replace, 60)} in {meta.name} ({times})",
                   ref.id, _undo(ref.connection, written.undo))


def rows_append(*, org, asker, id: str, range_: str, values: list[list]) -> Outcome:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    meta = ref.get()
    written = ref.provider.append_rows(ref.local_id, range_=range_, values=values)
    count = len(values)
    return Outcome({"id": ref.id, "updatedRange": written.value},
                   f"added {count} row{'s' if count != 1 else ''} to {meta.name} ({written.value})", ref.id,
                   _undo(ref.connection, written.undo))


def cells_update(*, org, asker, id: str, range_: str, values: list[list]) -> Outcome:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    meta = ref.get()
    written = ref.provider.update_cells(ref.local_id, range_=range_, values=values)
    r1, c1, r2, c2 = written.undo["range"]
    where = sheets.A1Range(written.undo["sheet"], r1, c1, r2, c2).as_text()
    return Outcome({"id": ref.id, "range": where, "before": written.value}, f"changed {where} in {meta.name}",
                   ref.id, _undo(ref.connection, written.undo))


# --- what a checked write would overwrite ---------------------------------------------------------------------


# A checked write's account must allow writing: asking that first spares a read the write could never follow.


def move_replaces(*, org, asker, ids: list[str]) -> dict:
    files = []
    names: dict[tuple, str] = {}
    for value in ids:
        ref = file_ref(org=org, value=value, asker=asker, write=True)
        meta = ref.get()
        folders = []
        parents: list[str | None] = [*meta.parents] or [None]  # a file at the top is in no folder
        for parent in parents:
            key = (ref.connection.pk, parent)
            if key not in names:
                names[key] = ref.provider.folder_name(parent.split(":", 1)[1] if parent else None)
            folders.append(names[key])
        files.append({"id": meta.id, "name": meta.name, "folder": ", ".join(folders)})
    return {"files": files}


def rename_replaces(*, org, asker, id: str) -> dict:
    return {"name": file_ref(org=org, value=id, asker=asker, write=True).get().name}


def file_replaces(*, org, asker, id: str, **extra) -> dict:
    return {"file": file_ref(org=org, value=id, asker=asker, write=True).get().name, **extra}


def cells_replaces(*, org, asker, id: str, range_: str, values: list[list]) -> dict:
    ref = file_ref(org=org, value=id, asker=asker, write=True)
    meta = ref.get()
    area = sheets.write_area(sheets.parse_range(range_), values)
    current = ref.provider.sheet_values(ref.local_id, area.as_text())
    return {"file": meta.name, "range": area.as_text(), "values": sheets.pad(current, area.height, area.width)}


# --- Undo -----------------------------------------------------------------------------------------------------


def file_change_undo(*, org, actor, change) -> None:
    """Undo a files write: the same account's provider puts back what was there, or says it changed since."""
    data = change.undo or {}
    connection_id = data.get("connection")
    connection = Connection.objects.filter(organization=org, id=connection_id).first() if connection_id else None
    if connection is None:
        raise ToolError("not_found", "The account this change was made in isn't in this workspace any more.")
    connection = require_connection(org=org, group="files", account_key=connection.account_key, write=True)
    _provider(connection).undo(data["provider"])
