"""Fernhill Studio's files for the example workspace, in the local files: the proposal template with its
placeholders, the 2026 rate card, the 2026 timesheet, and the client and bookkeeping folders.

Files take the ids the spec's examples give them (`7c41e2d0:1Hk3TemplatePr0posalDoc9xQ` is the template), so the
use cases read the same here. Seeding again adds nothing: each file is found by its name in its folder first.
"""

from __future__ import annotations

import datetime
import io

from integrations.files.content import MARKDOWN, XLSX
from integrations.local.models_files import LocalFile
from integrations.providers.base import FileData
from integrations.providers.registry import provider_for

PROPOSAL_TEMPLATE = """# Proposal: {{CLIENT}}

Prepared for {{CONTACT}} by Fernhill Studio, {{DATE}}.

## What we'll do

{{SCOPE}}

## Price

{{PRICE}}, half on signing and half on delivery. Printing is quoted separately by the printer.

## How we work

1. A kickoff call to agree the brief and the product list.
2. First designs within two weeks, then two rounds of changes.
3. Print-ready files and a one-page guide at the end.

Fernhill Studio · sam@fernhill.test
"""

RATE_CARD = """# Fernhill Studio rates 2026

| Work | Price |
| --- | --- |
| Hourly rate | $125 |
| Day rate | $900 |
| Logo and brand guide | from $3,200 |
| Packaging design, per product line | $850 |
| Print-ready files and a packaging guide | $1,100 |
| Signage, per sign | from $600 |

Packaging for six product lines with print-ready files and a guide comes to $6,200 and takes four weeks.
Prices are before tax. Printing is quoted by the printer.
"""

# October's hours: Juniper Dental 46.5, Ortiz Bakery 31, Harbor Florists 12.5 (the hours-spreadsheet use case).
OCTOBER = [
    ("Juniper Dental", [6, 7.5, 5, 8, 6.5, 7, 6.5]),
    ("Ortiz Bakery", [4, 5.5, 6, 4.5, 5, 6]),
    ("Harbor Florists", [3, 4.5, 5]),
]

# name, parent folder's name (None: the top), what it is, and the id the spec's examples use.
FOLDERS = [
    ("Templates", None, "1FoTemplates2026Fernhill"),
    ("Clients", None, "1FoClients2026Fernhill"),
    ("Ortiz Bakery", "Clients", "1FoClientsOrtizBakery2026"),
    ("Bookkeeping 2026", None, "1FoBookkeeping2026"),
]


def _timesheet() -> bytes:
    import openpyxl
    from openpyxl.styles import Font

    book = openpyxl.Workbook()
    log = book.worksheets[0]  # a new workbook's one tab
    log.title = "Log"
    log.append(["Date", "Client", "Hours", "Note"])
    entries = [(client, days[i]) for i in range(max(len(d) for _, d in OCTOBER)) for client, days in OCTOBER
               if i < len(days)]
    day = datetime.date(2026, 10, 1)
    for client, hours in entries:
        while day.weekday() >= 5:
            day += datetime.timedelta(days=1)
        log.append([day.isoformat(), client, hours, ""])
        day += datetime.timedelta(days=1)
    log.append(["2026-11-02", "Ortiz Bakery", 3, "Packaging brief call"])
    for cell in log[1]:
        cell.font = Font(bold=True)
    clients = book.create_sheet("Clients")
    clients.append(["Client", "Rate"])
    for client in ("Juniper Dental", "Ortiz Bakery", "Harbor Florists"):
        clients.append([client, 125])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


FILES = [
    ("Proposal template", "Templates", MARKDOWN, lambda: PROPOSAL_TEMPLATE.encode(), "1Hk3TemplatePr0posalDoc9xQ"),
    ("Rate card 2026", None, MARKDOWN, lambda: RATE_CARD.encode(), "1RcRateCard2026Fernhill7"),
    ("Timesheet 2026", "Bookkeeping 2026", XLSX, _timesheet, "1TsTimesheet2026SheetX4"),
]


def seed_files(org, connection) -> list[str]:
    """The example workspace's files, in `connection`'s local files. The notes of what it made."""
    files = provider_for(connection, "files")
    rows = LocalFile.objects.filter(connection=connection, trashed=False)
    folders: dict[str, LocalFile] = {}
    made = 0
    for name, parent, file_id in FOLDERS:
        above = folders[parent] if parent is not None else None
        found = rows.filter(name=name, parent=above).first()
        if found is None:
            files.create_folder(name=name, parent_id=above.file_id if above else None)
            found = _with_id(rows.get(name=name, parent=above), file_id)
            made += 1
        folders[name] = found
    for name, parent, mime, data, file_id in FILES:
        above = folders[parent] if parent is not None else None
        if rows.filter(name=name, parent=above).exists():
            continue
        files.upload(FileData(name, mime, data()), name=name, folder_id=above.file_id if above else None)
        _with_id(rows.get(name=name, parent=above), file_id)
        made += 1
    return [f"{made} files and folders"] if made else []


def _with_id(row: LocalFile, file_id: str) -> LocalFile:
    """The spec's id for the example's file, unless this account has it already."""
    if not LocalFile.objects.filter(connection=row.connection, file_id=file_id).exists():
        LocalFile.objects.filter(pk=row.pk).update(file_id=file_id)
        row.file_id = file_id
    return row
