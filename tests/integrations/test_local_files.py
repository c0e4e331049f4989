"""Roadstar's own files provider on its own: importing a folder, finding and reading, every write and its Undo."""

import io

import openpyxl
import pytest
from django.core.management import call_command
from django.db import transaction

from core.errors import ToolError
from integrations.files import storage
from integrations.local.models_files import LocalFile, LocalFileChange
from integrations.providers.base import FileData
from integrations.providers.local_files import LocalFilesProvider
from integrations.providers.registry import provider_for
from integrations.services import connection_create_local
from tests.integrations.files_samples import TEMPLATE, fernhill_folder, xlsx


@pytest.fixture(autouse=True)
def files_root(settings, tmp_path):
    settings.ROADSTAR_FILES_ROOT = str(tmp_path / "files")


@pytest.fixture
def files(local):
    return provider_for(local, "files")


@pytest.fixture
def fernhill(files, tmp_path):
    files.import_path(fernhill_folder(tmp_path / "src"))
    return files


def row(name: str) -> LocalFile:
    return LocalFile.objects.get(name=name, trashed=False)


def fid(name: str) -> str:
    return row(name).file_id


def text_of(files, name: str) -> str:
    return files.download(fid(name)).data.decode()


def cells(files, name: str, tab: str) -> list[list[str]]:
    return files.sheet_values(fid(name), tab)


class raises:  # noqa: N801  (reads like pytest.raises)
    """pytest.raises(ToolError) that also checks the error's kind."""

    def __init__(self, kind):
        self.kind = kind

    def __enter__(self):
        self.ctx = pytest.raises(ToolError)
        self.info = self.ctx.__enter__()
        return self.info

    def __exit__(self, *exc):
        handled = self.ctx.__exit__(*exc)
        assert self.info.value.kind == self.kind, self.info.value.message
        return handled


# --- importing --------------------------------------------------------------------------------------------------


def test_import_keeps_the_folders(fernhill):
    assert row("Proposal template.md").parent.name == "Templates"


def test_import_brings_every_file_but_hidden_ones(fernhill):
    assert sorted(LocalFile.objects.filter(parent=None).values_list("name", flat=True)) == [
        "Brief.pdf", "Clients", "Leads.csv", "Logo.png", "Rate card 2026.docx", "Templates", "Timesheet 2026.xlsx",
        "notes.txt",
    ]


def test_import_gives_each_file_its_type_from_its_extension(fernhill):
    assert fernhill.get(fid("Timesheet 2026.xlsx")).kind == "sheet"


def test_importing_again_adds_nothing(fernhill, tmp_path):
    outcome = fernhill.import_path(tmp_path / "src")
    assert (outcome.added, outcome.updated, LocalFile.objects.count()) == ([], [], 10)


def test_importing_again_updates_a_file_that_changed(fernhill, tmp_path):
    (tmp_path / "src" / "notes.txt").write_text("Call Rosa on Monday.\n")
    outcome = fernhill.import_path(tmp_path / "src")
    assert ([m.name for m in outcome.updated], text_of(fernhill, "notes.txt")) == (
        ["notes.txt"], "Call Rosa on Monday.\n"
    )


def test_the_import_command_makes_a_local_files_account_and_imports(org, tmp_path, settings):
    fernhill_folder(tmp_path / "cmd")
    out = io.StringIO()
    call_command("import_files", str(tmp_path / "cmd"), stdout=out)
    assert ("10 added" in out.getvalue(), LocalFile.objects.filter(connection__organization=org).count()) == (True, 10)


