"""The files group through use_tool on Roadstar's own files: every tool as spec/tools/files.md says, limits,
Undo from Home, what the check is shown, isolation between workspaces, the proposal use case and doc events."""

import io

import pytest

from core.actors import Actor
from core.errors import ToolError
from core.models import Card, Change
from core.services import change_undo
from integrations.files import services as files_services
from integrations.files import storage
from integrations.files.events import docs_watch_one
from integrations.local.models_files import LocalFile
from integrations.models import Connection
from integrations.providers.base import FileData
from integrations.providers.registry import provider_for
from integrations.services import connection_create_local
from tests.integrations.files_samples import PNG, TEMPLATE, fernhill_folder, pdf
from tests.spec import spec_page, spec_tool_names, spec_tools
from tools import registry

NAMES = sorted(spec_tool_names(lambda t: t["group"] == "files"), key=str)


@pytest.fixture(autouse=True)
def files_root(settings, tmp_path):
    settings.ROADSTAR_FILES_ROOT = str(tmp_path / "files")


@pytest.fixture
def drive(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["files"])


@pytest.fixture
def fernhill(drive, tmp_path):
    provider_for(drive, "files").import_path(fernhill_folder(tmp_path / "src"))
    return drive


def gid(name: str, org=None) -> str:
    rows = LocalFile.objects.filter(name=name, trashed=False)
    if org is not None:
        rows = rows.filter(connection__organization=org)
    found = rows.select_related("connection").get()
    return f"{found.connection.account_key}:{found.file_id}"


def text(use, file_id: str) -> str:
    return use("files.read", id=file_id)["text"]


def bad(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


def last_change(org) -> Change:
    return Change.objects.filter(organization=org, undoes__isnull=True).order_by("-at").first()


def undo_last(org):
    return change_undo(org=org, change_id=last_change(org).id, actor=Actor.for_user(org.owner))


def checked(ctx, name: str, inp: dict) -> bool:
    tool = registry.get_tool(name)
    return tool.is_checked(ctx, tool.input.model_validate(inp))


# --- the spec's declarations -------------------------------------------------------------------------------------


def test_every_files_tool_of_the_spec_is_registered():
    assert sorted(t.name for t in registry.tools_of("files")) == sorted(
        n for n, t in spec_tools().items() if t["group"] == "files")


@pytest.mark.parametrize("name", NAMES)
def test_owners_yes_and_home_listing_match_the_spec(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.owners_yes, tool.describe()["your_work"]) == (spec["owners_yes"], spec["your_work"])


@pytest.mark.parametrize("name", NAMES)
def test_description_is_the_spec_line_word_for_word(name):
    assert registry.TOOLS[name].description == spec_tools()[name]["does"]


@pytest.mark.parametrize("name", NAMES)
def test_inputs_and_required_inputs_match_the_spec(name):
    schema = registry.TOOLS[name].input_schema()
    spec = spec_tools()[name]["inputs"]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in spec}, {i["name"] for i in spec if i["required"]}
    )


