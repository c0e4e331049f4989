"""Sample files as the owner would have them: Fernhill Studio's proposal template, rate card, timesheet, leads,
a PDF with text and one without (scanned), a picture; and a folder of them on disk to import."""

from __future__ import annotations

import io
from pathlib import Path

TEMPLATE = (
    "# Proposal for {{CLIENT}}\n\n"
    "Dear {{CONTACT}},\n\n"
    "## Scope\n\n{{SCOPE}}\n\n"
    "## Price\n\n{{PRICE}}, valid until {{DATE}}.\n"
)
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00"
    b"\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)


def xlsx(tabs: dict[str, list[list]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in tabs.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


TIMESHEET = {
    "Log": [["Date", "Client", "Hours"], ["2026-10-01", "Juniper Dental", 3.5], ["2026-10-02", "Ortiz Bakery", 2],
            ["2026-10-03", "Harbor Florists", 1.5]],
    "Rates": [["Client", "Rate"], ["Juniper Dental", 125]],
}


def docx(paragraphs: list[str], heading: str | None = None) -> bytes:
    import docx as python_docx

    document = python_docx.Document()
    if heading:
        document.add_heading(heading, 1)
    for text in paragraphs:
        document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pdf(text: str | None) -> bytes:
    """A one-page PDF with `text` on it, or with no text at all (a scan) when None."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode() if text else b"0 0 1 1 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def fernhill_folder(root: Path) -> Path:
    """Fernhill Studio's files as a folder on disk: Templates/, Clients/Ortiz Bakery/, and loose files."""
    (root / "Templates").mkdir(parents=True)
    (root / "Clients" / "Ortiz Bakery").mkdir(parents=True)
    (root / "Templates" / "Proposal template.md").write_text(TEMPLATE)
    (root / "Rate card 2026.docx").write_bytes(docx(["Hourly: $125", "Day rate: $900"], heading="Studio rates"))
    (root / "Timesheet 2026.xlsx").write_bytes(xlsx(TIMESHEET))
    (root / "Leads.csv").write_text("Name,Email\nDana Whitfield,dana@juniperdental.test\n")
    (root / "Brief.pdf").write_bytes(pdf("Ortiz Bakery packaging brief"))
    (root / "Logo.png").write_bytes(PNG)
    (root / "notes.txt").write_text("Call Rosa about the bag sizes.\n")
    (root / ".DS_Store").write_bytes(b"\x00")
    return root