def test_the_import_command_refuses_a_missing_folder(org, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No folder"):
        call_command("import_files", str(tmp_path / "nowhere"))


# --- finding ----------------------------------------------------------------------------------------------------


def test_search_finds_words_in_names(fernhill):
    assert [h.title for h in fernhill.search("proposal template", modified_after=None, limit=10).items] == [
        "Proposal template.md"
    ]


def test_search_finds_words_in_the_text(fernhill):
    assert [h.title for h in fernhill.search("bag sizes", modified_after=None, limit=10).items] == ["notes.txt"]


def test_search_finds_words_in_a_pdf(fernhill):
    assert [h.title for h in fernhill.search("packaging brief", modified_after=None, limit=10).items] == ["Brief.pdf"]


def test_search_needs_every_word(fernhill):
    assert fernhill.search("proposal zebra", modified_after=None, limit=10).items == []


def test_search_puts_name_matches_first(fernhill, files):
    files.create_doc(name="Notes on Rosa", markdown="Nothing here", folder_id=None)
    hits = fernhill.search("rosa", modified_after=None, limit=10).items
    assert [h.title for h in hits] == ["Notes on Rosa", "notes.txt"]


def test_search_gives_a_snippet_around_the_words(fernhill):
    hit = fernhill.search("bag", modified_after=None, limit=10).items[0]
    assert hit.snippet == "Call Rosa about the bag sizes."


def test_search_leaves_out_files_modified_before(fernhill):
    import datetime

    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    assert fernhill.search("rosa", modified_after=later, limit=10).items == []


def test_search_pages(fernhill):
    first = fernhill.search("a", modified_after=None, limit=2)
    second = fernhill.search("a", modified_after=None, limit=2, page=first.next_page)
    assert (len(first.items), {h.id for h in first.items} & {h.id for h in second.items}) == (2, set())


def test_search_leaves_out_trashed_files(fernhill):
    LocalFile.objects.filter(name="notes.txt").update(trashed=True)
    assert fernhill.search("bag", modified_after=None, limit=10).items == []


def test_get_gives_the_files_facts_with_full_ids(fernhill, local):
    meta = fernhill.get(fid("Proposal template.md"))
    assert (meta.id, meta.parents, meta.url, meta.mime_type) == (
        f"{local.account_key}:{fid('Proposal template.md')}", [f"{local.account_key}:{fid('Templates')}"],
        f"/files/{local.account_key}/{fid('Proposal template.md')}", "text/markdown",
    )


def test_get_of_a_trashed_file_is_not_found(fernhill):
    LocalFile.objects.filter(name="notes.txt").update(trashed=True)
    with raises("not_found"):
        fernhill.get(LocalFile.objects.get(name="notes.txt").file_id)


def test_get_of_another_accounts_file_is_not_found(fernhill, org):
    other = provider_for(connection_create_local(org=org, account="studio@fernhill.test", groups=["files"]), "files")
    with raises("not_found"):
        other.get(fid("notes.txt"))


def test_a_folder_lists_folders_first_then_by_name(fernhill):
    folder = fernhill.create_folder(name="Archive", parent_id=fid("Clients")).value
    fernhill.create_doc(name="A note", markdown="hi", folder_id=fid("Clients"))
    items = fernhill.list_folder(fid("Clients"), limit=10).items
    assert [i.title for i in items] == ["Archive", "Ortiz Bakery", "A note"] and items[0].id == folder.id


def test_a_folder_lists_in_pages(fernhill):
    first = fernhill.list_folder(fid("Templates"), limit=1)
    fernhill.create_doc(name="Zed", markdown="z", folder_id=fid("Templates"))
    second = fernhill.list_folder(fid("Templates"), limit=1, page="1")
    assert (first.next_page, [h.title for h in second.items]) == (None, ["Zed"])


def test_a_links_id_is_read_from_a_local_link(local):
    assert LocalFilesProvider.id_from_link(f"http://localhost:8000/files/{local.account_key}/1AbCdEfGh") == "1AbCdEfGh"


def test_a_drive_link_is_not_a_local_link():
    assert LocalFilesProvider.id_from_link("https://docs.google.com/document/d/1AbCdEfGhIjK/edit") is None


# --- reading ----------------------------------------------------------------------------------------------------


def test_download_gives_a_documents_bytes(fernhill):
    assert text_of(fernhill, "Proposal template.md") == TEMPLATE


def test_download_names_a_file_with_its_extension(fernhill, files):
    doc = files.create_doc(name="Kickoff notes", markdown="# Kickoff", folder_id=None).value
    assert files.download(doc.id.split(":")[1]).name == "Kickoff notes.md"


def test_download_of_a_folder_is_unsupported(fernhill):
    with raises("unsupported"):
        fernhill.download(fid("Templates"))


def test_tabs_give_every_tab_as_shown(fernhill):
    assert fernhill.tabs(fid("Timesheet 2026.xlsx")) == [
        ("Log", [["Date", "Client", "Hours"], ["2026-10-01", "Juniper Dental", "3.5"],
                 ["2026-10-02", "Ortiz Bakery", "2"], ["2026-10-03", "Harbor Florists", "1.5"]]),
        ("Rates", [["Client", "Rate"], ["Juniper Dental", "125"]]),
    ]


def test_a_csv_is_one_tab_named_after_the_file(fernhill):
    assert fernhill.tabs(fid("Leads.csv")) == [
        ("Leads", [["Name", "Email"], ["Dana Whitfield", "dana@juniperdental.test"]])
    ]


def test_a_formula_shows_its_saved_value_or_itself(files):
    sheet = files.upload(FileData("Sums.xlsx", "", xlsx({"S": [[1, 2, "=A1+B1"]]})), name="Sums.xlsx",
                         folder_id=None).value
    assert files.sheet_values(sheet.id.split(":")[1], "S!A1:C1") == [["1", "2", "=A1+B1"]]


def _with_a_chart_tab() -> bytes:
    from openpyxl.chart import BarChart, Reference

    book = openpyxl.load_workbook(io.BytesIO(xlsx({"Sales": [["Month", "Total"], ["Oct", 1200], ["Nov", 1500]]})))
    chart = BarChart()
    chart.add_data(Reference(book["Sales"], min_col=2, min_row=1, max_row=3), titles_from_data=True)
    book.create_chartsheet("Chart").add_chart(chart)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_chart_tab_is_left_out_of_the_tabs(files):
    sheet = files.upload(FileData("Sales.xlsx", "", _with_a_chart_tab()), name="Sales.xlsx", folder_id=None).value
    assert files.tabs(sheet.id.split(":")[1]) == [("Sales", [["Month", "Total"], ["Oct", "1200"], ["Nov", "1500"]])]


def test_reading_a_chart_tab_says_it_has_no_cells(files):
    sheet = files.upload(FileData("Sales.xlsx", "", _with_a_chart_tab()), name="Sales.xlsx", folder_id=None).value
    with pytest.raises(ToolError, match="is a chart, with no cells"):
        files.sheet_values(sheet.id.split(":")[1], "Chart!A1:B2")


# --- making -----------------------------------------------------------------------------------------------------


def test_copy_makes_a_new_file_with_the_same_bytes(fernhill):
    copy = fernhill.copy(fid("Proposal template.md"), name="Ortiz Bakery proposal", folder_id=None).value
    assert (fernhill.download(copy.id.split(":")[1]).data.decode(), copy.name) == (TEMPLATE, "Ortiz Bakery proposal")


def test_copy_stays_in_the_same_folder_without_a_folder(fernhill):
    copy = fernhill.copy(fid("Proposal template.md"), name="Copy", folder_id=None).value
    assert copy.parents == [fernhill.global_id(fid("Templates"))]


def test_copy_goes_into_the_folder_given(fernhill):
    copy = fernhill.copy(fid("Proposal template.md"), name="Copy", folder_id=fid("Ortiz Bakery")).value
    assert copy.parents == [fernhill.global_id(fid("Ortiz Bakery"))]


def test_copy_into_a_file_is_bad_input(fernhill):
    with raises("bad_input"):
        fernhill.copy(fid("Proposal template.md"), name="Copy", folder_id=fid("notes.txt"))


def test_undoing_a_copy_trashes_it(fernhill):
    written = fernhill.copy(fid("Proposal template.md"), name="Copy", folder_id=None)
    fernhill.undo(written.undo)
    assert LocalFile.objects.get(name="Copy").trashed


def test_undoing_a_copy_already_in_the_trash_is_changed(fernhill):
    written = fernhill.copy(fid("Proposal template.md"), name="Copy", folder_id=None)
    fernhill.undo(written.undo)
    with raises("changed"):
        fernhill.undo(written.undo)


def test_undoing_a_folder_that_has_files_in_it_now_is_changed(fernhill):
    written = fernhill.create_folder(name="New", parent_id=None)
    fernhill.create_doc(name="Inside", markdown="x", folder_id=written.value.id.split(":")[1])
    with raises("changed"):
        fernhill.undo(written.undo)


def test_create_doc_writes_the_markdown(files):
    doc = files.create_doc(name="Kickoff", markdown="# Kickoff\n\n- **Goals**", folder_id=None).value
    assert (files.download(doc.id.split(":")[1]).data.decode(), doc.name) == ("# Kickoff\n\n- **Goals**", "Kickoff")


def test_create_sheet_writes_the_rows_with_numbers_as_numbers(files):
    sheet = files.create_sheet(name="Hours", rows=[["Client", "Hours"], ["Juniper Dental", 46.5]], folder_id=None)
    book = openpyxl.load_workbook(io.BytesIO(files.download(sheet.value.id.split(":")[1]).data))
    assert [[c.value for c in r] for r in book.active.iter_rows()] == [["Client", "Hours"], ["Juniper Dental", 46.5]]


def test_create_sheet_makes_the_first_row_bold_headings(files):
    sheet = files.create_sheet(name="Hours", rows=[["Client", "Hours"]], folder_id=None)
    book = openpyxl.load_workbook(io.BytesIO(files.download(sheet.value.id.split(":")[1]).data))
    assert (book.active["A1"].font.bold, book.active.freeze_panes) == (True, "A2")


def test_upload_keeps_the_bytes_and_type(files):
    made = files.upload(FileData("brief.pdf", "application/pdf", b"%PDF-1.4"), name="Brief", folder_id=None).value
    assert (files.download(made.id.split(":")[1]).data, made.kind) == (b"%PDF-1.4", "pdf")


# --- moving and renaming ----------------------------------------------------------------------------------------


def test_move_gives_the_folders_it_was_in(fernhill):
    written = fernhill.move(fid("Proposal template.md"), folder_id=fid("Clients"))
    assert (written.value, row("Proposal template.md").parent.name) == (
        [fernhill.global_id(fid("Templates"))], "Clients"
    )


def test_a_folder_cannot_move_into_itself(fernhill):
    with raises("bad_input"):
        fernhill.move(fid("Clients"), folder_id=fid("Ortiz Bakery"))


def test_undoing_a_move_puts_it_back(fernhill):
    written = fernhill.move(fid("notes.txt"), folder_id=fid("Clients"))
    fernhill.undo(written.undo)
    assert row("notes.txt").parent is None


def test_undoing_a_move_after_it_moved_again_is_changed(fernhill):
    written = fernhill.move(fid("notes.txt"), folder_id=fid("Clients"))
    fernhill.move(fid("notes.txt"), folder_id=fid("Templates"))
    with raises("changed"):
        fernhill.undo(written.undo)


def test_rename_gives_the_name_before(fernhill):
    assert fernhill.rename(fid("notes.txt"), name="Rosa notes.txt").value == "notes.txt"


def test_undoing_a_rename_puts_the_name_back(fernhill):
    written = fernhill.rename(fid("notes.txt"), name="Rosa notes.txt")
    fernhill.undo(written.undo)
    assert LocalFile.objects.filter(name="notes.txt").exists()


def test_undoing_a_rename_after_another_rename_is_changed(fernhill):
    written = fernhill.rename(fid("notes.txt"), name="Rosa notes.txt")
    fernhill.rename(fid("Rosa notes.txt"), name="Other.txt")
    with raises("changed"):
        fernhill.undo(written.undo)


# --- documents --------------------------------------------------------------------------------------------------


def test_replace_text_replaces_every_match(fernhill):
    copy = fernhill.copy(fid("Proposal template.md"), name="P", folder_id=None).value.id.split(":")[1]
    fernhill.replace_text(copy, find="{{", replace="[")
    assert "{{" not in fernhill.download(copy).data.decode()


def test_replace_text_counts_the_matches(fernhill):
    assert fernhill.replace_text(fid("Proposal template.md"), find="{{", replace="[").value == 5


def test_replace_text_with_no_match_changes_nothing(fernhill):
    blob = row("Proposal template.md").blob
    written = fernhill.replace_text(fid("Proposal template.md"), find="{{NOPE}}", replace="x")
    assert (written.value, row("Proposal template.md").blob) == (0, blob)


def test_replace_text_in_a_docx_keeps_it_a_docx(fernhill):
    fernhill.replace_text(fid("Rate card 2026.docx"), find="$125", replace="$140")
    assert fernhill.search("140", modified_after=None, limit=5).items[0].title == "Rate card 2026.docx"


def test_replace_text_across_lines_in_a_docx_is_unsupported(fernhill):
    with raises("unsupported"):
        fernhill.replace_text(fid("Rate card 2026.docx"), find="$125\nDay", replace="x")


def test_replace_text_in_a_sheet_is_unsupported(fernhill):
    with raises("unsupported"):
        fernhill.replace_text(fid("Timesheet 2026.xlsx"), find="a", replace="b")


def test_undoing_replace_text_puts_the_text_back(fernhill):
    written = fernhill.replace_text(fid("Proposal template.md"), find="{{CLIENT}}", replace="Ortiz Bakery")
    fernhill.undo(written.undo)
    assert text_of(fernhill, "Proposal template.md") == TEMPLATE


def test_undoing_replace_text_leaves_text_that_was_there_already(fernhill, files):
    doc = files.create_doc(name="D", markdown="Ortiz Bakery and {{CLIENT}}", folder_id=None).value.id.split(":")[1]
    written = files.replace_text(doc, find="{{CLIENT}}", replace="Ortiz Bakery")
    files.undo(written.undo)
    assert files.download(doc).data.decode() == "Ortiz Bakery and {{CLIENT}}"


def test_undoing_one_replacement_after_another_keeps_the_other(fernhill):
    first = fernhill.replace_text(fid("Proposal template.md"), find="{{CLIENT}}", replace="Ortiz Bakery")
    fernhill.replace_text(fid("Proposal template.md"), find="{{CONTACT}}", replace="Rosa")
    fernhill.undo(first.undo)
    assert text_of(fernhill, "Proposal template.md") == TEMPLATE.replace("{{CONTACT}}", "Rosa")


def test_undoing_replace_text_after_the_new_text_was_edited_is_changed(fernhill):
    written = fernhill.replace_text(fid("Proposal template.md"), find="{{CLIENT}}", replace="Ortiz Bakery")
    fernhill.replace_text(fid("Proposal template.md"), find="Ortiz Bakery", replace="Ortiz Bakery Co.")
    with raises("changed"):
        fernhill.undo(written.undo)


def test_undoing_replace_text_in_a_docx_puts_it_back(fernhill):
    before = fernhill.download(fid("Rate card 2026.docx"))
    written = fernhill.replace_text(fid("Rate card 2026.docx"), find="$125", replace="$140")
    fernhill.undo(written.undo)
    from integrations.files.content import extract

    assert extract(fernhill.download(fid("Rate card 2026.docx"))).text == extract(before).text


def test_append_text_adds_a_paragraph_at_the_end(fernhill):
    fernhill.append_text(fid("notes.txt"), text="Then send the quote.")
    assert text_of(fernhill, "notes.txt") == "Call Rosa about the bag sizes.\n\nThen send the quote."


def test_append_text_gives_where_the_text_went(fernhill):
    start, end = fernhill.append_text(fid("notes.txt"), text="Then send the quote.").value
    assert text_of(fernhill, "notes.txt")[start:end] == "Then send the quote."


def test_append_text_to_a_docx_adds_a_paragraph(fernhill):
    fernhill.append_text(fid("Rate card 2026.docx"), text="Rush fee: 20%")
    import docx as python_docx

    document = python_docx.Document(io.BytesIO(fernhill.download(fid("Rate card 2026.docx")).data))
    assert [p.text for p in document.paragraphs][-2:] == ["Day rate: $900", "Rush fee: 20%"]


def test_undoing_append_text_removes_the_paragraph(fernhill):
    written = fernhill.append_text(fid("notes.txt"), text="Then send the quote.")
    fernhill.undo(written.undo)
    assert text_of(fernhill, "notes.txt") == "Call Rosa about the bag sizes.\n"


def test_undoing_append_text_after_the_paragraph_was_edited_is_changed(fernhill):
    written = fernhill.append_text(fid("notes.txt"), text="Then send the quote.")
    fernhill.replace_text(fid("notes.txt"), find="the quote", replace="it")
    with raises("changed"):
        fernhill.undo(written.undo)


# --- sheets -----------------------------------------------------------------------------------------------------


def test_sheet_values_gives_the_range_as_shown(fernhill):
    assert fernhill.sheet_values(fid("Timesheet 2026.xlsx"), "Log!B2:C3") == [
        ["Juniper Dental", "3.5"], ["Ortiz Bakery", "2"]
    ]


def test_sheet_values_of_a_whole_tab(fernhill):
    assert cells(fernhill, "Timesheet 2026.xlsx", "Rates") == [["Client", "Rate"], ["Juniper Dental", "125"]]


def test_sheet_values_without_a_tab_reads_the_first(fernhill):
    assert fernhill.sheet_values(fid("Timesheet 2026.xlsx"), "A1:B1") == [["Date", "Client"]]


def test_sheet_values_of_an_unknown_tab_is_bad_input_naming_the_tabs(fernhill):
    with raises("bad_input") as caught:
        fernhill.sheet_values(fid("Timesheet 2026.xlsx"), "Projects!A1")
    assert caught.value.message.startswith("range:") and "Log, Rates" in caught.value.message


def test_sheet_values_of_a_document_is_unsupported(fernhill):
    with raises("unsupported"):
        fernhill.sheet_values(fid("notes.txt"), "A1")


def test_update_cells_gives_the_cells_before(fernhill):
    assert fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C2", values=[[4]]).value == [["3.5"]]


def test_update_cells_writes_from_the_ranges_corner(fernhill):
    fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!B2", values=[["Juniper", 4]])
    assert fernhill.sheet_values(fid("Timesheet 2026.xlsx"), "Log!B2:C2") == [["Juniper", "4"]]


def test_update_cells_larger_than_the_range_is_bad_input(fernhill):
    with raises("bad_input"):
        fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C2:C3", values=[[1], [2], [3]])


def test_undoing_update_cells_puts_the_old_values_back(fernhill):
    written = fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C2:C3", values=[[9], [9]])
    fernhill.undo(written.undo)
    assert cells(fernhill, "Timesheet 2026.xlsx", "Log")[1:3] == [["2026-10-01", "Juniper Dental", "3.5"],
                                                                  ["2026-10-02", "Ortiz Bakery", "2"]]


def test_undoing_update_cells_after_they_changed_again_is_changed(fernhill):
    written = fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C2", values=[[9]])
    fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C2", values=[[10]])
    with raises("changed"):
        fernhill.undo(written.undo)


def test_undoing_update_cells_in_a_csv_puts_the_old_values_back(fernhill):
    written = fernhill.update_cells(fid("Leads.csv"), range_="B2", values=[["dana@new.test"]])
    fernhill.undo(written.undo)
    assert cells(fernhill, "Leads.csv", "Leads")[1] == ["Dana Whitfield", "dana@juniperdental.test"]


def test_append_rows_goes_after_the_table(fernhill):
    written = fernhill.append_rows(fid("Timesheet 2026.xlsx"), range_="Log!A:C",
                                   values=[["2026-10-04", "Ortiz Bakery", 3]])
    assert (written.value, cells(fernhill, "Timesheet 2026.xlsx", "Log")[-1]) == (
        "Log!A5:C5", ["2026-10-04", "Ortiz Bakery", "3"]
    )


def test_append_rows_to_a_csv(fernhill):
    fernhill.append_rows(fid("Leads.csv"), range_="Leads!A:B", values=[["Rosa Ortiz", "rosa@ortizbakery.test"]])
    assert cells(fernhill, "Leads.csv", "Leads")[-1] == ["Rosa Ortiz", "rosa@ortizbakery.test"]


def test_undoing_append_rows_removes_them(fernhill):
    written = fernhill.append_rows(fid("Timesheet 2026.xlsx"), range_="Log!A:C", values=[["x", "y", 1], ["z", "w", 2]])
    fernhill.undo(written.undo)
    assert len(cells(fernhill, "Timesheet 2026.xlsx", "Log")) == 4


def test_undoing_append_rows_after_they_were_edited_is_changed(fernhill):
    written = fernhill.append_rows(fid("Timesheet 2026.xlsx"), range_="Log!A:C", values=[["x", "y", 1]])
    fernhill.update_cells(fid("Timesheet 2026.xlsx"), range_="Log!C5", values=[[2]])
    with raises("changed"):
        fernhill.undo(written.undo)


# --- bytes on disk ----------------------------------------------------------------------------------------------


def test_a_write_rolled_back_leaves_the_file_as_it_was(fernhill):
    with pytest.raises(RuntimeError), transaction.atomic():
        fernhill.append_text(fid("notes.txt"), text="Lost")
        raise RuntimeError("the tool failed after writing")
    assert text_of(fernhill, "notes.txt") == "Call Rosa about the bag sizes.\n"


def test_files_live_under_the_workspaces_folder(fernhill, local, tmp_path):
    folder = tmp_path / "files" / str(local.organization_id) / local.account_key
    assert (storage.files_root() / row("notes.txt").blob).parent == folder


# --- changes ----------------------------------------------------------------------------------------------------


def test_changes_from_nothing_starts_watching_with_no_items(fernhill):
    changes = fernhill.changes(None)
    assert (changes.items, changes.cursor) == ([], str(LocalFileChange.objects.order_by("-id").first().id))


def test_changes_gives_each_file_changed_since_once(fernhill):
    cursor = fernhill.changes(None).cursor
    fernhill.append_text(fid("notes.txt"), text="One")
    fernhill.append_text(fid("notes.txt"), text="Two")
    fernhill.rename(fid("Leads.csv"), name="Leads 2026.csv")
    assert [m.name for m in fernhill.changes(cursor).items] == ["notes.txt", "Leads 2026.csv"]


def test_changes_leaves_out_trashed_files(fernhill):
    cursor = fernhill.changes(None).cursor
    written = fernhill.copy(fid("notes.txt"), name="Copy", folder_id=None)
    fernhill.undo(written.undo)
    assert fernhill.changes(cursor).items == []


def test_changes_moves_the_cursor_on(fernhill):
    cursor = fernhill.changes(None).cursor
    fernhill.append_text(fid("notes.txt"), text="One")
    after = fernhill.changes(cursor).cursor
    assert fernhill.changes(after).items == []


def test_search_for_only_spaces_finds_nothing(fernhill):
    assert fernhill.search("   ", modified_after=None, limit=10).items == []


def test_the_staff_admin_lists_local_files(fernhill, client):
    from django.urls import reverse

    from tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:integrations_localfile_changelist"), {"q": "Proposal"}).content.decode()
    assert "Proposal template.md" in page


def _queries(run) -> int:
    from django.db import connection as db
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(db) as captured:
        run()
    return len(captured)


def test_a_folders_listing_costs_the_same_queries_however_many_items(fernhill):
    few = _queries(lambda: fernhill.list_folder(fid("Templates"), limit=50))
    for i in range(10):
        fernhill.create_doc(name=f"T{i}", markdown="x", folder_id=fid("Templates"))
    assert _queries(lambda: fernhill.list_folder(fid("Templates"), limit=50)) == few


def test_a_search_costs_the_same_queries_however_many_hits(fernhill):
    few = _queries(lambda: fernhill.search("proposal", modified_after=None, limit=20))
    for i in range(10):
        fernhill.create_doc(name=f"Proposal {i}", markdown="x", folder_id=fid("Templates"))
    assert _queries(lambda: fernhill.search("proposal", modified_after=None, limit=20)) == few
