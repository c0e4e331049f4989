"""Google Drive, Docs and Sheets: the files group on the owner's Google account (google-api-python-client).

- Drive v3 finds, reads, copies, moves, renames, trashes and uploads; a Google Doc is exported as Markdown, a
  Sheet as .xlsx (workspace.open), Slides as PDF. Files in shared drives work too (supportsAllDrives).
- Docs v1 writes documents: replace_text is one replaceAllText, append_text one insertText, both pinned to the
  revision they were worked out on (writeControl), so positions kept for Undo are right.
- Sheets v4 reads values tab by tab and writes cells. Old cells are read as formulas for Undo, which writes them
  back exactly (batchUpdate updateCells: numbers stay numbers, text stays text).
- The search copy (search/google_copy.py): `copy_start` (changes.getStartPageToken), `copy_files` (every file but
  folders and the trash, a page at a time), `copy_changes` (changes.list from a page token: what changed, what was
  removed or trashed), `copy_text` (a Google Doc, Sheet or Slides exported, another file downloaded, and its text
  extracted the way files.read does), `folder` (a folder's name and parents, for a file's path).
Every call goes through integrations.clients.google_execute, which maps Google's errors to the spec's kinds.
Tests pass `http=HttpMockSequence([...])` through provider_for.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from core.errors import ToolError
from integrations.clients import google_execute, google_service
from integrations.files import content, sheets, storage, textedit
from integrations.files.content import GOOGLE_DOC, GOOGLE_PREFIX, GOOGLE_SHEET, GOOGLE_SLIDES
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

FOLDER = "application/vnd.google-apps.folder"
FIELDS = ("id,name,mimeType,webViewLink,parents,size,modifiedTime,trashed,"
          "lastModifyingUser(displayName,emailAddress)")
_LINKS = (
    re.compile(r"docs\.google\.com/(?:document|spreadsheets|presentation|drawings|forms)/(?:u/\d+/)?d/"
               r"(?:e/)?([A-Za-z0-9_-]{10,})"),
    re.compile(r"drive\.google\.com/(?:file/(?:u/\d+/)?d|drive/(?:u/\d+/)?folders|drive/(?:u/\d+/)?"
               r"(?:mobile/)?folders)/([A-Za-z0-9_-]{10,})"),
    re.compile(r"(?:drive|docs)\.google\.com/[^?#]*\?(?:[^#]*&)?id=([A-Za-z0-9_-]{10,})"),
)
# What a native Google file is downloaded as: Docs as Markdown, Sheets as .xlsx (every tab), Slides as PDF.
_EXPORTS = {
    GOOGLE_DOC: (content.MARKDOWN, ".md"),
    GOOGLE_SHEET: (content.XLSX, ".xlsx"),
    GOOGLE_SLIDES: (content.PDF, ".pdf"),
}
# What a native Google file arrives in the workspace as: the Office file code edits.
_OFFICE_EXPORTS = {
    GOOGLE_DOC: (content.DOCX, ".docx"),
    GOOGLE_SHEET: (content.XLSX, ".xlsx"),
    GOOGLE_SLIDES: (content.PPTX, ".pptx"),
}
_CONVERT = {content.DOCX: GOOGLE_DOC, content.XLSX: GOOGLE_SHEET, content.PPTX: GOOGLE_SLIDES,
            content.CSV: GOOGLE_SHEET}
MAX_CHANGE_PAGES = 10
# What the copy gives up on without the owner's help: their reasons go in the item's place of its text.
_STOP_KINDS = ("rate_limited", "reauth", "unavailable")


@dataclass
class FileChanges:
    files: list[dict]  # Drive's file resources, changed or added (folders and the trash left out)
    gone: list[str]  # Drive's ids of files removed, trashed or no longer shared with the owner
    next_page: str | None  # more changes: the page token to go on from
    new_start: str | None  # on the last page: the token for the next round of changes


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _time(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))


def _units(text: str) -> int:
    """Length in UTF-16 code units, which is how Google Docs counts positions."""
    return len(text.encode("utf-16-le")) // 2


class _Flat:
    """A Google Doc's body as one string, with each character's position in the document."""

    def __init__(self, document: dict):
        self.revision = document.get("revisionId")
        self.title = document.get("title", "")
        chars: list[str] = []
        self._index: list[int] = []
        self.end = 1
        for start, text in _runs((document.get("body") or {}).get("content") or []):
            at = start
            for ch in text:
                chars.append(ch)
                self._index.append(at)
                at += _units(ch)
            self.end = max(self.end, at)
        self.text = "".join(chars)

    def index_at(self, i: int) -> int:
        return self._index[i] if i < len(self._index) else self.end

    def span(self, start: int, length: int) -> tuple[int, int]:
        first = self.index_at(start)
        if length == 0:
            return first, first
        last = start + length - 1
        return first, self._index[last] + _units(self.text[last])


def _runs(elements: list[dict]):
    """(startIndex, text) of every text run, in document order, tables and tables of contents included."""
    for element in elements:
        if "paragraph" in element:
            for part in element["paragraph"].get("elements", []):
                run = part.get("textRun")
                if run is not None and "startIndex" in part:
                    yield part["startIndex"], run.get("content", "")
        elif "table" in element:
            for row in element["table"].get("tableRows", []):
                for cell in row.get("tableCells", []):
                    yield from _runs(cell.get("content", []))
        elif "tableOfContents" in element:
            yield from _runs(element["tableOfContents"].get("content", []))


def _cell_data(value) -> dict:
    """A cell as Undo writes it back: exactly its old value, of its old type."""
    if value is None or value == "":
        return {}
    if isinstance(value, bool):
        return {"userEnteredValue": {"boolValue": value}}
    if isinstance(value, (int, float)):
        return {"userEnteredValue": {"numberValue": value}}
    text = str(value)
    return {"userEnteredValue": {"formulaValue" if text.startswith("=") else "stringValue": text}}


def markdown_html(markdown: str) -> str:
    """Markdown as HTML, which Drive turns into a Google Doc: headings, lists, tables, bold and links."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    return f"<html><body>{parser.render(markdown)}</body></html>"


