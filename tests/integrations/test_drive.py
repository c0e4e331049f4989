"""Google Drive, Docs and Sheets against recorded API answers (HttpMockSequence): what each call asks Google, what
comes back, Undo, the errors (not_found, rate_limited, reauth), token refresh and the change feed."""

import json
from unittest import mock
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from googleapiclient.http import HttpMockSequence

from core.errors import ToolError
from core.models import Card
from integrations.files.content import GOOGLE_DOC, GOOGLE_SHEET
from integrations.models import Connection
from integrations.providers.drive import DriveProvider, markdown_html
from integrations.providers.registry import provider_for
from tests.integrations.conftest import GOOGLE_READ, G, an_hour_ago, save_google

WRITE = [*GOOGLE_READ, G + "drive"]


class Answers(HttpMockSequence):
    """HttpMockSequence that can be closed as an httplib2.Http can: `build` closes the http it made for discovery,
    which is this one where a test patches `build_http` (HttpMock has `close`; HttpMockSequence hasn't)."""

    def close(self):
        return None


def answers(*pairs):
    """Answers from (status, body) pairs; dict bodies as JSON, bytes as they are."""
    return Answers([
        ({"status": str(status)}, json.dumps(body) if isinstance(body, (dict, list)) else body)
        for status, body in pairs
    ])


def error(status, reason, message="x"):
    return status, {"error": {"code": status, "message": message, "errors": [{"reason": reason, "message": message}]}}


def calls(http) -> list[tuple[str, str, dict, object]]:
    """(method, path, query, body) of every request made."""
    made = []
    for uri, method, body, _ in http.request_sequence:
        parts = urlparse(uri)
        query = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query).items()}
        try:
            body = json.loads(body) if isinstance(body, (str, bytes)) and body else body
        except ValueError:
            pass
        made.append((method, unquote(parts.path), query, body))
    return made


def file(id_="1Abc", name="Proposal template", mime=GOOGLE_DOC, parents=("1Folder",), **extra):
    return {"id": id_, "name": name, "mimeType": mime, "parents": list(parents), "trashed": False,
            "webViewLink": f"https://docs.google.com/document/d/{id_}/edit", "modifiedTime": "2026-11-02T15:04:05.000Z",
            "lastModifyingUser": {"displayName": "Sam Rivera", "emailAddress": "sam@fernhill.test"}, **extra}


def units(text):
    return len(text.encode("utf-16-le")) // 2


def document(*paragraphs, revision="rev-1", title="Proposal"):
    content, at = [{"endIndex": 1, "sectionBreak": {}}], 1
    for text in paragraphs:
        line = text + "\n"
        end = at + units(line)
        content.append({"startIndex": at, "endIndex": end, "paragraph": {"elements": [
            {"startIndex": at, "endIndex": end, "textRun": {"content": line}}
        ]}})
        at = end
    return {"documentId": "1Doc", "title": title, "revisionId": revision, "body": {"content": content}}


@pytest.fixture
def writer(org, app_settings):
    return save_google(org, scopes=WRITE)


def drive(connection, *pairs):
    http = answers(*pairs)
    return provider_for(connection, "files", http=http), http


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


# --- links ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("link", [
    "https://docs.google.com/document/d/1Hk3TemplatePr0posalDoc9xQ/edit?usp=sharing",
    "https://docs.google.com/spreadsheets/d/1Hk3TemplatePr0posalDoc9xQ/edit#gid=0",
    "https://docs.google.com/presentation/u/1/d/1Hk3TemplatePr0posalDoc9xQ/view",
    "https://drive.google.com/file/d/1Hk3TemplatePr0posalDoc9xQ/view?usp=drive_link",
    "https://drive.google.com/drive/folders/1Hk3TemplatePr0posalDoc9xQ",
    "https://drive.google.com/drive/u/0/folders/1Hk3TemplatePr0posalDoc9xQ",
    "https://drive.google.com/open?id=1Hk3TemplatePr0posalDoc9xQ",
])
def test_a_drive_link_gives_the_files_id(link):
    assert DriveProvider.id_from_link(link) == "1Hk3TemplatePr0posalDoc9xQ"


def test_a_link_elsewhere_is_not_a_drive_link():
    assert DriveProvider.id_from_link("https://example.test/d/1Hk3TemplatePr0posalDoc9xQ") is None


# --- finding ----------------------------------------------------------------------------------------------------