def test_the_how_to_is_the_specs_word_for_word():
    block = spec_page("tools/files.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    quoted = " ".join(line[2:] for line in block.splitlines() if line.startswith("> ")).strip()
    assert registry.GROUPS["files"].how_to == quoted


def test_the_groups_line_is_the_catalogs():
    from tools.catalog import browse_description

    ours = [line for line in browse_description().splitlines() if line.startswith("- files:")]
    assert f"> {ours[0]}" in spec_page("tools/catalog.md").splitlines()


def test_save_is_not_checked_when_it_makes_a_new_file(ctx):
    assert checked(ctx, "files.save", {"workspace": "shared/report.xlsx"}) is False


def test_save_is_checked_when_it_writes_over_a_file(ctx):
    assert checked(ctx, "files.save", {"workspace": "shared/report.xlsx", "over": "7c41e2d0:1Abc"}) is True


# --- limits ---------------------------------------------------------------------------------------------------

LONG = "x" * 501


@pytest.mark.parametrize("name,inp,field", [
    ("files.search", {"query": ""}, "query"),
    ("files.search", {"query": "q" * 501}, "query"),
    ("files.search", {"query": "q", "source": "s" * 121}, "source"),
    ("files.search", {"query": "q", "modifiedAfter": "m" * 41}, "modifiedAfter"),
    ("files.search", {"query": "q", "limit": 0}, "limit"),
    ("files.search", {"query": "q", "limit": 21}, "limit"),
    ("files.search", {"query": "q", "page": "p" * 4001}, "page"),
    ("files.read", {"id": "ab"}, "id"),
    ("files.read", {"id": LONG}, "id"),
    ("files.read", {"id": "abc", "offset": -1}, "offset"),
    ("files.read", {"id": "abc", "page": "p" * 4001}, "page"),
    ("files.copy", {"id": "abc", "name": ""}, "name"),
    ("files.copy", {"id": "abc", "name": "n" * 201}, "name"),
    ("files.copy", {"id": "abc", "name": "n", "folderId": "ab"}, "folderId"),
    ("files.folder", {"name": ""}, "name"),
    ("files.folder", {"name": "n", "parentId": LONG}, "parentId"),
    ("files.move", {"ids": [], "folderId": "abc"}, "ids"),
    ("files.move", {"ids": ["abc"] * 51, "folderId": "abc"}, "ids"),
    ("files.move", {"ids": ["abc", "ab"], "folderId": "abc"}, "ids[1]"),
    ("files.move", {"ids": ["abc"], "folderId": "ab"}, "folderId"),
    ("files.rename", {"id": "abc", "name": "n" * 201}, "name"),
    ("files.create_doc", {"name": "n", "markdown": ""}, "markdown"),
    ("files.create_doc", {"name": "n", "markdown": "m" * 200_001}, "markdown"),
    ("files.append_text", {"id": "abc", "text": ""}, "text"),
    ("files.append_text", {"id": "abc", "text": "t" * 50_001}, "text"),
    ("files.create_sheet", {"name": "n", "rows": []}, "rows"),
    ("files.create_sheet", {"name": "n", "rows": [["a"]] * 201}, "rows"),
    ("files.create_sheet", {"name": "n", "rows": [[True]]}, "rows[0][0]"),
    ("files.save", {"workspace": ""}, "workspace"),
    ("files.save", {"workspace": "w", "over": "ab"}, "over"),
    ("files.save", {"workspace": "w", "name": ""}, "name"),
    ("files.save_attachment", {"attachment": "ab"}, "attachment"),
    ("files.save_attachment", {"attachment": "a" * 301}, "attachment"),
    ("files.save_attachment", {"attachment": "abc", "email": "ab"}, "email"),
    ("files.sheet_rows", {"id": "abc", "range": "r" * 201}, "range"),
    ("files.append_rows", {"id": "abc", "range": "A:B", "values": []}, "values"),
    ("files.append_rows", {"id": "abc", "range": "A:B", "values": [[1]] * 201}, "values"),
    ("files.update_cells", {"id": "abc", "range": "A1", "values": []}, "values"),
    ("files.update_cells", {"id": "abc", "range": "r" * 201, "values": [[1]]}, "range"),
    ("files.replace_text", {"id": "abc", "find": "", "replace": "x"}, "find"),
    ("files.replace_text", {"id": "abc", "find": "f" * 2001, "replace": "x"}, "find"),
    ("files.replace_text", {"id": "abc", "find": "f", "replace": "r" * 5001}, "replace"),
    ("files.replace_text", {"id": "abc", "find": "f", "replace": "x", "extra": 1}, "extra"),
])
def test_an_input_over_its_limit_is_bad_input_naming_it(use, name, inp, field):
    assert bad(use(name, **inp), field)


# --- search ---------------------------------------------------------------------------------------------------


def test_search_gives_hits_with_their_account_and_what_was_searched(use, fernhill):
    out = use("files.search", query="proposal template")
    assert ([(h["title"], h["type"], h["source"]) for h in out["hits"]], out["searched"], out["failed"]) == (
        [("Proposal template.md", "doc", "sam@fernhill.test")], ["sam@fernhill.test"], []
    )


def test_search_covers_every_files_account(use, fernhill, org):
    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["files"])
    provider_for(other, "files").create_doc(name="Proposal checklist", markdown="x", folder_id=None)
    out = use("files.search", query="proposal")
    assert {(h["title"], h["source"]) for h in out["hits"]} == {
        ("Proposal template.md", "sam@fernhill.test"), ("Proposal checklist", "studio@fernhill.test")
    }


def test_search_lists_an_account_whose_sign_in_stopped_in_failed(use, fernhill, org):
    stopped = connection_create_local(org=org, account="old@fernhill.test", groups=["files"])
    Connection.objects.filter(pk=stopped.pk).update(status=Connection.Status.NEEDS_RECONNECT)
    failed = use("files.search", query="proposal")["failed"]
    assert [(f["source"], f["kind"], f["connection"]) for f in failed] == [
        ("old@fernhill.test", "reauth", stopped.account_key)
    ]


def test_search_with_source_searches_only_that_account(use, fernhill, org):
    connection_create_local(org=org, account="studio@fernhill.test", groups=["files"])
    assert use("files.search", query="proposal", source="studio")["searched"] == ["studio@fernhill.test"]


def test_search_with_a_source_no_account_has_is_bad_input(use, fernhill):
    assert bad(use("files.search", query="proposal", source="nobody"), "source")


def test_search_with_no_files_account_is_not_connected_with_a_card(use, org):
    out = use("files.search", query="proposal")
    assert (out["error"], out["card"]) == ("not_connected", Card.objects.get(organization=org, kind="connect").title)


def test_search_gives_ten_by_default(use, fernhill, drive):
    files = provider_for(drive, "files")
    for i in range(12):
        files.create_doc(name=f"Invoice note {i}", markdown="x", folder_id=None)
    assert len(use("files.search", query="invoice note")["hits"]) == 10


def test_search_pages_with_next_page(use, fernhill, drive):
    files = provider_for(drive, "files")
    for i in range(5):
        files.create_doc(name=f"Invoice note {i}", markdown="x", folder_id=None)
    first = use("files.search", query="invoice note", limit=3)
    second = use("files.search", query="invoice note", limit=3, page=first["nextPage"])
    titles = [h["title"] for h in first["hits"] + second["hits"]]
    assert (sorted(titles), "nextPage" in second) == ([f"Invoice note {i}" for i in range(5)], False)


