"""OneDrive (and the SharePoint libraries the owner can open): the files group on a Microsoft account, through
Microsoft Graph v1.0 (integrations.clients.graph_request: a bearer token refreshed on its own, errors mapped).

- Finding: Microsoft Search (`POST /search/query`, entity driveItem: words, "exact phrases", filetype:, author:),
  a folder's `children`, one item by id; a pasted OneDrive or SharePoint link is opened through `/shares/{token}`
  (Graph's encoded sharing URL, "u!" + base64url), or, for a onedrive.live.com link that names the item, directly.
- Reading: `/content` (Graph answers 302 to a pre-authorized address); older Office files (.doc, .ppt, .xls, .rtf,
  OpenDocument) as Graph's PDF conversion (`?format=pdf`), since their own formats have no reader here.
- Writing: only what the spec gives OneDrive: files.save, a workspace file as a new file (conflicts renamed, never
  overwritten) or as a new version of the file it was opened from (`If-Match` the eTag read just before, so a change
  made meanwhile answers `changed`). Undo deletes the new file (to OneDrive's recycle bin) or puts the version before
  back, each only while the file is as the write left it. Every other write answers `unsupported`.
- Ids: `<driveId>~<itemId>` after the account key (a search hit or a shared file can be in another drive than the
  owner's own), or `u!<encoded link>` for a link not yet resolved.
- Change tracking: the delta query on the owner's own drive, for routines' events (`changes`) and the search copy
  (`copy_delta`: the first round lists every item, later rounds what changed or was deleted).

Tests pass `http=<a recorded Graph>` through provider_for (a requests.Session-like object).
"""

from __future__ import annotations

import base64
import datetime
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, urlparse

from core.errors import ToolError
from integrations.clients import GRAPH, graph_request
from integrations.files import content, storage
from integrations.providers.base import (
    Changes,
    CursorExpired,
    FileData,
    FileMeta,
    FilesProvider,
    Hit,
    Page,
    Values,
    Written,
    file_changed_since,
)
from integrations.providers.registry import register_provider

FOLDER = "inode/directory"
SELECT = ("id,name,webUrl,size,lastModifiedDateTime,lastModifiedBy,parentReference,file,folder,package,deleted,eTag,"
          "cTag,root")
# Graph's simple upload takes up to 4 MB; larger goes through an upload session, in pieces of a multiple of 320 KiB.
SIMPLE_UPLOAD = 4 * 1024 * 1024
UPLOAD_PIECE = 320 * 1024 * 10
MAX_CHANGE_PAGES = 10
# Older formats that Graph converts to PDF to be read (learn.microsoft.com/graph/api/driveitem-get-content-format).
_PDF_COPY = {".doc", ".dot", ".ppt", ".pps", ".pot", ".xls", ".rtf", ".odt", ".odp", ".ods", ".epub"}
_PART = re.compile(r"^[A-Za-z0-9!_\-.=]{1,300}$")
_LIVE = re.compile(r"^https://(?:onedrive\.live\.com|1drv\.ms)/", re.IGNORECASE)
_MICROSOFT_HOSTS = re.compile(r"^https://(?:onedrive\.live\.com|1drv\.ms|[a-z0-9-]+(?:-my)?\.sharepoint\.com)/",
                              re.IGNORECASE)
_STOP_KINDS = ("rate_limited", "reauth", "unavailable")
_TAGS = re.compile(r"<[^>]{0,40}>")


@dataclass
class DeltaPage:
    items: list[dict]  # driveItems added or changed (files only; folders and packages left out)
    gone: list[str]  # local ids of items deleted (or moved to the recycle bin)
    next_link: str | None  # more of this round
    delta_link: str | None  # on the round's last page: where the next round starts


def _time(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))


def share_token(link: str) -> str:
    """Graph's encoding of a sharing URL: "u!" and the link's unpadded base64url (learn.microsoft.com/graph/api/
    shares-get, "Encoding sharing URLs")."""
    return "u!" + base64.urlsafe_b64encode(link.strip().encode("utf-8")).decode("ascii").rstrip("=")


def _graph_link(link: str | None, *, what: str) -> str:
    """A paging or delta link Graph gave, checked to be Graph's own before a bearer token goes with it."""
    if not link or not link.startswith(GRAPH + "/"):
        raise ToolError("bad_input", f"{what}: pass it exactly as it was given")
    return link