def test_search_asks_drive_for_the_words_in_names_and_text(google):
    files, http = drive(google, (200, {"files": []}))
    files.search("proposal template", modified_after=None, limit=5)
    query = calls(http)[0][2]
    assert (query["q"], query["pageSize"]) == ("fullText contains 'proposal template' and trashed = false", "5")


def test_search_escapes_quotes_in_the_words(google):
    files, http = drive(google, (200, {"files": []}))
    files.search("Rosa's brief", modified_after=None, limit=5)
    assert calls(http)[0][2]["q"].startswith("fullText contains 'Rosa\\'s brief'")


def test_search_adds_the_modified_time(google):
    import datetime

    files, http = drive(google, (200, {"files": []}))
    files.search("x", modified_after=datetime.datetime(2026, 10, 1, tzinfo=datetime.timezone.utc), limit=5)
    assert calls(http)[0][2]["q"].endswith("and modifiedTime > '2026-10-01T00:00:00'")


def test_search_gives_hits_with_full_ids_and_the_next_page(google):
    files, _ = drive(google, (200, {"files": [file()], "nextPageToken": "tok-2"}))
    page = files.search("proposal", modified_after=None, limit=5)
    assert (page.items[0].as_result(), page.next_page) == ({
        "id": f"{google.account_key}:1Abc", "title": "Proposal template", "type": "doc",
        "url": "https://docs.google.com/document/d/1Abc/edit", "who": "Sam Rivera", "date": "2026-11-02T15:04:05Z",
    }, "tok-2")


def test_search_passes_the_page_token_on(google):
    files, http = drive(google, (200, {"files": []}))
    files.search("x", modified_after=None, limit=5, page="tok-2")
    assert calls(http)[0][2]["pageToken"] == "tok-2"


def test_get_gives_the_files_facts(google):
    files, _ = drive(google, (200, file(size="2048")))
    meta = files.get("1Abc")
    assert (meta.parents, meta.native, meta.size, meta.kind) == ([f"{google.account_key}:1Folder"], True, 2048, "doc")


def test_get_of_a_trashed_file_is_not_found(google):
    files, _ = drive(google, (200, file(trashed=True)))
    with raises("not_found"):
        files.get("1Abc")


def test_a_404_is_not_found(google):
    files, _ = drive(google, error(404, "notFound", "File not found: 1Abc."))
    with raises("not_found"):
        files.get("1Abc")


def test_a_429_is_rate_limited(google):
    files, _ = drive(google, error(429, "rateLimitExceeded"))
    with raises("rate_limited"):
        files.get("1Abc")


def test_a_403_rate_limit_is_rate_limited(google):
    files, _ = drive(google, error(403, "userRateLimitExceeded"))
    with raises("rate_limited"):
        files.search("x", modified_after=None, limit=5)


def test_a_401_is_reauth_and_marks_the_account(google):
    files, _ = drive(google, error(401, "authError"))
    with raises("reauth"):
        files.get("1Abc")
    assert Connection.objects.get(pk=google.pk).status == Connection.Status.NEEDS_RECONNECT


def test_writing_without_the_scope_is_reauth_with_a_card_to_connect_again(google):
    files, _ = drive(google, (200, {"id": "1Abc", "name": "A", "parents": ["1Folder"]}),
                     error(403, "insufficientPermissions", "Insufficient Permission"))
    with raises("reauth") as caught:
        files.rename("1Abc", name="B")
    assert caught.value.card == Card.objects.get(kind="reconnect").title


def test_a_folder_lists_its_items_folders_first(google):
    files, http = drive(google, (200, {"files": []}))
    files.list_folder("1Folder", limit=50)
    query = calls(http)[0][2]
    assert (query["q"], query["orderBy"]) == ("'1Folder' in parents and trashed = false", "folder,name")


# --- reading ----------------------------------------------------------------------------------------------------


def test_a_google_doc_downloads_as_markdown(google):
    files, http = drive(google, (200, file()), (200, b"# Proposal for {{CLIENT}}"))
    data = files.download("1Abc")
    assert ((data.name, data.mime_type, data.data), calls(http)[1][2]["mimeType"]) == (
        ("Proposal template.md", "text/markdown", b"# Proposal for {{CLIENT}}"), "text/markdown"
    )


