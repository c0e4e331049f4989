"""Roadstar's own files: the embedded files provider, with no account and no network.

Files and folders are `LocalFile` rows (integrations/local/models_files.py) with their bytes on disk
(integrations/files/storage.py). Documents are Markdown or plain text files and .docx (read and written as text,
a paragraph a line); spreadsheets are .xlsx (openpyxl, every tab) and .csv (one tab, named after the file).
Every write returns what Undo needs, and Undo checks the file still holds what the write left.

A local file's link is `/files/<account key>/<file id>`; ids are Drive-like.
"""

from __future__ import annotations

import datetime
import io
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, overload

from django.db.models import Case, IntegerField, Max, Q, Value, When
from django.utils import timezone

from core.errors import ToolError
from integrations.files import content, sheets, storage, textedit
from integrations.files.content import CSV, DOCX, MARKDOWN, PLAIN, XLSX
from integrations.local.models_files import FOLDER_MIME, LocalFile, LocalFileChange
from integrations.providers.base import (
    Changes,
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

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

DOC_MIMES = (MARKDOWN, PLAIN, DOCX)
SHEET_MIMES = (XLSX, CSV)
_EXTENSIONS = {MARKDOWN: ".md", PLAIN: ".txt", DOCX: ".docx", XLSX: ".xlsx", CSV: ".csv", content.PDF: ".pdf"}
_LINK = re.compile(r"/files/([0-9a-f]{8})/([A-Za-z0-9_-]{6,64})/?(?:[?#].*)?$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
SEARCH_TEXT_CHARS = 200_000
TOP = "My files"  # the top of the owner's files, as `from` and replaces name it


def new_file_id() -> str:
    return "1" + secrets.token_urlsafe(20).replace("-", "x").replace("_", "y")


class LocalFilesProvider(FilesProvider):
    # --- finding -------------------------------------------------------------------------------------------

    @classmethod
    def id_from_link(cls, link: str) -> str | None:
        match = _LINK.search(link.strip())
        return match.group(2) if match else None

    def _rows(self):
        return LocalFile.objects.filter(connection=self.connection)

    def _row(self, file_id: str, *, trashed: bool = False) -> LocalFile:
        rows = self._rows().filter(file_id=file_id)
        # `text` (the words search reads, up to 200,000 characters) stays in the database unless a search asks.
        row = (rows if trashed else rows.filter(trashed=False)).select_related("parent").defer("text").first()
        if row is None:
            raise ToolError("not_found", f"No file {self.global_id(file_id)} in {self.source}'s files, or it was "
                                         "moved to the trash: search for it again.")
        return row

    @overload
    def _folder(self, folder_id: str) -> LocalFile: ...
    @overload
    def _folder(self, folder_id: None) -> None: ...
    @overload
    def _folder(self, folder_id: str | None) -> LocalFile | None: ...
    def _folder(self, folder_id: str | None) -> LocalFile | None:
        if folder_id is None:
            return None
        row = self._row(folder_id)
        if not row.is_folder:
            raise ToolError("bad_input", f"folderId: {row.name} is a file, not a folder")
        return row

    def url(self, file_id: str) -> str:
        return f"/files/{self.connection.account_key}/{file_id}"

    def meta(self, row: LocalFile) -> FileMeta:
        return FileMeta(
            id=self.global_id(row.file_id), name=row.name, mime_type=row.mime_type,
            kind=content.kind_of(row.mime_type, row.name), url=self.url(row.file_id),
            parents=[self.global_id(row.parent.file_id)] if row.parent is not None else [], size=row.size,
            modified=row.modified_at, modified_by=row.modified_by or None,
        )

    def _hit(self, row: LocalFile, snippet: str | None = None) -> Hit:
        hit = self.meta(row).as_hit()
        hit.snippet = snippet
        return hit

    def folder_name(self, folder_id: str | None) -> str:
        return self._row(folder_id, trashed=True).name if folder_id else TOP

    def search(self, query, *, modified_after, limit, page=None) -> Page[Hit]:
        words = query.split()
        if not words:
            return Page([])
        rows = self._rows().filter(trashed=False)
        for word in words:
            rows = rows.filter(Q(name__icontains=word) | Q(text__icontains=word))
        if modified_after is not None:
            rows = rows.filter(modified_at__gt=modified_after)
        in_name = Q()
        for word in words:
            in_name &= Q(name__icontains=word)
        rows = rows.annotate(
            rank=Case(When(in_name, then=Value(0)), default=Value(1), output_field=IntegerField())
        ).order_by("rank", "-modified_at", "file_id").select_related("parent")
        offset = _offset(page)
        found = list(rows[offset: offset + limit + 1])
        hits = [self._hit(row, _snippet(row.text, words)) for row in found[:limit]]
        return Page(hits, str(offset + limit) if len(found) > limit else None)

    def get(self, file_id: str) -> FileMeta:
        return self.meta(self._row(file_id))

    def list_folder(self, folder_id: str, *, limit: int, page=None) -> Page[Hit]:
        folder = self._row(folder_id)
        if not folder.is_folder:
            raise ToolError("bad_input", f"id: {folder.name} is a file, not a folder")
        offset = _offset(page)
        rows = (
            self._rows().filter(parent=folder, trashed=False)
            .annotate(folder_first=Case(When(mime_type=FOLDER_MIME, then=Value(0)), default=Value(1),
                                        output_field=IntegerField()))
            .order_by("folder_first", "name", "file_id").select_related("parent").defer("text")
        )
        found = list(rows[offset: offset + limit + 1])
        return Page([self._hit(r) for r in found[:limit]], str(offset + limit) if len(found) > limit else None)

    # --- bytes ---------------------------------------------------------------------------------------------

    def _bytes(self, row: LocalFile) -> bytes:
        return storage.blob_read(row.blob, name=row.name)

    def download(self, file_id: str) -> FileData:
        row = self._row(file_id)
        if row.is_folder:
            raise ToolError("unsupported", f"{row.name} is a folder: read it to list what's in it.")
        if (row.size or 0) > content.MAX_FILE_BYTES:
            raise ToolError("too_large", f"{row.name} is over 25 MB. Use its link instead.")
        return FileData(name=_with_extension(row.name, row.mime_type), mime_type=row.mime_type,
                        data=self._bytes(row))

    def export_pdf(self, file_id: str) -> FileData:
        return self.download(file_id)

    def tabs(self, file_id: str) -> list[tuple[str, list[list[str]]]]:
        """A spreadsheet's tabs as shown: (name, rows)."""
        book = self._sheet(self._row(file_id))
        return [(title, book.shown_rows(title)) for title in book.titles]

    # --- writes that make something ------------------------------------------------------------------------

    def _new(self, *, name: str, mime: str, parent: LocalFile | None, data: bytes | None = None) -> LocalFile:
        file_id = new_file_id()
        row = LocalFile(connection=self.connection, file_id=file_id, name=name, mime_type=mime, parent=parent,
                        modified_by=self.connection.account)
        if data is not None:
            row.blob = storage.blob_write(self.connection, file_id, data, _EXTENSIONS.get(mime, ""))
            row.size = len(data)
            row.text = _search_text(name, mime, data)
        row.save()
        LocalFileChange.objects.create(connection=self.connection, file=row)
        return row

    def _made(self, row: LocalFile) -> Written[FileMeta]:
        return Written(self.meta(row), {"op": "trash", "file": row.file_id})

    def copy(self, file_id: str, *, name: str, folder_id: str | None) -> Written[FileMeta]:
        source = self._row(file_id)
        if source.is_folder:
            raise ToolError("unsupported", f"{source.name} is a folder; folders can't be copied, only files.")
        parent = self._folder(folder_id) if folder_id else source.parent
        return self._made(self._new(name=name, mime=source.mime_type, parent=parent, data=self._bytes(source)))

    def create_folder(self, *, name: str, parent_id: str | None) -> Written[FileMeta]:
        return self._made(self._new(name=name, mime=FOLDER_MIME, parent=self._folder(parent_id)))

    def create_doc(self, *, name: str, markdown: str, folder_id: str | None) -> Written[FileMeta]:
        return self._made(self._new(name=name, mime=MARKDOWN, parent=self._folder(folder_id),
                                    data=markdown.encode("utf-8")))

    def create_sheet(self, *, name: str, rows: Values, folder_id: str | None) -> Written[FileMeta]:
        import openpyxl
        from openpyxl.styles import Font

        book = openpyxl.Workbook()
        sheet = book.worksheets[0]  # a new workbook's one tab
        sheet.title = "Sheet1"
        for row in rows:
            sheet.append([_entered(v) for v in row])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        sheet.freeze_panes = "A2"
        out = io.BytesIO()
        book.save(out)
        return self._made(self._new(name=name, mime=XLSX, parent=self._folder(folder_id), data=out.getvalue()))

    def upload(self, data: FileData, *, name: str, folder_id: str | None, convert: bool = False) -> Written[FileMeta]:
        # Local documents and sheets are the Office and text files themselves: there is nothing to convert to.
        mime = content.mime_of(data.name, data.mime_type)
        return self._made(self._new(name=name, mime=mime, parent=self._folder(folder_id), data=data.data))

    # --- writes that change what's there -------------------------------------------------------------------

    def upload_version(self, file_id: str, data: FileData) -> Written[FileMeta]:
        # The version before stays on disk (its blob is not forgotten) for Undo, which points the file back at it.
        row = self._row(file_id)
        if row.is_folder:
            raise ToolError("bad_input", f"over: {row.name} is a folder, not a file")
        before_blob, before_size = row.blob, row.size
        row.blob = storage.blob_write(self.connection, row.file_id, data.data, _EXTENSIONS.get(row.mime_type, ""))
        row.size = len(data.data)
        row.text = _search_text(row.name, row.mime_type, data.data)
        self._touch(row, ["blob", "size", "text"])
        return Written(self.meta(row), {"op": "version", "file": row.file_id, "before_blob": before_blob,
                                        "before_size": before_size, "after_blob": row.blob})


    def _touch(self, row: LocalFile, fields: list[str]) -> None:
        row.modified_at = timezone.now()
        row.modified_by = self.connection.account
        row.save(update_fields=[*fields, "modified_at", "modified_by"])
        LocalFileChange.objects.create(connection=self.connection, file=row)

    def _write_bytes(self, row: LocalFile, data: bytes) -> None:
        old = row.blob
        row.blob = storage.blob_write(self.connection, row.file_id, data, _EXTENSIONS.get(row.mime_type, ""))
        row.size = len(data)
        row.text = _search_text(row.name, row.mime_type, data)
        self._touch(row, ["blob", "size", "text"])
        storage.blob_forget(old)

    def move(self, file_id: str, *, folder_id: str) -> Written[list[str]]:
        row = self._row(file_id)
        folder = self._folder(folder_id)
        ancestor: LocalFile | None = folder
        while ancestor is not None:
            if ancestor.pk == row.pk:
                raise ToolError("bad_input", f"folderId: {folder.name} is inside {row.name}; a folder can't move "
                                             "into itself")
            ancestor = ancestor.parent
        before = row.parent.file_id if row.parent is not None else None
        row.parent = folder
        self._touch(row, ["parent"])
        return Written([self.global_id(before)] if before else [],
                       {"op": "move", "file": row.file_id, "from": before, "to": folder.file_id})

    def rename(self, file_id: str, *, name: str) -> Written[str]:
        row = self._row(file_id)
        before = row.name
        row.name = name
        self._touch(row, ["name"])
        return Written(before, {"op": "rename", "file": row.file_id, "before": before, "after": name})

    def append_text(self, file_id: str, *, text: str) -> Written[tuple[int, int]]:
        row = self._row(file_id)
        document = self._document(row)
        # A .docx's paragraphs are lines of its text; a text file's paragraphs are separated by a blank line.
        added = textedit.append(document.text, text, separator="\n" if document.docx else "\n\n")
        self._write_bytes(row, document.with_text(added.text))
        return Written((added.start, added.end), {"op": "append_text", "file": row.file_id, **added.undo})

    def replace_text(self, file_id: str, *, find: str, replace: str) -> Written[int]:
        row = self._row(file_id)
        document = self._document(row)
        if document.docx and ("\n" in find or "\n" in replace):
            raise ToolError("unsupported", f"{row.name} is a .docx: find and replace each stay within one "
                                           "paragraph there, so neither may hold a line break.")
        replaced = textedit.replace(document.text, find, replace)
        if not replaced.starts:
            return Written(0, {})
        self._write_bytes(row, document.with_text(replaced.text))
        return Written(len(replaced.starts), {"op": "replace_text", "file": row.file_id, **replaced.undo})

    def sheet_values(self, file_id: str, range_: str) -> list[list[str]]:
        book = self._sheet(self._row(file_id))
        rng = sheets.parse_range_in(range_, book.titles)
        title = book.title_of(rng.sheet)
        bottom = rng.r2 if rng.r2 is not None else book.last_row(title)
        right = rng.c2 if rng.c2 is not None else book.last_column(title)
        return content.trim([
            [book.shown(title, r, c) for c in range(rng.left, right + 1)] for r in range(rng.top, bottom + 1)
        ])

    def append_rows(self, file_id: str, *, range_: str, values: Values) -> Written[str]:
        row = self._row(file_id)
        book = self._sheet(row)
        rng = sheets.parse_range_in(range_, book.titles)
        title = book.title_of(rng.sheet)
        height, width = sheets.shape(values)
        right = rng.c2 if rng.c2 is not None else rng.left + width - 1
        last = book.last_row(title, columns=range(rng.left, right + 1), from_row=rng.top)
        start = max(last + 1, rng.top)
        book.insert_rows(title, start, height)
        for i, values_row in enumerate(values):
            for j, value in enumerate(values_row):
                book.set(title, start + i, rng.left + j, _entered(value))
        self._write_bytes(row, book.save())
        area = sheets.Area(title, start, rng.left, start + height - 1, rng.left + width - 1)
        return Written(area.as_text(), {
            "op": "append_rows", "file": row.file_id, "sheet": title, "start": start, "count": height,
            "after": _encode_block(book.block(title, area)), "left": rng.left, "width": width,
        })

    def update_cells(self, file_id: str, *, range_: str, values: Values) -> Written[list[list[str]]]:
        row = self._row(file_id)
        book = self._sheet(row)
        rng = sheets.parse_range_in(range_, book.titles)
        title = book.title_of(rng.sheet)
        area = sheets.write_area(sheets.A1Range(title, rng.r1, rng.c1, rng.r2, rng.c2), values)
        shown_before = book.shown_block(title, area)
        before = book.block(title, area)
        for i, values_row in enumerate(values):
            for j, value in enumerate(values_row):
                book.set(title, area.top + i, area.left + j, _entered(value))
        self._write_bytes(row, book.save())
        return Written(shown_before, {
            "op": "update_cells", "file": row.file_id, "sheet": title, "range": [area.r1, area.c1, area.r2, area.c2],
            "before": _encode_block(before), "after": _encode_block(book.block(title, area)),
        })

    # --- Undo ----------------------------------------------------------------------------------------------

    def undo(self, data: dict) -> None:
        op = data.get("op")
        if op == "many":
            for item in reversed(data["items"]):
                self.undo(item)
            return
        row = self._row(data["file"], trashed=True)
        what = row.name
        if op == "trash":
            if row.trashed:
                raise ToolError("changed", f"{what} is in the trash already; nothing was changed.")
            if row.is_folder and self._rows().filter(parent=row, trashed=False).exists():
                raise ToolError("changed", f"{what} has files in it now, so Undo won't put it in the trash; move "
                                           "them out first.")
            row.trashed = True
            self._touch(row, ["trashed"])
            return
        if row.trashed:
            raise ToolError("changed", f"{what} was moved to the trash since; nothing was put back.")
        if op == "rename":
            if row.name != data["after"]:
                raise file_changed_since(what, f"it was renamed again since, to {row.name!r}")
            row.name = data["before"]
            self._touch(row, ["name"])
        elif op == "move":
            where = row.parent.file_id if row.parent is not None else None
            if where != data["to"]:
                raise file_changed_since(what, "it was moved again since")
            row.parent = self._row(data["from"]) if data["from"] else None
            self._touch(row, ["parent"])
        elif op in ("replace_text", "append_text"):
            document = self._document(row)
            edits = (textedit.replace_undo_edits if op == "replace_text" else textedit.append_undo_edits)(
                document.text, data, what=what
            )
            self._write_bytes(row, document.with_text(textedit.apply(document.text, edits)))
        elif op == "version":
            if row.blob != data["after_blob"]:
                raise file_changed_since(what, "it has a newer version since")
            after = row.blob
            row.blob = data["before_blob"]
            row.size = data["before_size"]
            row.text = _search_text(row.name, row.mime_type, self._bytes(row))
            self._touch(row, ["blob", "size", "text"])
            storage.blob_forget(after)
        elif op == "update_cells":
            book = self._sheet(row)
            area = sheets.Area(data["sheet"], *data["range"])
            title = book.title_of(data["sheet"])
            if _encode_block(book.block(title, area)) != data["after"]:
                raise file_changed_since(what, f"the cells {area.as_text()} were changed since")
            for i, values_row in enumerate(_decode_block(data["before"])):
                for j, value in enumerate(values_row):
                    book.set(title, area.top + i, area.left + j, value)
            self._write_bytes(row, book.save())
        elif op == "append_rows":
            book = self._sheet(row)
            title = book.title_of(data["sheet"])
            area = sheets.Area(title, data["start"], data["left"], data["start"] + data["count"] - 1,
                               data["left"] + data["width"] - 1)
            if _encode_block(book.block(title, area)) != data["after"]:
                raise file_changed_since(what, f"the rows added at {area.as_text()} were changed since")
            book.delete_rows(title, data["start"], data["count"])
            self._write_bytes(row, book.save())
        else:
            raise ToolError("unsupported", f"Roadstar's files can't undo {op!r}.")

    # --- events --------------------------------------------------------------------------------------------

    def changes(self, cursor: str | None) -> Changes[FileMeta]:
        lines = LocalFileChange.objects.filter(connection=self.connection)
        if cursor is None:
            return Changes([], str(lines.aggregate(last=Max("id"))["last"] or 0))
        try:
            after = int(cursor)
        except ValueError:
            after = 0
        batch = list(lines.filter(id__gt=after).order_by("id").select_related("file", "file__parent")
                     .defer("file__text")[:500])
        seen, items = set(), []
        for line in reversed(batch):
            if line.file_id not in seen and not line.file.trashed:
                seen.add(line.file_id)
                items.append(self.meta(line.file))
        items.reverse()
        return Changes(items, str(batch[-1].id) if batch else str(after))

    # --- importing a folder --------------------------------------------------------------------------------

    def import_path(self, path: Path, *, folder_id: str | None = None) -> ImportOutcome:
        """Bring a folder of files (.md, .txt, .csv, .xlsx, .docx, .pdf, pictures …) in, keeping its folders.

        Importing again updates the files whose bytes changed, and adds none twice (same name, same folder).
        """
        outcome = ImportOutcome()
        self._import(Path(path), self._folder(folder_id), outcome)
        return outcome

    def _import(self, path: Path, parent: LocalFile | None, outcome: ImportOutcome) -> None:
        for entry in sorted(path.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())):
            if entry.name.startswith((".", "~$")):
                continue
            same = self._rows().filter(parent=parent, name=entry.name, trashed=False).first()
            if entry.is_dir():
                if same is None or not same.is_folder:
                    same = self._new(name=entry.name, mime=FOLDER_MIME, parent=parent)
                    outcome.added.append(self.meta(same))
                self._import(entry, same, outcome)
                continue
            data = entry.read_bytes()
            if same is None or same.is_folder:
                row = self._new(name=entry.name, mime=content.mime_of(entry.name), parent=parent, data=data)
                outcome.added.append(self.meta(row))
            elif self._bytes(same) != data:
                self._write_bytes(same, data)
                outcome.updated.append(self.meta(same))
            else:
                outcome.unchanged += 1

    # --- documents and spreadsheets ------------------------------------------------------------------------

    def _document(self, row: LocalFile) -> _Document:
        if row.mime_type not in DOC_MIMES:
            raise ToolError("unsupported", f"{row.name} isn't a document (.md, .txt or .docx), so its text can't be "
                                           "changed here.")
        return _Document(row.mime_type, self._bytes(row))

    def _sheet(self, row: LocalFile) -> _Book:
        if row.mime_type not in SHEET_MIMES:
            raise ToolError("unsupported", f"{row.name} isn't a spreadsheet (.xlsx or .csv).")
        return _Book(row.mime_type, self._bytes(row), stem=re.sub(r"\.csv$", "", row.name, flags=re.I))


@dataclass
class ImportOutcome:
    added: list[FileMeta] = field(default_factory=list)
    updated: list[FileMeta] = field(default_factory=list)
    unchanged: int = 0


class _Document:
    """A document as one string: a text file's text, or a .docx's body paragraphs, one a line."""

    def __init__(self, mime: str, raw: bytes):
        self.docx = mime == DOCX
        if self.docx:
            import docx

            self._document = docx.Document(io.BytesIO(raw))
            self.text = "\n".join(p.text for p in self._document.paragraphs)
        else:
            self.text = content.decode(raw)

    def with_text(self, text: str) -> bytes:
        if not self.docx:
            return text.encode("utf-8")
        paragraphs = self._document.paragraphs
        lines = text.split("\n")
        for paragraph, line in zip(paragraphs, lines, strict=False):
            if paragraph.text != line:
                _set_paragraph_text(paragraph, line)
        for line in lines[len(paragraphs):]:
            self._document.add_paragraph(line)
        for paragraph in paragraphs[len(lines):]:
            paragraph._element.getparent().remove(paragraph._element)
        out = io.BytesIO()
        self._document.save(out)
        return out.getvalue()


def _set_paragraph_text(paragraph, text: str) -> None:
    """New words in a paragraph, in its first run's formatting."""
    from docx.oxml.ns import qn

    runs = paragraph.runs
    for child in list(paragraph._element):
        if child.tag in (qn("w:r"), qn("w:hyperlink")) and (not runs or child is not runs[0]._element):
            paragraph._element.remove(child)
    if runs:
        runs[0].text = text
    else:
        paragraph.add_run(text)


class _Book:
    """A spreadsheet's cells, 0-based: an .xlsx through openpyxl, or a .csv as one tab of text cells."""

    def __init__(self, mime: str, raw: bytes, *, stem: str):
        self.csv = mime == CSV
        self._raw = raw
        self._cached: Workbook | None = None  # the values formulas had when last saved, read when first asked
        self._charts: list[str] = []
        if self.csv:
            self.titles = [stem]
            self._grid = [list(r) for r in content.csv_rows(content.decode(raw))]
        else:
            import openpyxl

            try:
                self._book = openpyxl.load_workbook(io.BytesIO(raw))
            except Exception as e:  # openpyxl raises many kinds for a file that isn't a workbook
                raise ToolError("unsupported", f"This .xlsx can't be opened ({e.__class__.__name__}).") from e
            # A chart tab has no cells: the tabs are the worksheets; title_of names a chart's as a chart.
            self.titles = [sheet.title for sheet in self._book.worksheets]
            self._charts = [sheet.title for sheet in self._book.chartsheets]

    def title_of(self, name: str | None) -> str:
        if not self.titles:
            raise ToolError("bad_input", "range: this workbook's tabs are all charts; it has no cells to read")
        if name is None:
            return self.titles[0]
        for title in self.titles:
            if title == name:
                return title
        for title in self.titles:
            if title.lower() == name.lower():
                return title
        if name.lower() in (chart.lower() for chart in self._charts):
            raise ToolError("bad_input", f"range: the tab {name!r} is a chart, with no cells; the tabs with cells are "
                                         f"{', '.join(self.titles)}")
        raise ToolError("bad_input", f"range: there is no tab {name!r}; the tabs are {', '.join(self.titles)}")

    def get(self, title: str, r: int, c: int):
        if self.csv:
            row = self._grid[r] if r < len(self._grid) else []
            return row[c] if c < len(row) and row[c] != "" else None
        # Read the cell without making it: openpyxl's cell() adds every cell it is asked about to the sheet.
        cell = _worksheet(self._book, title)._cells.get((r + 1, c + 1))
        return cell.value if cell is not None else None

    def set(self, title: str, r: int, c: int, value) -> None:
        if self.csv:
            while len(self._grid) <= r:
                self._grid.append([])
            row = self._grid[r]
            while len(row) <= c:
                row.append("")
            row[c] = content.display(value)
            return
        _worksheet(self._book, title).cell(row=r + 1, column=c + 1).value = value

    def shown(self, title: str, r: int, c: int) -> str:
        value = self.get(title, r, c)
        if isinstance(value, str) and value.startswith("=") and not self.csv:
            cached = self._cached_value(title, r, c)
            if cached is not None:
                return content.display(cached)
        return content.display(value)

    def _cached_value(self, title: str, r: int, c: int):
        if self._cached is None:
            import openpyxl

            self._cached = openpyxl.load_workbook(io.BytesIO(self._raw), data_only=True)
        return _worksheet(self._cached, title).cell(row=r + 1, column=c + 1).value

    def last_row(self, title: str, *, columns=None, from_row: int = 0) -> int:
        """The last row with something in it (in `columns` when given), -1 when none; 0-based."""
        height = len(self._grid) if self.csv else _worksheet(self._book, title).max_row
        width = self.last_column(title) + 1
        columns = list(columns) if columns is not None else range(width)
        for r in range(height - 1, from_row - 1, -1):
            if any(self.get(title, r, c) not in (None, "") for c in columns):
                return r
        return from_row - 1

    def last_column(self, title: str) -> int:
        if self.csv:
            return max((len(r) for r in self._grid), default=0) - 1
        return _worksheet(self._book, title).max_column - 1

    def block(self, title: str, area: sheets.Area) -> list[list]:
        return [[self.get(title, r, c) for c in range(area.c1, area.c2 + 1)] for r in range(area.r1, area.r2 + 1)]

    def shown_block(self, title: str, area: sheets.Area) -> list[list[str]]:
        return [[self.shown(title, r, c) for c in range(area.c1, area.c2 + 1)] for r in range(area.r1, area.r2 + 1)]

    def shown_rows(self, title: str) -> list[list[str]]:
        bottom, right = self.last_row(title), self.last_column(title)
        return content.trim([[self.shown(title, r, c) for c in range(right + 1)] for r in range(bottom + 1)])

    def insert_rows(self, title: str, at: int, count: int) -> None:
        if self.csv:
            while len(self._grid) < at:
                self._grid.append([])
            self._grid[at:at] = [[] for _ in range(count)]
        else:
            _worksheet(self._book, title).insert_rows(at + 1, count)

    def delete_rows(self, title: str, at: int, count: int) -> None:
        if self.csv:
            del self._grid[at: at + count]
        else:
            _worksheet(self._book, title).delete_rows(at + 1, count)

    def save(self) -> bytes:
        if self.csv:
            return content.rows_csv(content.trim(self._grid)).encode("utf-8")
        out = io.BytesIO()
        self._book.save(out)
        return out.getvalue()


# --- helpers --------------------------------------------------------------------------------------------------


def _worksheet(book: Workbook, title: str) -> Worksheet:
    """A tab with cells: _Book's titles are only those (a chart tab has none)."""
    from openpyxl.worksheet.worksheet import Worksheet

    sheet = book[title]
    if not isinstance(sheet, Worksheet):
        raise ToolError("bad_input", f"range: the tab {title!r} is a chart, with no cells")
    return sheet


def _offset(page: str | None) -> int:
    if not page:
        return 0
    if not page.isdigit():
        raise ToolError("bad_input", "page: pass nextPage exactly as it was given")
    return int(page)


def _snippet(text: str, words: list[str], width: int = 160) -> str | None:
    lowered = text.lower()
    hits = [i for i in (lowered.find(w.lower()) for w in words) if i >= 0]
    if not hits:
        return None
    start = max(0, min(hits) - width // 3)
    piece = " ".join(text[start: start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _with_extension(name: str, mime: str) -> str:
    ext = _EXTENSIONS.get(mime) or ""
    return name if not ext or name.lower().endswith(ext) else name + ext


def _search_text(name: str, mime: str, data: bytes) -> str:
    """The words search finds a file by; nothing for what has no text (pictures, scanned PDFs)."""
    try:
        if mime == CSV:
            text = content.decode(data)
        else:
            text = content.extract(FileData(name=_with_extension(name, mime), mime_type=mime, data=data)).text
    except ToolError:
        return ""
    except Exception:  # noqa: BLE001  (a broken file is still kept; it just can't be searched by its words)
        return ""
    return text[:SEARCH_TEXT_CHARS]


def _entered(value):
    """A value as the owner typing it would leave it: numbers as numbers."""
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        number = float(value)
        return int(number) if number.is_integer() and "." not in value else number
    return value


def _encode(value):
    if isinstance(value, datetime.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"time": value.isoformat()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# The kinds _encode writes a date or time as, each read back by its class's fromisoformat.
_DECODERS: dict[str, Callable[[str], datetime.date | datetime.time]] = {
    "datetime": datetime.datetime.fromisoformat, "date": datetime.date.fromisoformat,
    "time": datetime.time.fromisoformat,
}


def _decode(value):
    if isinstance(value, dict):
        (kind, text), = value.items()
        return _DECODERS[kind](text)
    return value


def _encode_block(rows: list[list]) -> list[list]:
    return [[_encode(v) for v in row] for row in rows]


def _decode_block(rows: list[list]) -> list[list]:
    return [[_decode(v) for v in row] for row in rows]


register_provider("local", "files", LocalFilesProvider)
