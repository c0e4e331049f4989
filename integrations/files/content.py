"""A file's bytes as an agent reads them, the same for every app: text, a sheet's tabs, or a picture.

`extract(FileData)` gives text for documents (Markdown, plain text, CSV, .docx, .pptx), PDFs (pypdf; a scanned
PDF has no text: `unsupported`), spreadsheets (.xlsx: every tab, as CSV under its name) and an image for
pictures. `kind_of(mime, name)` names a file's kind the way results show it (`Hit.type`).
"""

from __future__ import annotations

import base64
import csv
import datetime
import io
import mimetypes
import re
import zipfile
from dataclasses import dataclass

from core.errors import ToolError
from integrations.providers.base import FileData

MB = 1024 * 1024
MAX_FILE_BYTES = 25 * MB  # the spec's "a file over 25 MB": too_large
MAX_IMAGE_BYTES = 5 * MB  # the largest picture a model takes in one image
PAGE_CHARS = 30_000  # files.read's "30,000 characters at a time"

FOLDER_MIMES = {"application/vnd.google-apps.folder", "inode/directory"}
GOOGLE_DOC = "application/vnd.google-apps.document"
GOOGLE_SHEET = "application/vnd.google-apps.spreadsheet"
GOOGLE_SLIDES = "application/vnd.google-apps.presentation"
GOOGLE_PREFIX = "application/vnd.google-apps."
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
PDF = "application/pdf"
MARKDOWN = "text/markdown"
CSV = "text/csv"
PLAIN = "text/plain"

_KINDS = {
    GOOGLE_DOC: "doc", DOCX: "doc", MARKDOWN: "doc", PLAIN: "doc", "application/msword": "doc",
    GOOGLE_SHEET: "sheet", XLSX: "sheet", CSV: "sheet", "application/vnd.ms-excel": "sheet",
    GOOGLE_SLIDES: "slides", PPTX: "slides", "application/vnd.ms-powerpoint": "slides",
    PDF: "pdf",
}
_BY_EXTENSION = {".md": MARKDOWN, ".markdown": MARKDOWN, ".txt": PLAIN, ".csv": CSV, ".docx": DOCX, ".xlsx": XLSX,
                 ".pptx": PPTX, ".pdf": PDF}
_TEXT_MIMES = {"application/json", "application/xml", "application/x-yaml", "application/yaml", "text/calendar",
               "message/rfc822", "application/javascript"}
_OLD_OFFICE = {"application/msword": ".doc", "application/vnd.ms-excel": ".xls",
               "application/vnd.ms-powerpoint": ".ppt"}


def mime_of(name: str, given: str | None = None) -> str:
    """The file's mime type: the one given unless it says nothing, else from its name's extension."""
    if given and given not in ("application/octet-stream", "binary/octet-stream"):
        return given
    ext = extension_of(name)
    return _BY_EXTENSION.get(ext) or mimetypes.guess_type(f"x{ext}")[0] or given or "application/octet-stream"


def extension_of(name: str) -> str:
    match = re.search(r"(\.[A-Za-z0-9]{1,8})$", name or "")
    return match.group(1).lower() if match else ""


def kind_of(mime: str, name: str = "") -> str:
    """"folder", "doc", "sheet", "slides", "pdf", "image" or "file"."""
    mime = mime_of(name, mime)
    if mime in FOLDER_MIMES:
        return "folder"
    if mime.startswith("image/"):
        return "image"
    return _KINDS.get(mime, "file")


def is_text_mime(mime: str) -> bool:
    return mime.startswith("text/") or mime in _TEXT_MIMES


@dataclass
class Extracted:
    text: str
    image: dict | None = None  # the spec's `image: { mimeType, data }` (base64)
    note: str | None = None


def extract(data: FileData) -> Extracted:
    """The file's text, its tabs as text, or its picture. `unsupported` for what has no text to read here."""
    mime = mime_of(data.name, data.mime_type)
    if data.size > MAX_FILE_BYTES:
        raise ToolError("too_large", f"{data.name} is over 25 MB, too large to read here. Use its link instead.")
    if mime.startswith("image/"):
        if data.size > MAX_IMAGE_BYTES:
            raise ToolError("too_large", f"{data.name} is a picture over 5 MB, too large to look at here. Use its "
                                         "link instead.")
        return Extracted(text="", image={"mimeType": mime, "data": base64.b64encode(data.data).decode("ascii")})
    if mime == PDF:
        return Extracted(text=pdf_text(data))
    if mime == XLSX:
        return Extracted(text=tabs_text(xlsx_tabs(data.data)))
    if mime == DOCX:
        return Extracted(text=docx_text(data.data))
    if mime == PPTX:
        return Extracted(text=pptx_text(data.data))
    if is_text_mime(mime):
        return Extracted(text=decode(data.data))
    if mime in _OLD_OFFICE:
        raise ToolError("unsupported", f"{data.name} is an older Office file ({_OLD_OFFICE[mime]}), which can't be "
                                       "read here. Ask the owner for it as a .docx, .xlsx or PDF, or say so.")
    raise ToolError("unsupported", f"{data.name} is a {mime} file, which has no text to read here. Use its link, "
                                   "or say so.")