def test_search_with_a_page_it_did_not_give_is_bad_input(use, fernhill):
    assert bad(use("files.search", query="x", page="not-a-page!"), "page")


def test_search_with_a_modified_after_that_is_not_a_date_is_bad_input(use, fernhill):
    assert bad(use("files.search", query="x", modifiedAfter="last week"), "modifiedAfter")


def test_search_with_modified_after_leaves_older_files_out(use, fernhill):
    assert use("files.search", query="proposal", modifiedAfter="2999-01-01")["hits"] == []


# --- read -----------------------------------------------------------------------------------------------------


def test_read_gives_a_documents_text_with_its_id_and_account(use, fernhill):
    out = use("files.read", id=gid("Proposal template.md"))
    assert (out["text"], out["id"], out["source"], out["title"]) == (
        TEMPLATE, gid("Proposal template.md"), "sam@fernhill.test", "Proposal template.md"
    )


def test_read_takes_a_files_link(use, fernhill):
    key, file_id = gid("notes.txt").split(":")
    link = f"http://localhost:8000/files/{key}/{file_id}"
    assert use("files.read", id=link)["text"] == "Call Rosa about the bag sizes.\n"


def test_read_gives_a_long_text_30000_characters_at_a_time(use, fernhill, drive):
    doc = provider_for(drive, "files").create_doc(name="Long", markdown="a" * 30_000 + "b" * 10, folder_id=None).value
    first = use("files.read", id=doc.id)
    rest = use("files.read", id=doc.id, offset=first["nextOffset"])
    assert (len(first["text"]), first["nextOffset"], rest["text"], "nextOffset" in rest) == (
        30_000, 30_000, "b" * 10, False
    )


def test_read_past_the_end_is_bad_input_naming_offset(use, fernhill):
    assert bad(use("files.read", id=gid("notes.txt"), offset=500), "offset")


def test_read_of_a_sheet_gives_it_tab_by_tab(use, fernhill):
    assert use("files.read", id=gid("Timesheet 2026.xlsx"))["text"] == (
        "## Log\nDate,Client,Hours\n2026-10-01,Juniper Dental,3.5\n2026-10-02,Ortiz Bakery,2\n"
        "2026-10-03,Harbor Florists,1.5\n\n## Rates\nClient,Rate\nJuniper Dental,125"
    )


def test_read_of_a_docx_gives_its_text(use, fernhill):
    assert use("files.read", id=gid("Rate card 2026.docx"))["text"] == "# Studio rates\nHourly: $125\nDay rate: $900"


def test_read_of_a_pdf_gives_its_text(use, fernhill):
    assert use("files.read", id=gid("Brief.pdf"))["text"] == "Ortiz Bakery packaging brief"


def test_read_of_a_scanned_pdf_is_unsupported(use, fernhill, drive):
    scan = provider_for(drive, "files").upload(FileData("scan.pdf", "application/pdf", pdf(None)), name="scan.pdf",
                                               folder_id=None).value
    assert use("files.read", id=scan.id)["error"] == "unsupported"


def test_read_of_a_picture_gives_an_image(use, fernhill):
    import base64

    out = use("files.read", id=gid("Logo.png"))
    assert (out["text"], out["image"]) == ("", {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()})


def test_read_of_a_folder_gives_its_items(use, fernhill):
    out = use("files.read", id=gid("Clients"))
    assert ([(i["title"], i["type"]) for i in out["items"]], "nextPage" in out) == ([("Ortiz Bakery", "folder")], False)


def test_read_of_a_folder_pages_its_items_by_50(use, fernhill, drive):
    files = provider_for(drive, "files")
    folder = LocalFile.objects.get(name="Templates").file_id
    for i in range(50):
        files.create_doc(name=f"T{i:02}", markdown="x", folder_id=folder)
    first = use("files.read", id=gid("Templates"))
    second = use("files.read", id=gid("Templates"), page=first["nextPage"])
    assert (len(first["items"]), len(second["items"])) == (50, 1)


def test_read_of_an_id_without_an_account_is_not_found(use, fernhill):
    assert use("files.read", id="1AbcNoAccount")["error"] == "not_found"


def test_read_of_an_unknown_file_is_not_found(use, fernhill):
    assert use("files.read", id=f"{fernhill.account_key}:1Nope")["error"] == "not_found"


# --- making: copy, folder, create_doc, create_sheet -----------------------------------------------------------


def test_copy_gives_the_copys_id_name_and_link(use, fernhill):
    out = use("files.copy", id=gid("Proposal template.md"), name="Ortiz Bakery: packaging redesign proposal",
              folderId=gid("Ortiz Bakery"))
    assert (out["name"], out["id"], out["url"]) == (
        "Ortiz Bakery: packaging redesign proposal", gid("Ortiz Bakery: packaging redesign proposal"),
        f"/files/{out['id'].replace(':', '/')}",
    )


def test_copy_is_listed_on_home_as_made_here(use, fernhill, org):
    out = use("files.copy", id=gid("Proposal template.md"), name="Copy")
    change = last_change(org)
    assert (change.listing, change.kind, change.target_type, change.target_id, change.sentence) == (
        "home_undo", "makes", "file", out["id"], "copied Proposal template.md as “Copy”"
    )