def test_a_google_sheet_downloads_as_xlsx(google):
    files, http = drive(google, (200, file(mime=GOOGLE_SHEET, name="Timesheet")), (200, b"PK"))
    assert files.download("1Abc").name == "Timesheet.xlsx"


def test_a_pdf_downloads_its_bytes(google):
    files, http = drive(google, (200, file(mime="application/pdf", name="Brief.pdf", size="8")), (200, b"%PDF-1.4"))
    data = files.download("1Abc")
    assert (data.data, calls(http)[1][2]["alt"]) == (b"%PDF-1.4", "media")


def test_a_file_over_25_mb_is_too_large_without_downloading(google):
    files, http = drive(google, (200, file(mime="application/pdf", size=str(26 * 1024 * 1024))))
    with raises("too_large"):
        files.download("1Abc")
    assert len(http.request_sequence) == 1


def test_a_sheet_reads_tab_by_tab(google):
    files, http = drive(google, (200, {"sheets": [{"properties": {"sheetId": 0, "title": "Log"}},
                                                  {"properties": {"sheetId": 7, "title": "Q3 plan"}}]}),
                        (200, {"valueRanges": [{"values": [["Date", "Hours"], ["2026-10-01", "3.5"]]},
                                               {"values": [["Goal"]]}]}))
    tabs = files.tabs("1Abc")
    assert (tabs, calls(http)[1][2]["ranges"]) == (
        [("Log", [["Date", "Hours"], ["2026-10-01", "3.5"]]), ("Q3 plan", [["Goal"]])], ["Log", "'Q3 plan'"]
    )


def test_a_google_doc_exports_as_pdf_for_attaching(google):
    files, http = drive(google, (200, file()), (200, b"%PDF"))
    assert (files.export_pdf("1Abc").name, calls(http)[1][2]["mimeType"]) == (
        "Proposal template.pdf", "application/pdf"
    )


# --- making -----------------------------------------------------------------------------------------------------


def test_copy_names_the_copy_and_its_folder(writer):
    files, http = drive(writer, (200, file(id_="1Copy", name="Ortiz proposal", parents=["1Clients"])))
    written = files.copy("1Abc", name="Ortiz proposal", folder_id="1Clients")
    assert (calls(http)[0][1].endswith("/files/1Abc/copy"), calls(http)[0][3], written.value.id) == (
        True, {"name": "Ortiz proposal", "parents": ["1Clients"]}, f"{writer.account_key}:1Copy"
    )


def test_undoing_a_copy_trashes_it(writer):
    files, http = drive(writer, (200, file(id_="1Copy")), (200, file(id_="1Copy")), (200, {"id": "1Copy"}))
    files.undo(files.copy("1Abc", name="Copy", folder_id=None).undo)
    assert (calls(http)[2][0], calls(http)[2][3]) == ("PATCH", {"trashed": True})


def test_undoing_a_copy_already_in_the_trash_is_changed(writer):
    files, _ = drive(writer, (200, file(id_="1Copy", trashed=True)))
    with raises("changed"):
        files.undo({"op": "trash", "file": "1Copy"})


def test_undoing_a_folder_with_files_in_it_is_changed(writer):
    files, _ = drive(writer, (200, file(id_="1New", mime="application/vnd.google-apps.folder")),
                     (200, {"files": [file()]}))
    with raises("changed"):
        files.undo({"op": "trash", "file": "1New"})


def test_create_folder_makes_a_drive_folder_in_its_parent(writer):
    files, http = drive(writer, (200, file(id_="1New", mime="application/vnd.google-apps.folder")))
    files.create_folder(name="Ortiz Bakery", parent_id="1Clients")
    assert calls(http)[0][3] == {"name": "Ortiz Bakery", "mimeType": "application/vnd.google-apps.folder",
                                 "parents": ["1Clients"]}


def test_create_doc_uploads_the_markdown_as_html_to_become_a_google_doc(writer):
    files, http = drive(writer, (200, file(id_="1New")))
    files.create_doc(name="Kickoff", markdown="# Kickoff\n\n- **Goals**", folder_id=None)
    body = http.request_sequence[0][2]
    body = body.decode() if isinstance(body, bytes) else body
    assert ('"mimeType": "application/vnd.google-apps.document"' in body, "<h1>Kickoff</h1>" in body,
            "<strong>Goals</strong>" in body) == (True, True, True)


