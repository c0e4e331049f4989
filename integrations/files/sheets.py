"""A1 ranges ("Projects!A1:H50", "Leads!A:F", "'Q3 plan'!B2", "Log"), and comparing cells for Undo.

Rows and columns here are 0-based and inclusive; None is an open end ("A:F" has no rows given).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import ToolError
from integrations.files.content import display

_CELL = re.compile(r"^\$?([A-Za-z]{1,3})?\$?(\d+)?$")
MAX_ROWS = 1_048_576
MAX_COLUMNS = 18_278  # ZZZ


@dataclass(frozen=True)
class A1Range:
    sheet: str | None
    r1: int | None = None
    c1: int | None = None
    r2: int | None = None
    c2: int | None = None

    @property
    def top(self) -> int:
        return self.r1 or 0

    @property
    def left(self) -> int:
        return self.c1 or 0

    def as_text(self) -> str:
        return a1(self.sheet, self.r1, self.c1, self.r2, self.c2)


@dataclass(frozen=True)
class Area:
    """A block of cells with every end given: where values are written, and what is read back for Undo."""

    sheet: str | None
    r1: int
    c1: int
    r2: int
    c2: int

    @property
    def top(self) -> int:
        return self.r1

    @property
    def left(self) -> int:
        return self.c1

    @property
    def height(self) -> int:
        return self.r2 - self.r1 + 1

    @property
    def width(self) -> int:
        return self.c2 - self.c1 + 1

    def as_text(self) -> str:
        return a1(self.sheet, self.r1, self.c1, self.r2, self.c2)


def column_letters(index: int) -> str:
    letters, n = "", index + 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def column_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def quote_sheet(title: str) -> str:
    """A tab's name as a range starts with it: quoted when it has spaces or marks, or reads like a cell ("Q3")."""
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title)
    if plain and not re.fullmatch(r"[A-Za-z]{1,3}\d+|[Rr]\d*[Cc]\d*", title):
        return title
    return "'" + title.replace("'", "''") + "'"


def _ref(r: int | None, c: int | None) -> str:
    return (column_letters(c) if c is not None else "") + (str(r + 1) if r is not None else "")


def a1(sheet: str | None, r1=None, c1=None, r2=None, c2=None) -> str:
    cells = _ref(r1, c1)
    if (r2, c2) != (r1, c1) and (r2 is not None or c2 is not None):
        cells += ":" + _ref(r2, c2)
    if sheet is None:
        return cells
    return quote_sheet(sheet) + (f"!{cells}" if cells else "")


def _bad(text: str, why: str) -> ToolError:
    return ToolError("bad_input", f"range: {text!r} {why}; write it like \"Projects!A1:H50\", \"Leads!A:F\" or "
                                  "\"Projects!F12\"")


def _cell(part: str, text: str) -> tuple[int | None, int | None]:
    match = _CELL.match(part.strip())
    if not match or not (match.group(1) or match.group(2)):
        raise _bad(text, f"has {part!r}, which isn't a cell")
    letters, digits = match.groups()
    row = int(digits) - 1 if digits else None
    col = column_index(letters) if letters else None
    if (row is not None and not 0 <= row < MAX_ROWS) or (col is not None and col >= MAX_COLUMNS):
        raise _bad(text, "is outside a sheet")
    return row, col


def _is_cells(text: str) -> bool:
    """"A1", "A1:H50", "A:F" or "3:5"; a word alone ("Log") is a tab's name, as Sheets reads it."""
    parts = text.split(":")
    if len(parts) == 1:
        return bool(re.fullmatch(r"\$?[A-Za-z]{1,3}\$?\d+", text.strip()))
    return len(parts) == 2 and all(
        (m := _CELL.match(p.strip())) is not None and bool(m.group(1) or m.group(2)) for p in parts
    )


def parse_range_in(text: str, titles: list[str]) -> A1Range:
    """parse_range, where a range that is exactly one of the tabs' names (a tab "Q3") is that whole tab."""
    bare = (text or "").strip()
    for title in titles:
        if "!" not in bare and bare.lower() in (title.lower(), quote_sheet(title).lower()):
            return A1Range(title)
    return parse_range(text)


def parse_range(text: str) -> A1Range:
    text = (text or "").strip()
    if not text:
        raise _bad(text, "is empty")
    sheet, cells = None, text
    if text.startswith("'"):
        match = re.match(r"^'((?:[^']|'')*)'(?:!(.*))?$", text, re.DOTALL)
        if not match:
            raise _bad(text, "has an unclosed quote")
        sheet, cells = match.group(1).replace("''", "'"), match.group(2) or ""
    elif "!" in text:
        sheet, cells = text.rsplit("!", 1)
    elif not _is_cells(text):
        sheet, cells = text, ""
    if sheet is not None and not sheet.strip():
        raise _bad(text, "names no tab")
    if not cells:
        return A1Range(sheet)
    first, _, second = cells.partition(":")
    r1, c1 = _cell(first, text)
    r2, c2 = _cell(second, text) if second else (r1, c1)
    if (r1 is None) != (r2 is None) or (c1 is None) != (c2 is None):
        raise _bad(text, "mixes a whole row or column with a cell")
    if r1 is not None and r2 is not None and r2 < r1:
        r1, r2 = r2, r1
    if c1 is not None and c2 is not None and c2 < c1:
        c1, c2 = c2, c1
    return A1Range(sheet, r1, c1, r2, c2)


def shape(values: list[list]) -> tuple[int, int]:
    return len(values), max((len(row) for row in values), default=0)


def write_area(rng: A1Range, values: list[list]) -> Area:
    """Where `values` land when written at the range's top-left; a range smaller than them is bad_input, as Sheets
    says (a single cell is only where writing starts)."""
    height, width = shape(values)
    if width == 0:
        raise ToolError("bad_input", "values: every row is empty; give at least one cell")
    top, left = rng.top, rng.left
    single = (rng.r1, rng.c1) == (rng.r2, rng.c2)
    if not single:
        if rng.r2 is not None and top + height - 1 > rng.r2:
            raise ToolError("bad_input", f"values: {height} rows don't fit in {rng.as_text()}")
        if rng.c2 is not None and left + width - 1 > rng.c2:
            raise ToolError("bad_input", f"values: {width} columns don't fit in {rng.as_text()}")
    return Area(rng.sheet, top, left, top + height - 1, left + width - 1)


def pad(rows: list[list], height: int, width: int, fill="") -> list[list]:
    rows = [list(r) for r in rows[:height]] + [[] for _ in range(max(0, height - len(rows)))]
    return [row[:width] + [fill] * (width - len(row[:width])) for row in rows]


def _norm(value) -> str:
    if isinstance(value, bool):
        return display(value)
    if isinstance(value, (int, float)):
        return repr(float(value))
    text = display(value)
    try:
        return repr(float(text)) if re.fullmatch(r"-?\d+(\.\d+)?", text) else text
    except ValueError:
        return text


def same_cells(a: list[list], b: list[list]) -> bool:
    """Whether two blocks of cells hold the same values (empty and missing are the same; 3 and 3.0 too)."""
    height = max(len(a), len(b))
    width = max(shape(a)[1], shape(b)[1])
    return all(
        _norm(x) == _norm(y)
        for ra, rb in zip(pad(a, height, width), pad(b, height, width), strict=False)
        for x, y in zip(ra, rb, strict=False)
    )