def test_undoing_a_copy_from_home_trashes_it_and_records_the_undo(use, fernhill, org):
    out = use("files.copy", id=gid("Proposal template.md"), name="Copy")
    record = undo_last(org)
    assert (use("files.read", id=out["id"])["error"], record.undoes.tool) == ("not_found", "files.copy")


def test_copy_into_another_accounts_folder_is_bad_input(use, fernhill, org):
    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["files"])
    folder = provider_for(other, "files").create_folder(name="Elsewhere", parent_id=None).value
    assert bad(use("files.copy", id=gid("notes.txt"), name="Copy", folderId=folder.id), "folderId")


def test_folder_makes_a_folder_inside_its_parent(use, fernhill):
    out = use("files.folder", name="Juniper Dental", parentId=gid("Clients"))
    assert ([i["title"] for i in use("files.read", id=gid("Clients"))["items"]], out["name"]) == (
        ["Juniper Dental", "Ortiz Bakery"], "Juniper Dental"
    )


def test_undoing_a_folder_trashes_it(use, fernhill, org):
    out = use("files.folder", name="Juniper Dental")
    undo_last(org)
    assert use("files.read", id=out["id"])["error"] == "not_found"


def test_create_doc_writes_the_markdown(use, fernhill):
    out = use("files.create_doc", name="Kickoff notes", markdown="# Kickoff\n\n- **Goals**")
    assert text(use, out["id"]) == "# Kickoff\n\n- **Goals**"


def test_create_doc_with_no_files_account_that_writes_is_not_connected(use, org):
    assert use("files.create_doc", name="Kickoff", markdown="x")["error"] == "not_connected"


def test_undoing_create_doc_trashes_it(use, fernhill, org):
    out = use("files.create_doc", name="Kickoff notes", markdown="x")
    undo_last(org)
    assert use("files.read", id=out["id"])["error"] == "not_found"


def test_create_sheet_writes_the_rows(use, fernhill):
    out = use("files.create_sheet", name="October hours", rows=[["Client", "Hours"], ["Juniper Dental", 46.5]])
    assert use("files.sheet_rows", id=out["id"], range="Sheet1!A1:B2")["values"] == [["Client", "Hours"],
                                                                                      ["Juniper Dental", "46.5"]]


def test_undoing_create_sheet_trashes_it(use, fernhill, org):
    out = use("files.create_sheet", name="October hours", rows=[["Client"]])
    undo_last(org)
    assert use("files.read", id=out["id"])["error"] == "not_found"


# --- save and save_attachment ---------------------------------------------------------------------------------


def test_save_puts_a_workspace_file_in_drive_with_undo(use, fernhill, org):
    use("workspace.write", path="october.csv", content="Client,Hours\nJuniper Dental,46.5\n")
    out = use("files.save", workspace="october.csv", name="October hours", folderId=gid("Ortiz Bakery"))
    assert out["name"] == "October hours"
    assert "Juniper Dental" in text(use, out["id"])
    assert last_change(org).tool == "files.save" and last_change(org).created
    undo_last(org)
    assert use("files.read", id=out["id"])["error"] == "not_found"


def test_save_over_writes_a_new_version_of_the_file_it_was_opened_from(use, fernhill, org):
    opened = use("workspace.open", files=[gid("notes.txt")])["opened"][0]
    assert opened == {"path": "/work/inbox/notes.txt", "from": gid("notes.txt")}
    use("workspace.edit", path=opened["path"], oldText="bag sizes", newText="box sizes")
    out = use("files.save", workspace=opened["path"], over=opened["from"])
    assert out["id"] == gid("notes.txt")
    assert text(use, gid("notes.txt")).strip() == "Call Rosa about the box sizes."
    undo_last(org)
    assert text(use, gid("notes.txt")).strip() == "Call Rosa about the bag sizes."


def test_save_over_a_file_that_changed_since_does_not_undo(use, fernhill, org):
    use("workspace.write", path="n.txt", content="from the workspace")
    use("files.save", workspace="n.txt", over=gid("notes.txt"))
    change = last_change(org)
    use("files.append_text", id=gid("notes.txt"), text="later")
    with pytest.raises(ToolError) as raised:
        change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    assert raised.value.kind == "changed"


def test_save_with_over_takes_no_name_or_folder(use, fernhill):
    use("workspace.write", path="n.txt", content="x")
    assert bad(use("files.save", workspace="n.txt", over=gid("notes.txt"), name="Other"), "over")


def test_save_of_a_missing_or_outside_workspace_file(use, fernhill):
    assert use("files.save", workspace="nothing.xlsx")["error"] == "not_found"
    assert bad(use("files.save", workspace="/etc/passwd"), "workspace")
    assert bad(use("files.save", workspace="../other/x.txt"), "workspace")


def test_save_as_google_takes_only_office_files(use, fernhill):
    use("workspace.write", path="n.txt", content="x")
    assert bad(use("files.save", workspace="n.txt", asGoogle=True), "asGoogle")


class FakeMail:
    def __init__(self):
        self.asked = []

    def read_attachment(self, thread_id, attachment_id):
        self.asked.append((thread_id, attachment_id))
        return FileData("brief.pdf", "application/pdf", pdf("Packaging brief"))


@pytest.fixture
def mailbox(org, fernhill, monkeypatch):
    mail = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    fake = FakeMail()
    monkeypatch.setattr(files_services, "_mail_provider", lambda connection: fake)
    return mail, fake