def test_markdown_tables_and_links_become_html():
    html = markdown_html("| a | b |\n|---|---|\n| 1 | [x](https://x.test) |")
    assert ("<table>" in html, '<a href="https://x.test">x</a>' in html) == (True, True)


def test_create_sheet_writes_the_rows_and_makes_the_headings_bold(writer):
    files, http = drive(writer, (200, file(id_="1Sheet", mime=GOOGLE_SHEET)), (200, {}), (200, {}))
    files.create_sheet(name="Hours", rows=[["Client", "Hours"], ["Juniper", 46.5]], folder_id=None)
    made = calls(http)
    assert (made[1][2]["valueInputOption"], made[1][3]["values"], "repeatCell" in made[2][3]["requests"][0]) == (
        "USER_ENTERED", [["Client", "Hours"], ["Juniper", 46.5]], True
    )


def test_a_sheet_whose_rows_fail_to_write_goes_to_the_trash(writer):
    files, http = drive(writer, (200, file(id_="1Sheet", mime=GOOGLE_SHEET)), error(400, "badRequest"), (200, {}))
    with raises("vendor"):
        files.create_sheet(name="Hours", rows=[["a"]], folder_id=None)
    assert calls(http)[2][3] == {"trashed": True}


def test_upload_with_convert_makes_an_xlsx_a_google_sheet(writer):
    from integrations.files.content import XLSX
    from integrations.providers.base import FileData

    files, http = drive(writer, (200, file(id_="1Up", mime=GOOGLE_SHEET)))
    files.upload(FileData("hours.xlsx", XLSX, b"PK"), name="Hours", folder_id=None, convert=True)
    body = http.request_sequence[0][2]
    body = body.decode() if isinstance(body, bytes) else body
    assert '"mimeType": "application/vnd.google-apps.spreadsheet"' in body


# --- moving and renaming ----------------------------------------------------------------------------------------


def test_move_adds_the_folder_and_removes_the_old_ones(writer):
    files, http = drive(writer, (200, {"id": "1Abc", "parents": ["1Old", "1Other"]}), (200, {"id": "1Abc"}))
    written = files.move("1Abc", folder_id="1New")
    query = calls(http)[1][2]
    assert ((query["addParents"], query["removeParents"]), written.value) == (
        ("1New", "1Old,1Other"), [f"{writer.account_key}:1Old", f"{writer.account_key}:1Other"]
    )


def test_undoing_a_move_puts_it_back_in_its_folders(writer):
    files, http = drive(writer, (200, {"id": "1Abc", "parents": ["1New"]}), (200, {"id": "1Abc"}))
    files.undo({"op": "move", "file": "1Abc", "from": ["1Old"], "to": "1New"})
    query = calls(http)[1][2]
    assert (query["addParents"], query["removeParents"]) == ("1Old", "1New")


def test_undoing_a_move_after_it_moved_again_is_changed(writer):
    files, _ = drive(writer, (200, {"id": "1Abc", "name": "A", "parents": ["1Elsewhere"]}))
    with raises("changed"):
        files.undo({"op": "move", "file": "1Abc", "from": ["1Old"], "to": "1New"})


def test_rename_gives_the_name_before(writer):
    files, http = drive(writer, (200, {"id": "1Abc", "name": "Old"}), (200, {"id": "1Abc", "name": "New"}))
    assert (files.rename("1Abc", name="New").value, calls(http)[1][3]) == ("Old", {"name": "New"})


def test_undoing_a_rename_puts_the_old_name_back(writer):
    files, http = drive(writer, (200, {"id": "1Abc", "name": "New"}), (200, {"id": "1Abc", "name": "Old"}))
    files.undo({"op": "rename", "file": "1Abc", "before": "Old", "after": "New"})
    assert calls(http)[1][3] == {"name": "Old"}


def test_undoing_a_rename_after_another_is_changed(writer):
    files, _ = drive(writer, (200, {"id": "1Abc", "name": "Newer"}))
    with raises("changed"):
        files.undo({"op": "rename", "file": "1Abc", "before": "Old", "after": "New"})


# --- documents --------------------------------------------------------------------------------------------------

DOC_META = (200, file(id_="1Doc"))