class DriveProvider(FilesProvider):
    def __init__(self, connection, **options):
        super().__init__(connection, **options)
        self._services: dict[str, object] = {}

    # --- calling Google ------------------------------------------------------------------------------------

    def _api(self, api: str, version: str):
        if api not in self._services:
            self._services[api] = google_service(self.connection, api, version, http=self.options.get("http"))
        return self._services[api]

    @property
    def drive(self):
        return self._api("drive", "v3")

    @property
    def docs(self):
        return self._api("docs", "v1")

    @property
    def sheets_api(self):
        return self._api("sheets", "v4")

    def _run(self, request):
        return google_execute(request, connection=self.connection, group="files")

    def _write_doc(self, file_id: str, requests: list[dict], revision: str | None) -> dict:
        body: dict[str, object] = {"requests": requests}
        if revision:
            body["writeControl"] = {"requiredRevisionId": revision}
        try:
            return self._run(self.docs.documents().batchUpdate(documentId=file_id, body=body))
        except ToolError as error:
            if error.kind == "vendor" and "revision" in error.message.lower():
                raise ToolError(
                    "changed", "The document changed while it was being written; read it again first."
                ) from error
            raise

    # --- finding -------------------------------------------------------------------------------------------

    @classmethod
    def id_from_link(cls, link: str) -> str | None:
        for pattern in _LINKS:
            match = pattern.search(link)
            if match:
                return match.group(1)
        return None

    def meta(self, f: dict) -> FileMeta:
        mime = f.get("mimeType", "")
        user = f.get("lastModifyingUser") or {}
        return FileMeta(
            id=self.global_id(f["id"]), name=f.get("name", ""), mime_type=mime,
            kind=content.kind_of(mime, f.get("name", "")),
            url=f.get("webViewLink") or f"https://drive.google.com/open?id={f['id']}",
            parents=[self.global_id(p) for p in f.get("parents") or []],
            size=int(f["size"]) if f.get("size") else None, modified=_time(f.get("modifiedTime")),
            modified_by=user.get("displayName") or user.get("emailAddress"), native=mime.startswith(GOOGLE_PREFIX),
        )

    def _get(self, file_id: str, fields: str = FIELDS) -> dict:
        return self._run(self.drive.files().get(fileId=file_id, fields=fields, supportsAllDrives=True))

    def get(self, file_id: str) -> FileMeta:
        f = self._get(file_id)
        if f.get("trashed"):
            raise ToolError("not_found", f"{f.get('name', file_id)} is in the trash in {self.source}'s Drive.")
        return self.meta(f)

    def folder_name(self, folder_id: str | None) -> str:
        return self._get(folder_id, "id,name").get("name", folder_id) if folder_id else "My Drive"

    def _list(self, q: str, *, limit: int, page: str | None, order: str | None = None) -> Page[Hit]:
        params = dict(q=q, pageSize=limit, pageToken=page, fields=f"nextPageToken,files({FIELDS})",
                      supportsAllDrives=True, includeItemsFromAllDrives=True, spaces="drive")
        if order:
            params["orderBy"] = order
        answer = self._run(self.drive.files().list(**params))
        return Page([self.meta(f).as_hit() for f in answer.get("files", [])], answer.get("nextPageToken"))

    def search(self, query, *, modified_after, limit, page=None) -> Page[Hit]:
        q = f"fullText contains '{_quote(query)}' and trashed = false"
        if modified_after is not None:
            stamp = modified_after.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            q += f" and modifiedTime > '{stamp}'"
        return self._list(q, limit=limit, page=page)

    def list_folder(self, folder_id: str, *, limit: int, page=None) -> Page[Hit]:
        return self._list(f"'{_quote(folder_id)}' in parents and trashed = false", limit=limit, page=page,
                          order="folder,name")

    def _native(self, file_id: str, mime: str) -> dict:
        f = self._get(file_id, "id,name,mimeType,trashed")
        if f.get("trashed"):
            raise ToolError("not_found", f"{f.get('name', file_id)} is in the trash in {self.source}'s Drive.")
        if f.get("mimeType") != mime:
            what = {GOOGLE_DOC: "a Google Doc", GOOGLE_SHEET: "a Google Sheet"}[mime]
            raise ToolError("unsupported", f"{f.get('name', file_id)} isn't {what}, so it can't be changed here. "
                                           "Office files are edited in the workspace.")
        return f

    # --- bytes ---------------------------------------------------------------------------------------------

    def download(self, file_id: str) -> FileData:
        f = self._get(file_id)
        mime, name = f.get("mimeType", ""), f.get("name", file_id)
        if mime == FOLDER:
            raise ToolError("unsupported", f"{name} is a folder: read it to list what's in it.")
        if mime in _EXPORTS:
            target, extension = _EXPORTS[mime]
            data = self._run(self.drive.files().export(fileId=file_id, mimeType=target))
            return FileData(name=name + extension, mime_type=target, data=data)
        if mime.startswith(GOOGLE_PREFIX):
            raise ToolError("unsupported", f"{name} is a Google file of a kind that can't be read here ({mime}).")
        if int(f.get("size") or 0) > content.MAX_FILE_BYTES:
            raise ToolError("too_large", f"{name} is over 25 MB. Use its link instead: {f.get('webViewLink', '')}")
        data = self._run(self.drive.files().get_media(fileId=file_id, supportsAllDrives=True))
        return FileData(name=name, mime_type=content.mime_of(name, mime), data=data)

    def download_office(self, file_id: str) -> FileData:
        return self._office(self._get(file_id), file_id)

    def _office(self, f: dict, file_id: str) -> FileData:
        mime, name = f.get("mimeType", ""), f.get("name", file_id)
        if mime in _OFFICE_EXPORTS:
            target, extension = _OFFICE_EXPORTS[mime]
            data = self._run(self.drive.files().export(fileId=file_id, mimeType=target))
            return FileData(name=name if name.lower().endswith(extension) else name + extension, mime_type=target,
                            data=data)
        return self.download(file_id)

    def export_pdf(self, file_id: str) -> FileData:
        f = self._get(file_id, "id,name,mimeType")
        if not f.get("mimeType", "").startswith(GOOGLE_PREFIX) or f.get("mimeType") == FOLDER:
            return self.download(file_id)
        data = self._run(self.drive.files().export(fileId=file_id, mimeType=content.PDF))
        return FileData(name=f.get("name", file_id) + ".pdf", mime_type=content.PDF, data=data)

    def _tab_titles(self, file_id: str) -> list[dict]:
        answer = self._run(self.sheets_api.spreadsheets().get(
            spreadsheetId=file_id, fields="sheets.properties(sheetId,title)"
        ))
        return [s["properties"] for s in answer.get("sheets", [])]

    def tabs(self, file_id: str) -> list[tuple[str, list[list[str]]]]:
        """A Google Sheet's values, tab by tab, as shown."""
        titles = [t["title"] for t in self._tab_titles(file_id)]
        if not titles:
            return []
        answer = self._run(self.sheets_api.spreadsheets().values().batchGet(
            spreadsheetId=file_id, ranges=[sheets.quote_sheet(t) for t in titles], valueRenderOption="FORMATTED_VALUE"
        ))
        ranges = answer.get("valueRanges", [])
        return [
            (title, [[str(v) for v in row] for row in (r.get("values") or [])])
            for title, r in zip(titles, ranges, strict=False)
        ]

    # --- writes that make something ------------------------------------------------------------------------

    def _made(self, f: dict) -> Written[FileMeta]:
        return Written(self.meta(f), {"op": "trash", "file": f["id"]})

    def _create(self, body: dict, media=None) -> dict:
        return self._run(self.drive.files().create(body=body, media_body=media, fields=FIELDS, supportsAllDrives=True))

    def copy(self, file_id: str, *, name: str, folder_id: str | None) -> Written[FileMeta]:
        body = {"name": name, **({"parents": [folder_id]} if folder_id else {})}
        return self._made(self._run(self.drive.files().copy(fileId=file_id, body=body, fields=FIELDS,
                                                            supportsAllDrives=True)))

    def create_folder(self, *, name: str, parent_id: str | None) -> Written[FileMeta]:
        parents = {"parents": [parent_id]} if parent_id else {}
        return self._made(self._create({"name": name, "mimeType": FOLDER, **parents}))

    def create_doc(self, *, name: str, markdown: str, folder_id: str | None) -> Written[FileMeta]:
        from googleapiclient.http import MediaInMemoryUpload

        body = {"name": name, "mimeType": GOOGLE_DOC, **({"parents": [folder_id]} if folder_id else {})}
        media = MediaInMemoryUpload(markdown_html(markdown).encode("utf-8"), mimetype="text/html", resumable=False)
        return self._made(self._create(body, media))

    def create_sheet(self, *, name: str, rows: Values, folder_id: str | None) -> Written[FileMeta]:
        f = self._create({"name": name, "mimeType": GOOGLE_SHEET, **({"parents": [folder_id]} if folder_id else {})})
        try:
            self._run(self.sheets_api.spreadsheets().values().update(
                spreadsheetId=f["id"], range="A1", valueInputOption="USER_ENTERED", body={"values": rows}
            ))
            # A new spreadsheet's first tab is sheetId 0: its first row, the headings, bold and frozen.
            self._run(self.sheets_api.spreadsheets().batchUpdate(spreadsheetId=f["id"], body={"requests": [
                {"repeatCell": {"range": {"sheetId": 0, "startRowIndex": 0, "endRowIndex": 1},
                                "cell": {"userEnteredFormat": {"textFormat": {"bold": True}}},
                                "fields": "userEnteredFormat.textFormat.bold"}},
                {"updateSheetProperties": {"properties": {"sheetId": 0, "gridProperties": {"frozenRowCount": 1}},
                                           "fields": "gridProperties.frozenRowCount"}},
            ]}))
        except ToolError:
            self._trash_quietly(f["id"])
            raise
        return self._made(f)

    def _trash_quietly(self, file_id: str) -> None:
        """A half-made file goes to the trash, so a failed write leaves nothing behind."""
        try:
            self._run(self.drive.files().update(fileId=file_id, body={"trashed": True}, supportsAllDrives=True))
        except ToolError:
            pass

    def upload(self, data: FileData, *, name: str, folder_id: str | None, convert: bool = False) -> Written[FileMeta]:
        from googleapiclient.http import MediaInMemoryUpload

        mime = content.mime_of(data.name, data.mime_type)
        body = {"name": name, **({"parents": [folder_id]} if folder_id else {})}
        if convert and mime in _CONVERT:
            body["mimeType"] = _CONVERT[mime]
        media = MediaInMemoryUpload(data.data, mimetype=mime, resumable=False)
        return self._made(self._create(body, media))

    # --- writes that change what's there -------------------------------------------------------------------

    def upload_version(self, file_id: str, data: FileData) -> Written[FileMeta]:
        from googleapiclient.http import MediaInMemoryUpload

        # Undo needs the version before: Drive's revisions of a Google file can't be put back through the API, so
        # its content (as the Office file) is kept in Roadstar's files folder until then.
        f = self._get(file_id)
        if f.get("mimeType") == FOLDER:
            raise ToolError("bad_input", f"over: {f.get('name', file_id)} is a folder, not a file")
        before = self._office(f, file_id)
        kept_blob = storage.blob_write(self.connection, file_id, before.data, ".before")
        mime = content.mime_of(data.name, data.mime_type)
        media = MediaInMemoryUpload(data.data, mimetype=mime, resumable=False)
        updated = self._run(self.drive.files().update(fileId=file_id, media_body=media, body={},
                                                      fields=FIELDS + ",version", supportsAllDrives=True))
        return Written(self.meta(updated), {"op": "version", "file": file_id, "before_blob": kept_blob,
                                            "before_mime": before.mime_type, "native": f.get("mimeType"),
                                            "after_version": updated.get("version")})

    def move(self, file_id: str, *, folder_id: str) -> Written[list[str]]:
        parents = self._get(file_id, "id,name,parents").get("parents") or []
        # A file shared with the owner may be in none of their folders: then there is nothing to take it out of.
        self._run(self.drive.files().update(fileId=file_id, addParents=folder_id,
                                            removeParents=",".join(parents) or None, body={}, fields="id,parents",
                                            supportsAllDrives=True))
        return Written([self.global_id(p) for p in parents],
                       {"op": "move", "file": file_id, "from": parents, "to": folder_id})

    def rename(self, file_id: str, *, name: str) -> Written[str]:
        before = self._get(file_id, "id,name").get("name", "")
        self._run(self.drive.files().update(fileId=file_id, body={"name": name}, fields="id,name",
                                            supportsAllDrives=True))
        return Written(before, {"op": "rename", "file": file_id, "before": before, "after": name})

    def _flat(self, file_id: str) -> _Flat:
        return _Flat(self._run(self.docs.documents().get(documentId=file_id)))

    def append_text(self, file_id: str, *, text: str) -> Written[tuple[int, int]]:
        self._native(file_id, GOOGLE_DOC)
        flat = self._flat(file_id)
        at = max(0, len(flat.text) - 1)  # before the body's closing newline
        added = textedit.append(flat.text, text, at=at, separator="\n")
        index = flat.index_at(at)
        self._write_doc(file_id, [{"insertText": {"location": {"index": index}, "text": added.undo["inserted"]}}],
                        flat.revision)
        start = index + _units(added.undo["inserted"]) - _units(text)
        return Written((start, start + _units(text)), {"op": "append_text", "file": file_id, **added.undo})

    def replace_text(self, file_id: str, *, find: str, replace: str) -> Written[int]:
        self._native(file_id, GOOGLE_DOC)
        flat = self._flat(file_id)
        replaced = textedit.replace(flat.text, find, replace)
        if not replaced.starts:
            return Written(0, {})
        answer = self._write_doc(file_id, [{"replaceAllText": {
            "containsText": {"text": find, "matchCase": True}, "replaceText": replace,
        }}], flat.revision)
        changed = ((answer.get("replies") or [{}])[0].get("replaceAllText") or {}).get("occurrencesChanged")
        return Written(int(changed or len(replaced.starts)),
                       {"op": "replace_text", "file": file_id, **replaced.undo})

    def sheet_values(self, file_id: str, range_: str) -> list[list[str]]:
        self._native(file_id, GOOGLE_SHEET)
        sheets.parse_range(range_)
        answer = self._run(self.sheets_api.spreadsheets().values().get(
            spreadsheetId=file_id, range=range_, valueRenderOption="FORMATTED_VALUE"
        ))
        return [[str(v) for v in row] for row in answer.get("values") or []]

    def _tab(self, file_id: str, range_: str) -> tuple[dict, sheets.A1Range]:
        """The tab a range is on (the first when it names none), and the range read against the tabs' names."""
        tabs = self._tab_titles(file_id)
        if not tabs:
            raise ToolError("not_found", "That spreadsheet has no tabs.")
        rng = sheets.parse_range_in(range_, [t["title"] for t in tabs])
        tab = self._find_tab(tabs, rng.sheet)
        return tab, sheets.A1Range(tab["title"], rng.r1, rng.c1, rng.r2, rng.c2)

    @staticmethod
    def _find_tab(tabs: list[dict], name: str | None) -> dict:
        if name is None:
            return tabs[0]
        for tab in tabs:
            if tab["title"] == name:
                return tab
        for tab in tabs:
            if tab["title"].lower() == name.lower():
                return tab
        raise ToolError("bad_input", f"range: there is no tab {name!r}; the tabs are "
                                     f"{', '.join(t['title'] for t in tabs)}")

    def _values(self, file_id: str, range_: str, render: str) -> list[list]:
        answer = self._run(self.sheets_api.spreadsheets().values().get(
            spreadsheetId=file_id, range=range_, valueRenderOption=render
        ))
        return answer.get("values") or []

    def update_cells(self, file_id: str, *, range_: str, values: Values) -> Written[list[list[str]]]:
        self._native(file_id, GOOGLE_SHEET)
        tab, rng = self._tab(file_id, range_)
        area = sheets.write_area(rng, values)
        height, width = area.height, area.width
        where = area.as_text()
        shown = sheets.pad([[str(v) for v in row] for row in self._values(file_id, where, "FORMATTED_VALUE")],
                           height, width)
        before = sheets.pad(self._values(file_id, where, "FORMULA"), height, width)
        answer = self._run(self.sheets_api.spreadsheets().values().update(
            spreadsheetId=file_id, range=where, valueInputOption="USER_ENTERED", includeValuesInResponse=True,
            responseValueRenderOption="FORMULA", body={"values": values},
        ))
        after = sheets.pad((answer.get("updatedData") or {}).get("values") or [], height, width)
        return Written(shown, {
            "op": "update_cells", "file": file_id, "sheet_id": tab["sheetId"], "sheet": tab["title"],
            "range": [area.r1, area.c1, area.r2, area.c2], "before": before, "after": after,
        })

    def append_rows(self, file_id: str, *, range_: str, values: Values) -> Written[str]:
        self._native(file_id, GOOGLE_SHEET)
        tab, rng = self._tab(file_id, range_)
        target = rng.as_text()
        answer = self._run(self.sheets_api.spreadsheets().values().append(
            spreadsheetId=file_id, range=target, valueInputOption="USER_ENTERED", insertDataOption="INSERT_ROWS",
            includeValuesInResponse=True, responseValueRenderOption="FORMULA", body={"values": values},
        ))
        updates = answer.get("updates") or {}
        written = updates.get("updatedRange") or target
        return Written(written, {
            "op": "append_rows", "file": file_id, "sheet_id": tab["sheetId"], "range": written,
            "after": (updates.get("updatedData") or {}).get("values") or values,
        })

    # --- Undo ----------------------------------------------------------------------------------------------

    def undo(self, data: dict) -> None:
        op = data.get("op")
        if op == "many":
            for item in reversed(data["items"]):
                self.undo(item)
            return
        file_id: str = data["file"]  # every other write's undo names its file
        if op == "trash":
            f = self._get(file_id, "id,name,mimeType,trashed")
            if f.get("trashed"):
                raise ToolError("changed", f"{f.get('name', file_id)} is in the trash already; nothing was changed.")
            if f.get("mimeType") == FOLDER and self.list_folder(file_id, limit=1).items:
                raise ToolError("changed", f"{f.get('name')} has files in it now, so Undo won't put it in the trash; "
                                           "move them out first.")
            self._run(self.drive.files().update(fileId=file_id, body={"trashed": True}, fields="id,trashed",
                                                supportsAllDrives=True))
        elif op == "rename":
            name = self._get(file_id, "id,name").get("name")
            if name != data["after"]:
                raise file_changed_since(data["after"], f"it was renamed again since, to {name!r}")
            self._run(self.drive.files().update(fileId=file_id, body={"name": data["before"]}, fields="id,name",
                                                supportsAllDrives=True))
        elif op == "move":
            f = self._get(file_id, "id,name,parents")
            if set(f.get("parents") or []) != {data["to"]}:
                raise file_changed_since(f.get("name", file_id), "it was moved again since")
            self._run(self.drive.files().update(fileId=file_id, addParents=",".join(data["from"]) or None,
                                                removeParents=data["to"], body={}, fields="id,parents",
                                                supportsAllDrives=True))
        elif op in ("replace_text", "append_text"):
            flat = self._flat(file_id)
            edits = (textedit.replace_undo_edits if op == "replace_text" else textedit.append_undo_edits)(
                flat.text, data, what=flat.title or file_id
            )
            requests: list[dict] = []
            for edit in sorted(edits, key=lambda e: e.start, reverse=True):
                start, end = flat.span(edit.start, edit.length)
                if end > start:
                    requests.append({"deleteContentRange": {"range": {"startIndex": start, "endIndex": end}}})
                if edit.insert:
                    requests.append({"insertText": {"location": {"index": start}, "text": edit.insert}})
            if requests:
                self._write_doc(file_id, requests, flat.revision)
        elif op == "update_cells":
            r1, c1, r2, c2 = data["range"]
            where = sheets.A1Range(data["sheet"], r1, c1, r2, c2).as_text()
            if not sheets.same_cells(self._values(file_id, where, "FORMULA"), data["after"]):
                raise file_changed_since(where, "the cells were changed since")
            self._run(self.sheets_api.spreadsheets().batchUpdate(spreadsheetId=file_id, body={"requests": [
                {"updateCells": {
                    "range": {"sheetId": data["sheet_id"], "startRowIndex": r1, "endRowIndex": r2 + 1,
                              "startColumnIndex": c1, "endColumnIndex": c2 + 1},
                    "rows": [{"values": [_cell_data(v) for v in row]} for row in data["before"]],
                    "fields": "userEnteredValue",
                }},
            ]}))
        elif op == "version":
            from googleapiclient.http import MediaInMemoryUpload

            f = self._get(file_id, "id,name,version")
            if data.get("after_version") and f.get("version") != data["after_version"]:
                raise file_changed_since(f.get("name", file_id), "it has a newer version since")
            before = storage.blob_read(data["before_blob"], name=f.get("name", file_id))
            media = MediaInMemoryUpload(before, mimetype=data["before_mime"], resumable=False)
            self._run(self.drive.files().update(fileId=file_id, media_body=media, body={}, fields="id",
                                                supportsAllDrives=True))
        elif op == "append_rows":
            if not sheets.same_cells(self._values(file_id, data["range"], "FORMULA"), data["after"]):
                raise file_changed_since(data["range"], "the rows added there were changed since")
            added = sheets.parse_range(data["range"])
            if added.r2 is None:  # Sheets names the rows it added ("Log!A5:D7"); a whole tab or column can't say
                raise ToolError("unsupported", f"Undo can't tell which rows were added at {data['range']}; nothing "
                                               "was changed.")
            self._run(self.sheets_api.spreadsheets().batchUpdate(spreadsheetId=file_id, body={"requests": [
                {"deleteDimension": {"range": {"sheetId": data["sheet_id"], "dimension": "ROWS",
                                               "startIndex": added.top, "endIndex": added.r2 + 1}}},
            ]}))
        else:
            raise ToolError("unsupported", f"Google Drive can't undo {op!r}.")

    # --- events --------------------------------------------------------------------------------------------

    def changes(self, cursor: str | None) -> Changes[FileMeta]:
        changes = self.drive.changes()
        if cursor is None:
            answer = self._run(changes.getStartPageToken(supportsAllDrives=True))
            return Changes([], answer["startPageToken"])
        items, token = [], cursor
        for _ in range(MAX_CHANGE_PAGES):
            answer = self._run(changes.list(
                pageToken=token, pageSize=100, spaces="drive", supportsAllDrives=True, includeItemsFromAllDrives=True,
                fields=f"nextPageToken,newStartPageToken,changes(fileId,removed,file({FIELDS}))",
            ))
            for change in answer.get("changes", []):
                f = change.get("file")
                if not change.get("removed") and f and not f.get("trashed"):
                    items.append(self.meta(f))
            if answer.get("newStartPageToken"):
                return Changes(items, answer["newStartPageToken"])
            token = answer.get("nextPageToken") or token
            if not answer.get("nextPageToken"):
                break
        return Changes(items, token)


    # --- the search copy -------------------------------------------------------------------------------------

    def copy_start(self) -> str:
        """The changes token of now: changes from here on are caught after a full listing."""
        return self._run(self.drive.changes().getStartPageToken(supportsAllDrives=True))["startPageToken"]

    def copy_files(self, *, page: str | None, size: int) -> Page[dict]:
        answer = self._run(self.drive.files().list(
            q=f"trashed = false and mimeType != '{FOLDER}'", pageSize=size, pageToken=page or None, spaces="drive",
            fields=f"nextPageToken,files({FIELDS})", supportsAllDrives=True, includeItemsFromAllDrives=True,
        ))
        return Page(answer.get("files", []), answer.get("nextPageToken"))

    def copy_changes(self, *, token: str, size: int) -> FileChanges:
        try:
            answer = self._run(self.drive.changes().list(
                pageToken=token, pageSize=size, spaces="drive", includeRemoved=True, supportsAllDrives=True,
                includeItemsFromAllDrives=True,
                fields=f"nextPageToken,newStartPageToken,changes(fileId,removed,file({FIELDS}))",
            ))
        except ToolError as error:
            if error.kind == "not_found":
                raise CursorExpired("Google Drive no longer takes this changes token") from error
            raise
        files, gone = [], []
        for change in answer.get("changes", []):
            f = change.get("file")
            if change.get("removed") or not f or f.get("trashed"):
                gone.append(change.get("fileId") or (f or {}).get("id"))
            elif f.get("mimeType") != FOLDER:
                files.append(f)
        return FileChanges(files, [g for g in gone if g], answer.get("nextPageToken"), answer.get("newStartPageToken"))

    def folder(self, folder_id: str) -> tuple[str, list[str]]:
        f = self._get(folder_id, "id,name,parents")
        return f.get("name", ""), list(f.get("parents") or [])

    def copy_text(self, f: dict) -> tuple[str, str]:
        """A file's text for the search copy, and how well it was read. Failures the owner must see to (rate limits,
        a refused sign-in, Google not answering) are raised; any other leaves the file copied without its text."""
        mime, name = f.get("mimeType", ""), f.get("name", "")
        try:
            if mime in _EXPORTS:
                target, extension = _EXPORTS[mime]
                data = FileData(name + extension, target,
                                self._run(self.drive.files().export(fileId=f["id"], mimeType=target)))
            elif mime.startswith(GOOGLE_PREFIX):
                return "", "no text: a Google file of a kind that has none"
            else:
                mime = content.mime_of(name, mime)
                kind = content.kind_of(mime, name)
                if kind == "image":
                    return "", "a picture: no text to search"
                if kind == "file" and not content.is_text_mime(mime):
                    return "", "no text: not a kind of file with text to read"
                if int(f.get("size") or 0) > content.MAX_FILE_BYTES:
                    return "", "no text: over 25 MB"
                data = FileData(name, mime, self._run(self.drive.files().get_media(fileId=f["id"],
                                                                                   supportsAllDrives=True)))
            extracted = content.extract(data)
        except ToolError as error:
            if error.kind in _STOP_KINDS:
                raise
            return "", f"no text: {error.message}"
        return extracted.text, "text" if extracted.text.strip() else "no text found (a scan?)"


register_provider("google", "files", DriveProvider)