def decode(raw: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


# --- PDFs ----------------------------------------------------------------------------------------------------


def pdf_text(data: FileData) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data.data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ToolError("unsupported", f"{data.name} is a PDF locked with a password: it can't be read here.")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except PdfReadError as e:
        raise ToolError("unsupported", f"{data.name} isn't a PDF that can be read ({e}).") from e
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise ToolError("unsupported", f"{data.name} is a scanned PDF: it has no text to read. Search for its words "
                                       "instead, or say so.")
    return text


# --- Word and PowerPoint ---------------------------------------------------------------------------------------


def docx_text(raw: bytes) -> str:
    """A .docx's paragraphs (headings as Markdown headings) and tables (cells joined with |), in order."""
    import docx
    from docx.table import Table

    document = docx.Document(io.BytesIO(raw))
    lines = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                lines.append(" | ".join(cell.text.strip() for cell in row.cells))
            continue
        style = (block.style.name if block.style is not None else "") or ""
        level = re.match(r"Heading (\d)", style)
        lines.append(("#" * int(level.group(1)) + " " if level and block.text else "") + block.text)
    return "\n".join(lines)


def pptx_text(raw: bytes) -> str:
    """Each slide's words, slide by slide."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as exc:
        raise ToolError("unsupported", "This .pptx can't be opened.") from exc
    numbered = [
        (int(m.group(1)), n) for n in archive.namelist() if (m := re.fullmatch(r"ppt/slides/slide(\d+)\.xml", n))
    ]
    slides = [name for _, name in sorted(numbered)]
    parts = []
    for number, name in enumerate(slides, start=1):
        xml = archive.read(name).decode("utf-8", "replace")
        paragraphs = [
            "".join(re.findall(r"<a:t>([^<]*)</a:t>", p)) for p in re.findall(r"<a:p>.*?</a:p>", xml, re.DOTALL)
        ]
        words = "\n".join(_unescape(p) for p in paragraphs if p.strip())
        parts.append(f"## Slide {number}\n{words}".rstrip())
    return "\n\n".join(parts)


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


# --- spreadsheets ----------------------------------------------------------------------------------------------


def display(value) -> str:
    """A cell's value as a sheet shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time(0) else value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat() if isinstance(value, datetime.date) else value.strftime("%H:%M")
    return str(value)


def trim(rows: list[list[str]]) -> list[list[str]]:
    """Without trailing empty cells and rows, as Sheets gives values."""
    out = [list(row) for row in rows]
    for row in out:
        while row and row[-1] == "":
            row.pop()
    while out and not out[-1]:
        out.pop()
    return out


def xlsx_tabs(raw: bytes) -> list[tuple[str, list[list[str]]]]:
    """Every tab of an .xlsx as shown: a formula's saved value, or the formula when none was saved."""
    import openpyxl

    try:
        values = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=False)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as e:
        raise ToolError("unsupported", f"This .xlsx can't be opened ({e.__class__.__name__}).") from e
    tabs = []
    for shown, written in zip(values.worksheets, formulas.worksheets, strict=False):
        rows = []
        for row_shown, row_written in zip(
            shown.iter_rows(values_only=True), written.iter_rows(values_only=True), strict=False
        ):
            rows.append([
                display(v if v is not None or not (isinstance(f, str) and f.startswith("=")) else f)
                for v, f in zip(row_shown, row_written, strict=False)
            ])
        tabs.append((shown.title, trim(rows)))
    values.close()
    formulas.close()
    return tabs


def csv_rows(text: str) -> list[list[str]]:
    return trim([row for row in csv.reader(io.StringIO(text))])


def rows_csv(rows: list[list]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([display(v) for v in row])
    return out.getvalue()


def tabs_text(tabs: list[tuple[str, list[list[str]]]]) -> str:
    """A spreadsheet read tab by tab: each tab's name as a heading, then its rows as CSV."""
    parts = []
    for title, rows in tabs:
        parts.append(f"## {title}\n" + (rows_csv(rows).rstrip("\n") if rows else "(empty)"))
    return "\n\n".join(parts)