def test_replace_text_replaces_all_on_the_revision_it_read(writer):
    files, http = drive(writer, DOC_META, (200, document("Proposal for {{CLIENT}}")),
                        (200, {"replies": [{"replaceAllText": {"occurrencesChanged": 1}}],
                               "writeControl": {"requiredRevisionId": "rev-2"}}))
    written = files.replace_text("1Doc", find="{{CLIENT}}", replace="Ortiz Bakery")
    assert (written.value, calls(http)[2][3]) == (1, {
        "requests": [{"replaceAllText": {"containsText": {"text": "{{CLIENT}}", "matchCase": True},
                                         "replaceText": "Ortiz Bakery"}}],
        "writeControl": {"requiredRevisionId": "rev-1"},
    })


def test_replace_text_with_no_match_writes_nothing(writer):
    files, http = drive(writer, DOC_META, (200, document("Nothing to see")))
    assert (files.replace_text("1Doc", find="{{CLIENT}}", replace="x").value, len(http.request_sequence)) == (0, 2)


def test_replace_text_in_a_file_that_is_not_a_google_doc_is_unsupported(writer):
    files, _ = drive(writer, (200, file(id_="1Doc", mime="application/pdf")))
    with raises("unsupported"):
        files.replace_text("1Doc", find="a", replace="b")


def test_replace_text_when_the_doc_changed_meanwhile_is_changed(writer):
    files, _ = drive(writer, DOC_META, (200, document("{{CLIENT}}")),
                     error(400, "badRequest", "The required revision ID 'rev-1' does not match the latest revision."))
    with raises("changed"):
        files.replace_text("1Doc", find="{{CLIENT}}", replace="Ortiz Bakery")


def _replaced(writer, paragraphs, find, replace):
    files, _ = drive(writer, DOC_META, (200, document(*paragraphs)), (200, {"replies": [{}]}))
    return files.replace_text("1Doc", find=find, replace=replace).undo


def test_undoing_replace_text_puts_each_match_back_where_it_was(writer):
    undo = _replaced(writer, ["🎉 {{CLIENT}} and {{CLIENT}}"], "{{CLIENT}}", "Ortiz")
    files, http = drive(writer, (200, document("🎉 Ortiz and Ortiz", revision="rev-2")), (200, {}))
    files.undo(undo)
    # The emoji counts two in a Google Doc's positions: the first match starts at 1 + 2 + 1.
    assert calls(http)[1][3] == {"requests": [
        {"deleteContentRange": {"range": {"startIndex": 14, "endIndex": 19}}},
        {"insertText": {"location": {"index": 14}, "text": "{{CLIENT}}"}},
        {"deleteContentRange": {"range": {"startIndex": 4, "endIndex": 9}}},
        {"insertText": {"location": {"index": 4}, "text": "{{CLIENT}}"}},
    ], "writeControl": {"requiredRevisionId": "rev-2"}}


def test_undoing_replace_text_after_edits_elsewhere_still_puts_it_back(writer):
    undo = _replaced(writer, ["Dear {{CONTACT}},", "For {{CLIENT}}"], "{{CLIENT}}", "Ortiz")
    files, http = drive(writer, (200, document("Dear Rosa,", "For Ortiz", revision="rev-3")), (200, {}))
    files.undo(undo)
    start = 1 + units("Dear Rosa,\n") + units("For ")
    assert calls(http)[1][3]["requests"][0] == {"deleteContentRange": {"range": {"startIndex": start,
                                                                                  "endIndex": start + 5}}}


def test_undoing_replace_text_after_the_new_text_was_edited_is_changed(writer):
    undo = _replaced(writer, ["For {{CLIENT}}"], "{{CLIENT}}", "Ortiz")
    files, http = drive(writer, (200, document("For Ortiz Bakery Co", revision="rev-3")))
    with raises("changed"):
        files.undo(undo)


def test_append_text_inserts_a_new_paragraph_before_the_closing_newline(writer):
    files, http = drive(writer, DOC_META, (200, document("Notes")), (200, {}))
    written = files.append_text("1Doc", text="Call Rosa")
    # "Notes\n" fills 1..7; the new paragraph goes in before the last newline, at 6.
    assert (calls(http)[2][3]["requests"], written.value) == (
        [{"insertText": {"location": {"index": 6}, "text": "\nCall Rosa"}}], (7, 16)
    )


def test_undoing_append_text_deletes_the_paragraph(writer):
    files, _ = drive(writer, DOC_META, (200, document("Notes")), (200, {}))
    undo = files.append_text("1Doc", text="Call Rosa").undo
    files, http = drive(writer, (200, document("Notes", "Call Rosa", revision="rev-2")), (200, {}))
    files.undo(undo)
    assert calls(http)[1][3]["requests"] == [{"deleteContentRange": {"range": {"startIndex": 6, "endIndex": 16}}}]