def test_save_attachment_saves_the_file_from_the_thread(use, mailbox):
    mail, fake = mailbox
    out = use("files.save_attachment", email=f"{mail.account_key}:t-42", attachment=f"{mail.account_key}:att-7",
              folderId=gid("Ortiz Bakery"))
    assert (fake.asked, text(use, out["id"]), out["name"]) == ([("t-42", "att-7")], "Packaging brief", "brief.pdf")


def test_save_attachment_takes_a_search_id(use, mailbox):
    mail, fake = mailbox
    use("files.save_attachment", attachment=f"local:{mail.account_key}:t:t-42:a:att-7", name="Brief")
    assert fake.asked == [("t-42", "att-7")]


def test_save_attachment_without_email_and_a_search_id_is_bad_input(use, mailbox):
    assert bad(use("files.save_attachment", attachment="att-7"), "email")


def test_undoing_save_attachment_trashes_the_file(use, mailbox, org):
    mail, _ = mailbox
    out = use("files.save_attachment", email=f"{mail.account_key}:t-42", attachment="att-7")
    undo_last(org)
    assert use("files.read", id=out["id"])["error"] == "not_found"


# --- move and rename ------------------------------------------------------------------------------------------


def test_move_gives_each_file_with_the_folders_it_was_in(use, fernhill):
    out = use("files.move", ids=[gid("notes.txt"), gid("Brief.pdf")], folderId=gid("Ortiz Bakery"))
    assert out == {"moved": [{"id": gid("notes.txt"), "name": "notes.txt", "from": []},
                             {"id": gid("Brief.pdf"), "name": "Brief.pdf", "from": []}]}


def test_move_gives_the_folder_a_file_came_from(use, fernhill):
    out = use("files.move", ids=[gid("Proposal template.md")], folderId=gid("Clients"))
    assert out["moved"][0]["from"] == [gid("Templates")]


def test_moving_several_is_one_change_with_one_undo(use, fernhill, org):
    use("files.move", ids=[gid("notes.txt"), gid("Brief.pdf")], folderId=gid("Ortiz Bakery"))
    undo_last(org)
    assert [i["title"] for i in use("files.read", id=gid("Ortiz Bakery"))["items"]] == []


def test_a_move_that_fails_partway_puts_back_what_moved(use, fernhill):
    out = use("files.move", ids=[gid("notes.txt"), gid("Clients")], folderId=gid("Ortiz Bakery"))
    assert (out["error"], LocalFile.objects.get(name="notes.txt").parent) == ("bad_input", None)


def test_move_into_a_file_is_bad_input(use, fernhill):
    assert bad(use("files.move", ids=[gid("notes.txt")], folderId=gid("Brief.pdf")), "folderId")


def test_the_check_is_shown_what_a_move_takes_from_where(ctx, fernhill):
    tool = registry.get_tool("files.move")
    inp = tool.input.model_validate({"ids": [gid("Proposal template.md")], "folderId": gid("Clients")})
    assert tool.replaces(ctx, inp) == {"files": [{"id": gid("Proposal template.md"), "name": "Proposal template.md",
                                                  "folder": "Templates"}]}


def test_rename_gives_the_name_before(use, fernhill):
    file_id = gid("notes.txt")
    assert use("files.rename", id=file_id, name="Rosa call notes") == {"before": "notes.txt", "id": file_id}


def test_undoing_a_rename_puts_the_name_back(use, fernhill, org):
    file_id = gid("notes.txt")
    use("files.rename", id=file_id, name="Rosa call notes")
    undo_last(org)
    assert use("files.read", id=file_id)["title"] == "notes.txt"


def test_undoing_a_rename_renamed_again_since_is_changed(use, fernhill, org):
    file_id = gid("notes.txt")
    use("files.rename", id=file_id, name="Rosa call notes")
    first = last_change(org)
    use("files.rename", id=file_id, name="Other")
    with pytest.raises(ToolError) as caught:
        change_undo(org=org, change_id=first.id, actor=Actor.for_user(org.owner))
    assert caught.value.kind == "changed"


def test_the_check_is_shown_the_name_a_rename_replaces(ctx, fernhill):
    tool = registry.get_tool("files.rename")
    assert tool.replaces(ctx, tool.input.model_validate({"id": gid("notes.txt"), "name": "N"})) == {"name": "notes.txt"}


# --- documents ------------------------------------------------------------------------------------------------


def test_append_text_gives_where_the_new_paragraph_is(use, fernhill):
    out = use("files.append_text", id=gid("notes.txt"), text="Then send the quote.")
    assert text(use, gid("notes.txt"))[out["start"]:out["end"]] == "Then send the quote."


def test_undoing_append_text_removes_the_paragraph(use, fernhill, org):
    use("files.append_text", id=gid("notes.txt"), text="Then send the quote.")
    undo_last(org)
    assert text(use, gid("notes.txt")) == "Call Rosa about the bag sizes.\n"


def test_append_text_to_a_sheet_is_unsupported(use, fernhill):
    assert use("files.append_text", id=gid("Timesheet 2026.xlsx"), text="x")["error"] == "unsupported"


