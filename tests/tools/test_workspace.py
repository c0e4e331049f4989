"""The workspace group through use_tool: the spec's declarations and limits, read/write/edit/open on the agent's
folder, paths refused with bad_input naming them, and `unsupported` (never an unsandboxed run) where the machine
can't sandbox."""

import importlib
import os

import pytest

from core.actors import Actor
from core.context import ToolContext
from integrations.local.models_files import LocalFile
from integrations.providers.registry import provider_for
from integrations.services import connection_create_local
from tests.factories import AgentFactory
from tests.integrations.files_samples import fernhill_folder
from tests.spec import spec_page
from tests.workspace.conftest import needs_sandbox
from tools import registry
from workspace import folders, sandbox


def bad(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


@pytest.fixture
def folder(ctx):
    return folders.place_for(org=ctx.org, actor=ctx.actor).folder


# --- the spec's declarations and limits ------------------------------------------------------------------------


def test_the_spec_limits_are_the_settings_defaults():
    base = importlib.import_module("roadstar.settings.base")
    assert (base.WORKSPACE_WALL_SECONDS, base.WORKSPACE_TOOL_CALLS, sandbox.OUTPUT_CHARS) == (120, 300, 20_000)


def test_the_how_to_names_the_limits_it_enforces():
    how_to = registry.GROUPS["workspace"].how_to
    assert "cut to 20,000 characters" in how_to and "A run stops after 120 s or 300 tool calls" in how_to
    assert "/work/inbox" in spec_page("tools/workspace.md") and folders.INSIDE.as_posix() == "/work"


@pytest.mark.parametrize("tool, inp, field", [
    ("workspace.bash", {"command": ""}, "command"),
    ("workspace.bash", {"command": "x" * 20_001}, "command"),
    ("workspace.read", {"path": ""}, "path"),
    ("workspace.read", {"path": "a" * 501}, "path"),
    ("workspace.read", {"path": "a", "offset": 0}, "offset"),
    ("workspace.read", {"path": "a", "limit": 2001}, "limit"),
    ("workspace.read", {"path": "a", "limit": 0}, "limit"),
    ("workspace.write", {"path": "a", "content": "x" * 2_000_001}, "content"),
    ("workspace.edit", {"path": "a", "oldText": "", "newText": "b"}, "oldText"),
    ("workspace.edit", {"path": "a", "oldText": "x" * 200_001, "newText": "b"}, "oldText"),
    ("workspace.edit", {"path": "a", "oldText": "a", "newText": "x" * 200_001}, "newText"),
    ("workspace.open", {"files": ["ab"]}, "files[0]"),
    ("workspace.open", {"files": ["abc"] * 21}, "files"),
    ("workspace.open", {"attachments": [{"attachment": "ab"}]}, "attachments[0].attachment"),
    ("workspace.open", {"attachments": [{"attachment": "abc", "email": "ab"}]}, "attachments[0].email"),
    ("workspace.open", {"attachments": [{"attachment": "abc"}] * 21}, "attachments"),
])
def test_limits_are_bad_input_naming_the_field(use, tool, inp, field):
    assert bad(use(tool, **inp), field)


def test_a_machine_that_cant_sandbox_answers_unsupported_and_runs_nothing(use, monkeypatch, folder):
    monkeypatch.setattr(sandbox, "_availability", "this machine doesn't allow the namespaces bubblewrap needs")
    ran = []
    monkeypatch.setattr(sandbox.subprocess, "Popen", lambda *a, **k: ran.append(a))
    out = use("workspace.bash", command="touch made")
    assert out["error"] == "unsupported" and "namespaces" in out["message"]
    assert ran == [] and not (folder / "made").exists()


def test_the_probe_says_so_plainly_when_bwrap_is_missing(monkeypatch, caplog):
    monkeypatch.setattr(sandbox, "BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(sandbox, "_availability", False)
    sandbox.probe_at_start()
    assert "bubblewrap" in caplog.text and "unsupported" in caplog.text
    monkeypatch.setattr(sandbox, "_availability", False)


# --- write, read, edit -----------------------------------------------------------------------------------------


def test_write_makes_its_folders_and_replaces_a_file(use, folder):
    assert use("workspace.write", path="reports/2026/october.py", content="print(1)\n") == {
        "path": "/work/reports/2026/october.py", "size": 9}
    assert use("workspace.write", path="/work/reports/2026/october.py", content="print(2)\n")["size"] == 9
    assert (folder / "reports/2026/october.py").read_text() == "print(2)\n"


def test_read_pages_2000_lines_at_a_time(use):
    use("workspace.write", path="long.txt", content="\n".join(f"line {i}" for i in range(1, 4502)))
    first = use("workspace.read", path="long.txt")
    assert (first["totalLines"], first["nextOffset"], first["text"].splitlines()[0]) == (4501, 2001, "line 1")
    assert len(first["text"].splitlines()) == 2000
    last = use("workspace.read", path="long.txt", offset=4001)
    assert (last["nextOffset"], last["text"].splitlines()[-1]) == (None, "line 4501")
    assert use("workspace.read", path="long.txt", offset=3, limit=2)["text"] == "line 3\nline 4"


def test_read_of_a_binary_file_gives_its_size(use, folder):
    (folder / "inbox").mkdir(parents=True, exist_ok=True)
    (folder / "inbox" / "book.xlsx").write_bytes(b"PK\x03\x04\x00\x00binary")
    assert use("workspace.read", path="/work/inbox/book.xlsx") == {
        "path": "/work/inbox/book.xlsx", "binary": True, "size": 12}


def test_edit_replaces_text_that_appears_once(use):
    use("workspace.write", path="a.py", content="total = 1\nprint(total)\n")
    assert use("workspace.edit", path="a.py", oldText="total = 1", newText="total = 2")["path"] == "/work/a.py"
    assert use("workspace.read", path="a.py")["text"] == "total = 2\nprint(total)"


def test_edit_says_how_many_times_the_text_was_found(use):
    use("workspace.write", path="a.py", content="x\nx\nx\n")
    out = use("workspace.edit", path="a.py", oldText="x", newText="y")
    assert bad(out, "oldText") and "found 3 times" in out["message"]
    assert bad(use("workspace.edit", path="a.py", oldText="zzz", newText="y"), "oldText")


def test_shared_is_seen_by_every_agent_of_the_workspace(use, org):
    use("workspace.write", path="/work/shared/for-bookkeeper.md", content="the totals")
    bookkeeper = ToolContext(org=org, actor=Actor.for_agent(AgentFactory(organization=org, name="Bookkeeper")))
    assert use("workspace.read", _ctx=bookkeeper, path="shared/for-bookkeeper.md")["text"] == "the totals"
    assert use("workspace.read", _ctx=bookkeeper, path="for-bookkeeper.md")["error"] == "not_found"


@pytest.mark.parametrize("path", ["../x.txt", "a/../../x.txt", "/etc/passwd", "/work/../etc/passwd", "/tmp/x",
                                  "/workx/y"])
@pytest.mark.parametrize("tool", ["workspace.read", "workspace.write", "workspace.edit"])
def test_paths_outside_the_folder_are_bad_input_naming_the_path(use, tool, path):
    inp = {"path": path, "content": "x"} if tool == "workspace.write" else {"path": path}
    if tool == "workspace.edit":
        inp |= {"oldText": "a", "newText": "b"}
    out = use(tool, **inp)
    assert bad(out, "path") and path in out["message"]


def test_symlinks_that_lead_out_are_refused(use, folder, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("server secret")
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(secret, folder / "link.txt")
    os.symlink(tmp_path, folder / "linkdir")
    assert bad(use("workspace.read", path="link.txt"), "path")
    assert bad(use("workspace.read", path="linkdir/secret.txt"), "path")
    assert bad(use("workspace.write", path="link.txt", content="overwritten"), "path")
    assert bad(use("workspace.write", path="linkdir/new.txt", content="x"), "path")
    assert bad(use("workspace.edit", path="link.txt", oldText="server", newText="x"), "path")
    assert secret.read_text() == "server secret" and not (tmp_path / "new.txt").exists()


@needs_sandbox
def test_a_link_made_by_a_run_is_refused_too(use, folder):
    assert use("workspace.bash", command="ln -s /etc/passwd p; ln -s / root")["exitCode"] == 0
    assert bad(use("workspace.read", path="p"), "path")
    assert bad(use("workspace.read", path="root/etc/passwd"), "path")


# --- bash ------------------------------------------------------------------------------------------------------


@needs_sandbox
def test_bash_runs_in_the_agents_folder_and_measures_the_run(use, folder):
    use("workspace.write", path="report.py", content="open('out.txt', 'w').write('x' * 5000)\nprint('done')\n")
    out = use("workspace.bash", command="python report.py && pwd")
    assert (out["exitCode"], out["output"], out["calls"]) == (0, "done\n/work\n", {})
    assert "stopped" not in out
    usage = out["usage"]
    assert set(usage) == {"cpuMs", "peakBytes", "tookMs", "bytesWritten"}
    assert usage["bytesWritten"] == 5000 and usage["peakBytes"] > 1_000_000 and usage["tookMs"] == out["tookMs"]
    assert (folder / "out.txt").stat().st_size == 5000


@needs_sandbox
def test_bash_gives_the_exit_code(use):
    out = use("workspace.bash", command="echo oops >&2; exit 7")
    assert (out["exitCode"], out["output"], "stopped" in out) == (7, "oops\n", False)


@needs_sandbox
def test_output_is_cut_to_20000_characters_keeping_both_ends(use):
    out = use("workspace.bash", command="python -c \"print('first'); print('x' * 100000); print('last')\"")
    assert len(out["output"]) == 20_000
    assert out["output"].startswith("first") and out["output"].rstrip().endswith("last")
    assert "cut" in out["output"]


@needs_sandbox
def test_the_libraries_the_spec_names_are_there(use):
    out = use("workspace.bash", command="python -c \"import pandas, numpy, openpyxl, xlsxwriter, pptx, docx, "
                                        "pypdf, matplotlib; print('ok')\" && node -e \"console.log('node ok')\"")
    assert out["output"] == "ok\nnode ok\n", out


# --- open ------------------------------------------------------------------------------------------------------


@pytest.fixture
def drive(org, tmp_path):
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["files"])
    provider_for(connection, "files").import_path(fernhill_folder(tmp_path / "src"))
    return connection


def gid(name: str) -> str:
    row = LocalFile.objects.select_related("connection").get(name=name, trashed=False)
    return f"{row.connection.account_key}:{row.file_id}"


def test_open_copies_drive_files_into_the_inbox(use, drive, folder):
    out = use("workspace.open", files=[gid("Timesheet 2026.xlsx"), gid("notes.txt")])
    assert out == {"opened": [
        {"path": "/work/inbox/Timesheet 2026.xlsx", "from": gid("Timesheet 2026.xlsx")},
        {"path": "/work/inbox/notes.txt", "from": gid("notes.txt")},
    ]}
    assert (folder / "inbox" / "Timesheet 2026.xlsx").read_bytes()[:2] == b"PK"
    assert use("workspace.read", path="/work/inbox/notes.txt")["text"] == "Call Rosa about the bag sizes."


def test_open_brings_a_mail_attachment(use, org):
    from tests.tools.test_mail import store, tid

    box = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    message = store(box, attachments=[("quote.pdf", "application/pdf", b"%PDF-1.4 quote")])
    key = f"{box.account_key}:{message.attachments.get().key}"
    out = use("workspace.open", attachments=[{"email": tid(box, message), "attachment": key}])
    assert out.get("opened") == [{"path": "/work/inbox/quote.pdf"}], out


def test_open_of_another_workspaces_file_is_not_found(use, other_org, tmp_path):
    theirs = connection_create_local(org=other_org, account="alex@far.test", groups=["files"])
    provider_for(theirs, "files").import_path(fernhill_folder(tmp_path / "far"))
    assert use("workspace.open", files=[gid("notes.txt")])["error"] == "not_found"


def test_open_with_nothing_to_open_is_bad_input(use):
    assert bad(use("workspace.open"), "files")


def test_the_node_module_exports_every_group_roadstar_has():
    index = (sandbox.CLIENTS / "node" / "roadstar" / "index.js").read_text()
    for group in registry.GROUPS:
        assert f"export const {group} = core.group(\"{group}\");" in index, group


@needs_sandbox
def test_the_office_round_trip_gives_the_drive_file_a_new_version(use, drive, org):
    opened = use("workspace.open", files=[gid("Timesheet 2026.xlsx")])["opened"][0]
    use("workspace.write", path="fix.py", content=(
        "import openpyxl\nbook = openpyxl.load_workbook('/work/inbox/Timesheet 2026.xlsx')\n"
        "book['Log'].append(['2026-10-31', 'Harbor Florists', 2])\nbook.save('/work/inbox/Timesheet 2026.xlsx')\n"))
    assert use("workspace.bash", command="python fix.py")["exitCode"] == 0
    before = LocalFile.objects.get(name="Timesheet 2026.xlsx").blob
    assert use("files.save", workspace=opened["path"], over=opened["from"])["id"] == opened["from"]
    row = LocalFile.objects.get(name="Timesheet 2026.xlsx")
    assert row.blob != before
    log = dict(provider_for(row.connection, "files").tabs(row.file_id))["Log"]
    assert log[-1] == ["2026-10-31", "Harbor Florists", "2"]