# --- sheets -----------------------------------------------------------------------------------------------------

SHEET_META = (200, file(id_="1Sheet", mime=GOOGLE_SHEET))
TABS = (200, {"sheets": [{"properties": {"sheetId": 0, "title": "Log"}},
                         {"properties": {"sheetId": 42, "title": "Projects"}}]})


def test_sheet_values_reads_the_range_as_shown(writer):
    files, http = drive(writer, SHEET_META, (200, {"values": [["Due", "2026-11-20"]]}))
    values = files.sheet_values("1Sheet", "Projects!E12:F12")
    assert (values, calls(http)[1][2]["valueRenderOption"]) == ([["Due", "2026-11-20"]], "FORMATTED_VALUE")


def test_update_cells_gives_the_cells_before_as_shown(writer):
    files, http = drive(writer, SHEET_META, TABS, (200, {"values": [["Nov 20"]]}), (200, {"values": [[46346]]}),
                        (200, {"updatedData": {"values": [["2026-11-27"]]}}))
    written = files.update_cells("1Sheet", range_="Projects!F12", values=[["2026-11-27"]])
    assert (written.value, calls(http)[4][1].rsplit("/", 1)[1], calls(http)[4][2]["valueInputOption"]) == (
        [["Nov 20"]], "Projects!F12", "USER_ENTERED"
    )


def test_update_cells_keeps_the_old_formulas_for_undo(writer):
    files, _ = drive(writer, SHEET_META, TABS, (200, {"values": [["3", "9"]]}), (200, {"values": [[3, "=A1*3"]]}),
                     (200, {"updatedData": {"values": [[4, 5]]}}))
    undo = files.update_cells("1Sheet", range_="Projects!A1", values=[[4, 5]]).undo
    assert (undo["before"], undo["sheet_id"], undo["range"]) == ([[3, "=A1*3"]], 42, [0, 0, 0, 1])


def test_undoing_update_cells_writes_the_old_values_back_as_they_were(writer):
    undo = {"op": "update_cells", "file": "1Sheet", "sheet_id": 42, "sheet": "Projects", "range": [0, 0, 0, 2],
            "before": [[3, "=A1*3", ""]], "after": [[4, 5, "x"]]}
    files, http = drive(writer, (200, {"values": [[4, 5, "x"]]}), (200, {}))
    files.undo(undo)
    assert calls(http)[1][3]["requests"][0]["updateCells"] == {
        "range": {"sheetId": 42, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 0, "endColumnIndex": 3},
        "rows": [{"values": [{"userEnteredValue": {"numberValue": 3}}, {"userEnteredValue": {"formulaValue": "=A1*3"}},
                             {}]}],
        "fields": "userEnteredValue",
    }


def test_undoing_update_cells_after_they_changed_again_is_changed(writer):
    undo = {"op": "update_cells", "file": "1Sheet", "sheet_id": 42, "sheet": "Projects", "range": [0, 0, 0, 0],
            "before": [[3]], "after": [[4]]}
    files, _ = drive(writer, (200, {"values": [[7]]}))
    with raises("changed"):
        files.undo(undo)


def test_update_cells_on_an_unknown_tab_is_bad_input(writer):
    files, _ = drive(writer, SHEET_META, TABS)
    with raises("bad_input"):
        files.update_cells("1Sheet", range_="Leads!A1", values=[["x"]])


def test_append_rows_inserts_rows_after_the_table(writer):
    files, http = drive(writer, SHEET_META, TABS, (200, {"updates": {
        "updatedRange": "Projects!A15:C15", "updatedData": {"values": [["Whitmore", "Boiler swap", 3200]]}}}))
    written = files.append_rows("1Sheet", range_="Projects!A:C", values=[["Whitmore", "Boiler swap", 3200]])
    method, path, query, _ = calls(http)[2]
    assert (written.value, query["insertDataOption"], path.endswith("/values/Projects!A:C:append")) == (
        "Projects!A15:C15", "INSERT_ROWS", True
    )