def test_replace_text_gives_how_many_changed(use, fernhill):
    out = use("files.replace_text", id=gid("Proposal template.md"), find="{{CLIENT}}", replace="Ortiz Bakery")
    assert out == {"id": gid("Proposal template.md"), "find": "{{CLIENT}}", "replace": "Ortiz Bakery", "changed": 1}


def test_replace_text_with_no_match_records_no_change(use, fernhill, org):
    out = use("files.replace_text", id=gid("Proposal template.md"), find="{{NOPE}}", replace="x")
    assert (out["changed"], Change.objects.filter(organization=org).count()) == (0, 0)


def test_replace_text_with_nothing_deletes_the_text(use, fernhill):
    use("files.replace_text", id=gid("notes.txt"), find=" about the bag sizes", replace="")
    assert text(use, gid("notes.txt")) == "Call Rosa.\n"


def test_undoing_replace_text_puts_the_text_back(use, fernhill, org):
    use("files.replace_text", id=gid("Proposal template.md"), find="{{CLIENT}}", replace="Ortiz Bakery")
    undo_last(org)
    assert text(use, gid("Proposal template.md")) == TEMPLATE


def test_the_check_is_shown_the_file_and_the_text_replace_text_replaces(ctx, fernhill):
    tool = registry.get_tool("files.replace_text")
    inp = tool.input.model_validate({"id": gid("Proposal template.md"), "find": "{{CLIENT}}", "replace": "Ortiz"})
    assert tool.replaces(ctx, inp) == {"file": "Proposal template.md", "text": "{{CLIENT}}"}


def test_the_check_is_shown_the_file_append_text_adds_to(ctx, fernhill):
    tool = registry.get_tool("files.append_text")
    assert tool.replaces(ctx, tool.input.model_validate({"id": gid("notes.txt"), "text": "x"})) == {"file": "notes.txt"}


# --- sheets ---------------------------------------------------------------------------------------------------


def test_sheet_rows_gives_the_cells(use, fernhill):
    assert use("files.sheet_rows", id=gid("Timesheet 2026.xlsx"), range="Log!A1:B2") == {
        "values": [["Date", "Client"], ["2026-10-01", "Juniper Dental"]]
    }


def test_sheet_rows_with_a_range_that_is_not_one_is_bad_input(use, fernhill):
    assert bad(use("files.sheet_rows", id=gid("Timesheet 2026.xlsx"), range="Log!A1:B2:C3"), "range")


def test_append_rows_gives_the_range_written(use, fernhill):
    out = use("files.append_rows", id=gid("Timesheet 2026.xlsx"), range="Log!A:C",
              values=[["2026-10-04", "Ortiz Bakery", 3], ["2026-10-05", "Juniper Dental", 2.5]])
    assert out == {"id": gid("Timesheet 2026.xlsx"), "updatedRange": "Log!A5:C6"}


def test_undoing_append_rows_removes_the_rows(use, fernhill, org):
    use("files.append_rows", id=gid("Timesheet 2026.xlsx"), range="Log!A:C", values=[["2026-10-04", "Ortiz", 3]])
    undo_last(org)
    assert len(use("files.sheet_rows", id=gid("Timesheet 2026.xlsx"), range="Log")["values"]) == 4


def test_update_cells_gives_the_old_values(use, fernhill):
    out = use("files.update_cells", id=gid("Timesheet 2026.xlsx"), range="Log!C2:C3", values=[[4], [2.5]])
    assert out == {"id": gid("Timesheet 2026.xlsx"), "range": "Log!C2:C3", "before": [["3.5"], ["2"]]}


def test_update_cells_writes_the_values(use, fernhill):
    use("files.update_cells", id=gid("Timesheet 2026.xlsx"), range="Log!C2", values=[["4"]])
    assert use("files.sheet_rows", id=gid("Timesheet 2026.xlsx"), range="Log!C2")["values"] == [["4"]]


def test_undoing_update_cells_puts_the_old_values_back(use, fernhill, org):
    use("files.update_cells", id=gid("Timesheet 2026.xlsx"), range="Log!C2", values=[[4]])
    undo_last(org)
    assert use("files.sheet_rows", id=gid("Timesheet 2026.xlsx"), range="Log!C2")["values"] == [["3.5"]]


def test_undoing_update_cells_changed_again_since_is_changed(use, fernhill, org):
    use("files.update_cells", id=gid("Timesheet 2026.xlsx"), range="Log!C2", values=[[4]])
    first = last_change(org)
    use("files.update_cells", id=gid("Timesheet 2026.xlsx"), range="Log!C2", values=[[5]])
    with pytest.raises(ToolError) as caught:
        change_undo(org=org, change_id=first.id, actor=Actor.for_user(org.owner))
    assert caught.value.kind == "changed"


def test_the_check_is_shown_the_cells_update_cells_overwrites(ctx, fernhill):
    tool = registry.get_tool("files.update_cells")
    inp = tool.input.model_validate({"id": gid("Timesheet 2026.xlsx"), "range": "Log!B2", "values": [["X", 1]]})
    assert tool.replaces(ctx, inp) == {"file": "Timesheet 2026.xlsx", "range": "Log!B2:C2",
                                       "values": [["Juniper Dental", "3.5"]]}


def test_the_check_is_shown_the_sheet_append_rows_adds_to(ctx, fernhill):
    tool = registry.get_tool("files.append_rows")
    inp = tool.input.model_validate({"id": gid("Leads.csv"), "range": "A:B", "values": [["Rosa", "r@x.test"]]})
    assert tool.replaces(ctx, inp) == {"file": "Leads.csv", "range": "A:B"}