class OneDriveProvider(FilesProvider):
    def __init__(self, connection, **options):
        super().__init__(connection, **options)
        self._my_drive: str | None = None

    # --- calling Graph ---------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs):
        return graph_request(self.connection, method, path, session=self.options.get("http"), **kwargs)

    def _split(self, file_id: str) -> tuple[str, str]:
        """(drive, item) of a local id; a malformed one is not_found, never a path of Graph's."""
        drive, _, item = file_id.partition("~")
        if not item or not _PART.match(drive) or not _PART.match(item):
            raise ToolError("not_found", f"{file_id!r} isn't a OneDrive file's id: pass ids exactly as a tool gave "
                                         "them, or search again.")
        return drive, item

    def _item_path(self, file_id: str) -> str:
        if file_id.startswith("u!"):
            if not re.fullmatch(r"u![A-Za-z0-9_\-]{4,1400}", file_id):
                raise ToolError("not_found", "That OneDrive link can't be read: paste it again as it is.")
            return f"/shares/{file_id}/driveItem"
        drive, item = self._split(file_id)
        return f"/drives/{quote(drive, safe='!')}/items/{quote(item, safe='!')}"

    def local_id(self, item: dict) -> str:
        drive = (item.get("parentReference") or {}).get("driveId") or self.my_drive()
        return f"{drive}~{item['id']}"

    def my_drive(self) -> str:
        if self._my_drive is None:
            self._my_drive = self._call("GET", "/me/drive", params={"$select": "id"})["id"]
        return self._my_drive

    # --- finding ---------------------------------------------------------------------------------------------

    @classmethod
    def id_from_link(cls, link: str) -> str | None:
        link = link.strip()
        if not _MICROSOFT_HOSTS.match(link):
            return None
        if _LIVE.match(link):
            # onedrive.live.com/?id=D4648F06C91D9D3D!54927&cid=D4648F06C91D9D3D names the item and its drive (the cid).
            query = parse_qs(urlparse(link).query)
            item = (query.get("id") or query.get("resid") or [""])[0]
            drive = (query.get("cid") or [""])[0] or item.split("!", 1)[0]
            if item and drive and _PART.match(item) and _PART.match(drive):
                return f"{drive.lower()}~{item}"
        return share_token(link)

    def meta(self, item: dict) -> FileMeta:
        name = item.get("name", "")
        if item.get("folder") is not None or item.get("root") is not None:
            mime = FOLDER
        else:
            mime = content.mime_of(name, (item.get("file") or {}).get("mimeType"))
        user = ((item.get("lastModifiedBy") or {}).get("user")) or {}
        local = self.local_id(item)
        parent = (item.get("parentReference") or {})
        parents = [self.global_id(f"{parent.get('driveId') or self.my_drive()}~{parent['id']}")] if parent.get(
            "id") else []
        return FileMeta(
            id=self.global_id(local), name=name, mime_type=mime, kind=content.kind_of(mime, name),
            url=item.get("webUrl") or "", parents=parents,
            size=int(item["size"]) if item.get("size") is not None else None,
            modified=_time(item.get("lastModifiedDateTime")),
            modified_by=user.get("displayName") or user.get("email"),
        )

    def _get(self, file_id: str) -> dict:
        item = self._call("GET", self._item_path(file_id), params={"$select": SELECT})
        if item.get("deleted") is not None:
            raise ToolError("not_found", f"{item.get('name', 'That file')} was deleted from {self.source}'s OneDrive.")
        return item

    def get(self, file_id: str) -> FileMeta:
        return self.meta(self._get(file_id))

    def folder_name(self, folder_id: str | None) -> str:
        return self._get(folder_id).get("name", "") if folder_id else "OneDrive"

    def search(self, query, *, modified_after, limit, page=None) -> Page[Hit]:
        if page is not None and not page.isdigit():
            raise ToolError("bad_input", "page: pass nextPage exactly as it was given")
        start = int(page or 0)
        words = query
        if modified_after is not None:
            # KQL's date property for drive items; the hits are checked again below, as the property is coarse.
            words += f" LastModifiedTime>={modified_after.astimezone(datetime.UTC):%Y-%m-%d}"
        answer = self._call("POST", "/search/query", json={"requests": [{
            "entityTypes": ["driveItem"], "query": {"queryString": words}, "from": start, "size": limit,
        }]})
        hits: list[Hit] = []
        more = False
        for result in answer.get("value") or []:
            for container in result.get("hitsContainers") or []:
                more = more or bool(container.get("moreResultsAvailable"))
                for hit in container.get("hits") or []:
                    item = hit.get("resource") or {}
                    if not item.get("id"):
                        continue
                    meta = self.meta(item)
                    if modified_after is not None and meta.modified is not None and meta.modified <= modified_after:
                        continue
                    found = meta.as_hit()
                    summary = " ".join(_TAGS.sub("", hit.get("summary") or "").split())
                    if summary:
                        found.snippet = summary[:300]
                    hits.append(found)
        return Page(hits, str(start + limit) if more else None)

    def list_folder(self, folder_id: str, *, limit: int, page=None) -> Page[Hit]:
        if page:
            link = _graph_link(page, what="page")
            if "/children" not in urlparse(link).path:
                raise ToolError("bad_input", "page: pass nextPage exactly as it was given")
            answer = self._call("GET", link, absolute=True)
        else:
            answer = self._call("GET", self._item_path(folder_id) + "/children",
                                params={"$top": limit, "$select": SELECT})
        items = [self.meta(i) for i in answer.get("value") or [] if i.get("deleted") is None]
        # Graph orders children only on personal accounts: folders first, then by name, within each page.
        items.sort(key=lambda m: (m.kind != "folder", m.name.lower()))
        return Page([m.as_hit() for m in items], answer.get("@odata.nextLink"))

    # --- bytes -----------------------------------------------------------------------------------------------

    def _content(self, file_id: str, *, pdf: bool = False) -> bytes:
        params = {"format": "pdf"} if pdf else None
        return self._call("GET", self._item_path(file_id) + "/content", params=params, raw=True,
                          headers={"Accept": "*/*"}).content

    def _checked(self, file_id: str) -> dict:
        item = self._get(file_id)
        name = item.get("name", file_id)
        if item.get("folder") is not None or item.get("root") is not None:
            raise ToolError("unsupported", f"{name} is a folder: read it to list what's in it.")
        if item.get("package") is not None:
            raise ToolError("unsupported", f"{name} is a {item['package'].get('type', 'package')}, which has no file "
                                           f"to read here. Use its link: {item.get('webUrl', '')}")
        if int(item.get("size") or 0) > content.MAX_FILE_BYTES:
            raise ToolError("too_large", f"{name} is over 25 MB. Use its link instead: {item.get('webUrl', '')}")
        return item

    def download(self, file_id: str) -> FileData:
        item = self._checked(file_id)
        name = item.get("name", file_id)
        if content.extension_of(name) in _PDF_COPY:
            return FileData(name=name + ".pdf", mime_type=content.PDF, data=self._content(file_id, pdf=True))
        mime = content.mime_of(name, (item.get("file") or {}).get("mimeType"))
        return FileData(name=name, mime_type=mime, data=self._content(file_id))

    def download_office(self, file_id: str) -> FileData:
        """The file itself, for the workspace: an Office file is edited there as it is."""
        item = self._checked(file_id)
        name = item.get("name", file_id)
        return FileData(name=name, mime_type=content.mime_of(name, (item.get("file") or {}).get("mimeType")),
                        data=self._content(file_id))

    def export_pdf(self, file_id: str) -> FileData:
        # OneDrive has no files of its own kind (Google's Docs are): every file goes as itself.
        return self.download_office(file_id)

    def tabs(self, file_id: str) -> list[tuple[str, list[list[str]]]]:
        data = self.download_office(file_id)
        if content.mime_of(data.name, data.mime_type) != content.XLSX:
            raise ToolError("unsupported", f"{data.name} isn't a spreadsheet (.xlsx).")
        return content.xlsx_tabs(data.data)

    # --- files.save: a new file, or a new version -------------------------------------------------------------

    def _upload_session(self, path: str, data: bytes, *, item: dict, headers: dict | None = None) -> dict:
        """A file over 4 MB, in pieces, through an upload session (its URL takes no bearer token)."""
        session = self._call("POST", path + "/createUploadSession", json={"item": item}, headers=headers)
        url = session.get("uploadUrl") or ""
        if not url.startswith("https://"):
            raise ToolError("vendor", f"{self.source}'s OneDrive didn't give an upload address.")
        answer: dict = {}
        total = len(data)
        for start in range(0, total, UPLOAD_PIECE):
            piece = data[start: start + UPLOAD_PIECE]
            answer = self._call("PUT", url, absolute=True, authorize=False, data=piece, headers={
                "Content-Length": str(len(piece)),
                "Content-Range": f"bytes {start}-{start + len(piece) - 1}/{total}",
            })
        return answer

    def upload(self, data: FileData, *, name: str, folder_id: str | None, convert: bool = False) -> Written[FileMeta]:
        if convert:
            raise ToolError("bad_input", "asGoogle: OneDrive keeps Office files as they are; leave asGoogle out")
        if "/" in name or "\\" in name or name.strip() in ("", ".", ".."):
            raise ToolError("bad_input", f"name: {name!r} can't be a OneDrive file's name (no slashes)")
        parent = self._item_path(folder_id) if folder_id else "/me/drive/root"
        path = f"{parent}:/{quote(name, safe='')}:"
        if data.size <= SIMPLE_UPLOAD:
            item = self._call("PUT", path + "/content", data=data.data,
                              params={"@microsoft.graph.conflictBehavior": "rename"},
                              headers={"Content-Type": content.mime_of(data.name, data.mime_type)})
        else:
            item = self._upload_session(path, data.data, item={"@microsoft.graph.conflictBehavior": "rename"})
        return Written(self.meta(item), {"op": "delete", "file": self.local_id(item), "etag": item.get("eTag")})

    def upload_version(self, file_id: str, data: FileData) -> Written[FileMeta]:
        item = self._get(file_id)
        if item.get("folder") is not None:
            raise ToolError("bad_input", f"over: {item.get('name', file_id)} is a folder, not a file")
        local = self.local_id(item)
        # Undo puts the version before back: its bytes are kept in Roadstar's files folder until then.
        before = self._content(local)
        kept = storage.blob_write(self.connection, local, before, ".before")
        updated = self._put_version(local, data.data, data.mime_type, item.get("eTag"))
        return Written(self.meta(updated), {
            "op": "version", "file": local, "before_blob": kept,
            "before_mime": content.mime_of(item.get("name", ""), (item.get("file") or {}).get("mimeType")),
            "after_etag": updated.get("eTag"),
        })

    def _put_version(self, local: str, data: bytes, mime: str, etag: str | None) -> dict:
        # If-Match: a version written over the one read here only; someone's edit meanwhile answers 412, `changed`.
        match = {"If-Match": etag} if etag else {}
        if len(data) <= SIMPLE_UPLOAD:
            return self._call("PUT", self._item_path(local) + "/content", data=data,
                              headers={"Content-Type": mime or "application/octet-stream", **match})
        return self._upload_session(self._item_path(local), data,
                                    item={"@microsoft.graph.conflictBehavior": "replace"}, headers=match)

    # --- the writes OneDrive doesn't take here --------------------------------------------------------------

    def _not_here(self, what: str):
        raise ToolError("unsupported", f"{what} isn't done in OneDrive here: OneDrive's files are read live, and "
                                       "an Office file is changed in the workspace (open it there, change it with "
                                       "code, then save it back over the file it came from).")

    def copy(self, file_id: str, *, name: str, folder_id: str | None) -> Written[FileMeta]:
        self._not_here("Copying a file")
        raise AssertionError  # unreachable: _not_here raises

    def create_folder(self, *, name: str, parent_id: str | None) -> Written[FileMeta]:
        self._not_here("Making a folder")
        raise AssertionError

    def move(self, file_id: str, *, folder_id: str) -> Written[list[str]]:
        self._not_here("Moving files")
        raise AssertionError

    def rename(self, file_id: str, *, name: str) -> Written[str]:
        self._not_here("Renaming")
        raise AssertionError

    def create_doc(self, *, name: str, markdown: str, folder_id: str | None) -> Written[FileMeta]:
        self._not_here("Writing a new document")
        raise AssertionError

    def append_text(self, file_id: str, *, text: str) -> Written[tuple[int, int]]:
        self._not_here("Adding text to a document")
        raise AssertionError

    def create_sheet(self, *, name: str, rows: Values, folder_id: str | None) -> Written[FileMeta]:
        self._not_here("Making a new spreadsheet")
        raise AssertionError

    def sheet_values(self, file_id: str, range_: str) -> list[list[str]]:
        self._not_here("Reading cells by range")
        raise AssertionError

    def append_rows(self, file_id: str, *, range_: str, values: Values) -> Written[str]:
        self._not_here("Adding rows")
        raise AssertionError

    def update_cells(self, file_id: str, *, range_: str, values: Values) -> Written[list[list[str]]]:
        self._not_here("Changing cells")
        raise AssertionError

    def replace_text(self, file_id: str, *, find: str, replace: str) -> Written[int]:
        self._not_here("Replacing text")
        raise AssertionError

    # --- Undo ------------------------------------------------------------------------------------------------

    def undo(self, data: dict) -> None:
        op, local = data.get("op"), data["file"]
        try:
            item = self._get(local)
        except ToolError as error:
            if error.kind == "not_found":
                raise ToolError("changed", "That file was deleted or moved since; nothing was put back.") from error
            raise
        name = item.get("name", local)
        if op == "delete":
            if data.get("etag") and item.get("eTag") != data["etag"]:
                raise file_changed_since(name, "it was changed since it was saved")
            self._call("DELETE", self._item_path(local), headers={"If-Match": item.get("eTag") or "*"})
        elif op == "version":
            if data.get("after_etag") and item.get("eTag") != data["after_etag"]:
                raise file_changed_since(name, "it has a newer version since")
            before = storage.blob_read(data["before_blob"], name=name)
            self._put_version(local, before, data.get("before_mime") or "application/octet-stream", item.get("eTag"))
        else:
            raise ToolError("unsupported", f"OneDrive can't undo {op!r}.")

    # --- change tracking: the delta query --------------------------------------------------------------------

    def delta(self, link: str | None) -> DeltaPage:
        """One page of the owner's drive's delta: from the start (every item) when `link` is None, else from a
        nextLink or deltaLink Graph gave. A token Graph no longer takes (410, resyncRequired) is CursorExpired."""
        try:
            if link is None:
                answer = self._call("GET", "/me/drive/root/delta", params={"$select": SELECT})
            else:
                answer = self._call("GET", _graph_link(link, what="delta"), absolute=True)
        except ToolError as error:
            if error.kind == "not_found" and link is not None:
                raise CursorExpired("OneDrive no longer takes this delta token") from error
            raise
        items, gone = [], []
        for item in answer.get("value") or []:
            if item.get("deleted") is not None:
                gone.append(self.local_id(item))
            elif item.get("file") is not None:
                items.append(item)
        return DeltaPage(items, gone, answer.get("@odata.nextLink"), answer.get("@odata.deltaLink"))

    def changes(self, cursor: str | None) -> Changes[FileMeta]:
        if cursor is None:
            answer = self._call("GET", "/me/drive/root/delta", params={"token": "latest"})
            return Changes([], answer.get("@odata.deltaLink") or "")
        items: list[FileMeta] = []
        link: str | None = cursor
        try:
            for _ in range(MAX_CHANGE_PAGES):
                page = self.delta(link)
                items += [self.meta(i) for i in page.items]
                if page.delta_link:
                    return Changes(items, page.delta_link)
                link = page.next_link
                if link is None:
                    break
        except CursorExpired:
            return self.changes(None)
        return Changes(items, link or cursor)

    def folder(self, folder_id: str) -> tuple[str, list[str]]:
        """A folder's name and its parent's local id (none at the top), for a file's path in the search copy."""
        item = self._get(folder_id)
        if item.get("root") is not None:
            return item.get("name", ""), []
        parent = item.get("parentReference") or {}
        return item.get("name", ""), [f"{parent.get('driveId') or self.my_drive()}~{parent['id']}"] if parent.get(
            "id") else []

    def copy_text(self, item: dict) -> tuple[str, str]:
        """A file's text for the search copy, and how well it was read (the way files.read reads it). Failures the
        owner must see to are raised; any other leaves the file copied without its text."""
        name = item.get("name", "")
        mime = content.mime_of(name, (item.get("file") or {}).get("mimeType"))
        kind = content.kind_of(mime, name)
        if kind == "image":
            return "", "a picture: no text to search"
        pdf = content.extension_of(name) in _PDF_COPY
        if kind == "file" and not content.is_text_mime(mime) and not pdf:
            return "", "no text: not a kind of file with text to read"
        if int(item.get("size") or 0) > content.MAX_FILE_BYTES:
            return "", "no text: over 25 MB"
        try:
            raw = self._content(self.local_id(item), pdf=pdf)
            extracted = content.extract(FileData(name + ".pdf", content.PDF, raw) if pdf else FileData(name, mime, raw))
        except ToolError as error:
            if error.kind in _STOP_KINDS:
                raise
            return "", f"no text: {error.message}"
        return extracted.text, "text" if extracted.text.strip() else "no text found (a scan?)"


register_provider("microsoft", "files", OneDriveProvider)