def test_undoing_append_rows_deletes_those_rows(writer):
    undo = {"op": "append_rows", "file": "1Sheet", "sheet_id": 42, "range": "Projects!A15:C16",
            "after": [["a", "b", 1], ["c", "d", 2]]}
    files, http = drive(writer, (200, {"values": [["a", "b", 1], ["c", "d", 2]]}), (200, {}))
    files.undo(undo)
    assert calls(http)[1][3]["requests"] == [{"deleteDimension": {"range": {
        "sheetId": 42, "dimension": "ROWS", "startIndex": 14, "endIndex": 16}}}]


def test_undoing_append_rows_after_they_were_edited_is_changed(writer):
    undo = {"op": "append_rows", "file": "1Sheet", "sheet_id": 42, "range": "Projects!A15:C15",
            "after": [["a", "b", 1]]}
    files, _ = drive(writer, (200, {"values": [["a", "b", 2]]}))
    with raises("changed"):
        files.undo(undo)


# --- changes ----------------------------------------------------------------------------------------------------


def test_changes_from_nothing_starts_at_drives_page_token(google):
    files, _ = drive(google, (200, {"startPageToken": "100"}))
    changes = files.changes(None)
    assert (changes.items, changes.cursor) == ([], "100")


def test_changes_gives_the_files_changed_and_the_new_token(google):
    files, _ = drive(google, (200, {"changes": [
        {"fileId": "1Abc", "file": file()}, {"fileId": "1Gone", "removed": True},
        {"fileId": "1Bin", "file": file(id_="1Bin", trashed=True)},
    ], "newStartPageToken": "101"}))
    changes = files.changes("100")
    assert ([m.id for m in changes.items], changes.cursor) == ([f"{google.account_key}:1Abc"], "101")


def test_changes_follows_pages(google):
    files, http = drive(google, (200, {"changes": [{"fileId": "1Abc", "file": file()}], "nextPageToken": "100b"}),
                        (200, {"changes": [{"fileId": "1Def", "file": file(id_="1Def")}], "newStartPageToken": "102"}))
    changes = files.changes("100")
    assert (len(changes.items), calls(http)[1][2]["pageToken"], changes.cursor) == (2, "100b", "102")


# --- tokens -----------------------------------------------------------------------------------------------------


def test_a_token_refused_midway_is_refreshed_saved_and_the_call_made_again(org, app_settings):
    connection = save_google(org, scopes=WRITE)
    http = answers(error(401, "authError"), (200, {"access_token": "g-access-2", "expires_in": 3599}),
                   (200, file()))
    with mock.patch("googleapiclient.http.build_http", return_value=http):
        meta = provider_for(connection, "files").get("1Abc")
    assert (meta.name, Connection.objects.get(pk=connection.pk).read_tokens()["access_token"]) == (
        "Proposal template", "g-access-2"
    )


def test_an_expired_token_is_refreshed_before_the_call(org, app_settings):
    from tests.integrations.fakes import GoogleTokenEndpoint

    connection = save_google(org, scopes=WRITE, expiry=an_hour_ago())
    endpoint = GoogleTokenEndpoint(200, {"access_token": "g-access-3", "expires_in": 3599})
    http = answers((200, file()))
    with mock.patch("integrations.oauth.google_transport", return_value=endpoint), \
            mock.patch("googleapiclient.http.build_http", return_value=http):
        provider_for(connection, "files").get("1Abc")
    assert (len(endpoint.calls), http.request_sequence[0][3]["authorization"]) == (1, "Bearer g-access-3")


# --- the tools on Google --------------------------------------------------------------------------------------


def on_google(*pairs):
    """Every Google client the tools build talks to these answers (the credentials' http is the mock)."""
    http = answers(*pairs)
    return http, mock.patch("googleapiclient.http.build_http", return_value=http)


def test_a_write_on_a_read_only_drive_is_reauth_with_a_card_and_asks_google_nothing(use, google, org):
    http, patch = on_google()
    with patch:
        out = use("files.rename", id=f"{google.account_key}:1Abc", name="New")
    assert (out["error"], out["card"], http.request_sequence) == (
        "reauth", Card.objects.get(organization=org, kind="reconnect").title, []
    )


def test_a_read_of_a_drive_link_finds_the_account_and_reads_the_doc(use, google):
    doc = file(id_="1Hk3TemplatePr0posalDoc9xQ")
    http, patch = on_google((200, doc), (200, doc), (200, b"# Proposal for {{CLIENT}}"))
    with patch:
        out = use("files.read", id="https://docs.google.com/document/d/1Hk3TemplatePr0posalDoc9xQ/edit")
    assert (out["id"], out["text"], out["source"]) == (
        f"{google.account_key}:1Hk3TemplatePr0posalDoc9xQ", "# Proposal for {{CLIENT}}", "sam@fernhill.test"
    )