# --- another workspace's files ----------------------------------------------------------------------------------


@pytest.fixture
def theirs(other_org, tmp_path):
    connection = connection_create_local(org=other_org, account="alex@other.test", groups=["files"])
    provider_for(connection, "files").import_path(fernhill_folder(tmp_path / "theirs"))
    return other_org


@pytest.mark.parametrize("name,inp", [
    ("files.read", lambda t: {"id": t("notes.txt")}),
    ("files.copy", lambda t: {"id": t("notes.txt"), "name": "Mine now"}),
    ("files.folder", lambda t: {"name": "In theirs", "parentId": t("Clients")}),
    ("files.move", lambda t: {"ids": [t("notes.txt")], "folderId": t("Clients")}),
    ("files.rename", lambda t: {"id": t("notes.txt"), "name": "Mine"}),
    ("files.create_doc", lambda t: {"name": "D", "markdown": "x", "folderId": t("Clients")}),
    ("files.append_text", lambda t: {"id": t("notes.txt"), "text": "x"}),
    ("files.create_sheet", lambda t: {"name": "S", "rows": [["a"]], "folderId": t("Clients")}),
    ("files.sheet_rows", lambda t: {"id": t("Timesheet 2026.xlsx"), "range": "Log"}),
    ("files.append_rows", lambda t: {"id": t("Timesheet 2026.xlsx"), "range": "Log!A:C", "values": [["a"]]}),
    ("files.update_cells", lambda t: {"id": t("Timesheet 2026.xlsx"), "range": "Log!C2", "values": [[1]]}),
    ("files.replace_text", lambda t: {"id": t("notes.txt"), "find": "Rosa", "replace": "x"}),
    ("files.save_attachment", lambda t: {"email": t("notes.txt"), "attachment": "att-1"}),
])
def test_another_workspaces_file_is_not_found(use, fernhill, theirs, name, inp):
    out = use(name, **inp(lambda n: gid(n, theirs)))
    assert out["error"] == "not_found"


def test_another_workspaces_files_are_not_searched(use, fernhill, theirs):
    assert use("files.search", query="proposal")["searched"] == ["sam@fernhill.test"]


def test_undo_of_another_workspaces_change_is_not_found(use, fernhill, theirs, org):
    use("files.rename", id=gid("notes.txt", org), name="Mine")
    with pytest.raises(ToolError) as caught:
        change_undo(org=theirs, change_id=last_change(org).id, actor=Actor.for_user(theirs.owner))
    assert caught.value.kind == "not_found"


# --- the proposal from the template, with the check on ------------------------------------------------------------


def test_the_proposal_is_filled_in_on_a_copy_without_asking(owner_says, fernhill, org):
    from tools.pipeline import use_tool

    ctx = owner_says("Start with the Ortiz Bakery packaging one: Rosa wants it by Friday.")
    template = use_tool(ctx, "files.search", {"query": "proposal template"})["hits"][0]["id"]
    copy = use_tool(ctx, "files.copy", {"id": template, "name": "Ortiz Bakery: packaging redesign proposal",
                                        "folderId": gid("Ortiz Bakery")})
    filled = {
        "{{CLIENT}}": "Ortiz Bakery", "{{CONTACT}}": "Rosa Ortiz",
        "{{SCOPE}}": "New packaging for six bread and pastry lines.", "{{PRICE}}": "$6,200", "{{DATE}}": "Friday",
    }
    answers = [use_tool(ctx, "files.replace_text", {"id": copy["id"], "find": k, "replace": v})
               for k, v in filled.items()]
    final = use_tool(ctx, "files.read", {"id": copy["id"]})["text"]
    assert ([a.get("changed") for a in answers], "{{" in final, final.splitlines()[0]) == (
        [1, 1, 1, 1, 1], False, "# Proposal for Ortiz Bakery"
    )


def test_the_template_itself_is_not_rewritten_without_asking(owner_says, fernhill):
    from tools.pipeline import use_tool

    ctx = owner_says("Start with the Ortiz Bakery packaging one: Rosa wants it by Friday.")
    out = use_tool(ctx, "files.replace_text", {"id": gid("Proposal template.md"), "find": "{{CLIENT}}",
                                               "replace": "Ortiz Bakery"})
    assert (out, text_of_template()) == ({"not_done_yet": "Check with Sam first: it removes or rewrites something the "
                                                          "owner didn't point to. Ask in your reply, saying what you "
                                                          "would do. Once they say yes, do it again."}, TEMPLATE)


def text_of_template() -> str:
    row = LocalFile.objects.get(name="Proposal template.md")
    return storage.blob_read(row.blob, name=row.name).decode()


def test_each_step_of_the_proposal_is_on_home_with_undo(owner_says, fernhill, org):
    from tools.pipeline import use_tool

    ctx = owner_says("Start with the Ortiz Bakery packaging one.")
    copy = use_tool(ctx, "files.copy", {"id": gid("Proposal template.md"), "name": "Ortiz proposal"})
    use_tool(ctx, "files.replace_text", {"id": copy["id"], "find": "{{CLIENT}}", "replace": "Ortiz Bakery"})
    rows = Change.objects.filter(organization=org).order_by("at")
    assert [(c.tool, c.listing, c.undo is not None) for c in rows] == [
        ("files.copy", "home_undo", True), ("files.replace_text", "home_undo", True)
    ]


# --- doc events -------------------------------------------------------------------------------------------------


def test_the_first_look_at_an_account_tells_nothing(fernhill):
    assert docs_watch_one(fernhill) == []


def test_a_changed_doc_is_told_with_its_key_and_its_title_and_text(use, fernhill, org):
    docs_watch_one(fernhill)
    use("files.append_text", id=gid("notes.txt"), text="Bring the sample bags.")
    events = docs_watch_one(fernhill)
    assert [(e.kind, e.keys, e.text) for e in events] == [(
        "doc.changed", ["kind:doc.changed", f"doc:{gid('notes.txt')}"],
        "notes.txt\n\nCall Rosa about the bag sizes.\n\nBring the sample bags.",
    )]


def test_a_new_folder_is_not_told(use, fernhill):
    docs_watch_one(fernhill)
    use("files.folder", name="Juniper Dental")
    assert docs_watch_one(fernhill) == []


def test_a_picture_is_told_by_its_title(fernhill, drive):
    docs_watch_one(fernhill)
    provider_for(drive, "files").rename(LocalFile.objects.get(name="Logo.png").file_id, name="Logo 2026.png")
    assert [e.text for e in docs_watch_one(fernhill)] == ["Logo 2026.png"]


def test_the_payload_names_the_file(use, fernhill):
    docs_watch_one(fernhill)
    use("files.rename", id=gid("notes.txt"), name="Rosa notes")
    payload = docs_watch_one(fernhill)[0].payload
    assert {k: payload[k] for k in ("id", "title", "type", "source")} == {
        "id": gid("Rosa notes"), "title": "Rosa notes", "type": "doc", "source": "sam@fernhill.test"
    }


def test_a_second_look_at_the_same_changes_tells_nothing_again(use, fernhill):
    docs_watch_one(fernhill)
    use("files.rename", id=gid("notes.txt"), name="Rosa notes")
    docs_watch_one(fernhill)
    assert docs_watch_one(fernhill) == []


def test_the_watch_tells_the_changes_of_every_files_account(use, fernhill, org):
    from integrations.files.events import docs_watch

    other = connection_create_local(org=org, account="studio@fernhill.test", groups=["files"])
    docs_watch()
    use("files.rename", id=gid("notes.txt"), name="Rosa notes")
    provider_for(other, "files").create_doc(name="Studio plan", markdown="x", folder_id=None)
    assert docs_watch() == 2


def test_a_picture_over_5_mb_is_too_large_to_read(use, fernhill, drive):
    big = provider_for(drive, "files").upload(FileData("big.png", "image/png", PNG + b"\0" * (5 * 1024 * 1024)),
                                              name="big.png", folder_id=None).value
    assert use("files.read", id=big.id)["error"] == "too_large"


def test_the_worker_looks_for_changed_docs_every_five_minutes(db):
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("schedule_ticks", stdout=io.StringIO())
    assert Schedule.objects.get(func="integrations.files.events.docs_watch").minutes == 5


# --- the example workspace's files ----------------------------------------------------------------------------


@pytest.fixture
def example(org):
    from integrations.files.example import seed_files

    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["files"])
    seed_files(org, connection)
    return connection


def test_the_example_template_has_the_spec_id_and_its_placeholders(use, example):
    hit = use("files.search", query="proposal template")["hits"][0]
    body = use("files.read", id=hit["id"])["text"]
    assert (hit["id"].split(":")[1], [p for p in ("{{CLIENT}}", "{{CONTACT}}", "{{SCOPE}}", "{{PRICE}}", "{{DATE}}")
                                      if p in body]) == (
        "1Hk3TemplatePr0posalDoc9xQ", ["{{CLIENT}}", "{{CONTACT}}", "{{SCOPE}}", "{{PRICE}}", "{{DATE}}"]
    )


def test_the_example_timesheet_holds_octobers_hours(use, example):
    rows = use("files.sheet_rows", id=f"{example.account_key}:1TsTimesheet2026SheetX4", range="Log")["values"]
    totals = {}
    for date, client, hours, *_ in rows[1:]:
        if date.startswith("2026-10"):
            totals[client] = totals.get(client, 0) + float(hours)
    assert totals == {"Juniper Dental": 46.5, "Ortiz Bakery": 31.0, "Harbor Florists": 12.5}


def test_seeding_the_example_files_again_adds_nothing(org, example):
    from integrations.files.example import seed_files

    assert (seed_files(org, example), LocalFile.objects.filter(connection=example).count()) == ([], 7)


def test_save_over_asks_the_owner_first_when_they_did_not_ask_for_it(owner_says, fernhill, org):
    from tools.pipeline import use_tool

    checked_ctx = owner_says("What's in my timesheet?")
    use_tool(checked_ctx, "workspace.write", {"path": "n.txt", "content": "rewritten"})
    out = use_tool(checked_ctx, "files.save", {"workspace": "n.txt", "over": gid("notes.txt")})
    assert "not_done_yet" in out
    assert "bag sizes" in use_tool(checked_ctx, "files.read", {"id": gid("notes.txt")})["text"]