def test_a_google_sheet_reads_tab_by_tab_through_the_tool(use, google):
    http, patch = on_google((200, file(mime=GOOGLE_SHEET, name="Timesheet")),
                            (200, {"sheets": [{"properties": {"sheetId": 0, "title": "Log"}}]}),
                            (200, {"valueRanges": [{"values": [["Date", "Hours"]]}]}))
    with patch:
        out = use("files.read", id=f"{google.account_key}:1Abc")
    assert out["text"] == "## Log\nDate,Hours"


def test_a_copy_on_drive_is_listed_and_undone_by_trashing_it(use, writer, org):
    from core.actors import Actor
    from core.models import Change
    from core.services import change_undo

    http, patch = on_google((200, file()), (200, file(id_="1Copy", name="Ortiz proposal")),
                            (200, file(id_="1Copy")), (200, {"id": "1Copy", "trashed": True}))
    with patch:
        out = use("files.copy", id=f"{writer.account_key}:1Abc", name="Ortiz proposal")
        change = Change.objects.get(organization=org, tool="files.copy")
        change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    assert (out["id"], change.target_id, calls(http)[3][3]) == (
        f"{writer.account_key}:1Copy", f"{writer.account_key}:1Copy", {"trashed": True}
    )


def test_a_failure_from_google_comes_back_as_its_kind(use, google):
    http, patch = on_google(error(404, "notFound", "File not found: 1Abc."))
    with patch:
        out = use("files.read", id=f"{google.account_key}:1Abc")
    assert out["error"] == "not_found"


def test_search_across_a_drive_that_is_limiting_requests_lists_it_in_failed(use, google):
    http, patch = on_google(error(429, "rateLimitExceeded"))
    with patch:
        out = use("files.search", query="proposal")
    assert ([f["kind"] for f in out["failed"]], out["searched"]) == (["rate_limited"], [])


# --- the workspace: Office files in, new versions out -----------------------------------------------------------


@pytest.mark.parametrize("mime, name, exported", [
    (GOOGLE_SHEET, "Timesheet 2026.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    (GOOGLE_DOC, "Timesheet 2026.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ("application/vnd.google-apps.presentation", "Timesheet 2026.pptx",
     "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
])
def test_google_files_come_into_the_workspace_as_office_files(google, mime, name, exported):
    files, http = drive(google, (200, file(mime=mime, name="Timesheet 2026")), (200, b"PK office"))
    data = files.download_office("1Abc")
    assert (data.name, data.mime_type, data.data) == (name, exported, b"PK office")
    assert calls(http)[1][1].endswith("/files/1Abc/export") and calls(http)[1][2]["mimeType"] == exported


def test_a_new_version_keeps_the_one_before_for_undo(writer, settings, tmp_path):
    settings.ROADSTAR_FILES_ROOT = str(tmp_path / "files")
    from integrations.files.content import XLSX
    from integrations.providers.base import FileData

    sheet = file(mime=GOOGLE_SHEET, name="Timesheet 2026")
    files, http = drive(writer, (200, sheet), (200, b"PK before"), (200, {**sheet, "version": "12"}))
    written = files.upload_version("1Abc", FileData("Timesheet 2026.xlsx", XLSX, b"PK after"))
    method, path, query, _ = calls(http)[2]
    assert (method, path) == ("PATCH", "/upload/drive/v3/files/1Abc")
    assert b"PK after" in _bytes(http.request_sequence[2][2])
    assert (written.undo["op"], written.undo["after_version"], written.value.name) == (
        "version", "12", "Timesheet 2026")

    files, http = drive(writer, (200, {"id": "1Abc", "name": "Timesheet 2026", "version": "12"}), (200, {"id": "1Abc"}))
    files.undo(written.undo)
    assert b"PK before" in _bytes(http.request_sequence[1][2])

    files, http = drive(writer, (200, {"id": "1Abc", "name": "Timesheet 2026", "version": "13"}))
    with raises("changed"):
        files.undo(written.undo)
    assert len(http.request_sequence) == 1


def _bytes(body) -> bytes:
    return body if isinstance(body, bytes) else str(body).encode()
