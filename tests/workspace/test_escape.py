"""Escape tests: each tries to get out of the sandbox and fails the test if it does. Every run ends with a clear
result to the agent and nothing outside touched. Limits are set small here (a 3 s wall clock, 64 MB files), so no
test waits long; tests/workspace/test_limits.py pins the spec's real values."""

import os
import socket
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from core.actors import Actor
from core.context import ToolContext
from tests.factories import AgentFactory
from tests.workspace.conftest import needs_sandbox
from workspace import folders

pytestmark = [needs_sandbox, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def small_limits(settings):
    settings.WORKSPACE_WALL_SECONDS = 3
    settings.WORKSPACE_FILE_BYTES = 8 * 1024 * 1024
    settings.WORKSPACE_MEMORY_BYTES = 512 * 1024 * 1024
    settings.WORKSPACE_PROCESSES = 64


def test_etc_shadow_is_not_there(bash):
    assert Path("/etc/shadow").exists()
    result = bash("cat /etc/shadow")
    assert result["exitCode"] != 0
    assert "root:" not in result["output"]
    assert "No such file" in result["output"]
    listed = bash("ls /etc")["output"].split()
    assert "shadow" not in listed and "passwd" in listed


def test_the_projects_var_and_database_are_not_there(bash):
    project = Path(django_settings.BASE_DIR)
    database = Path(django_settings.SQLITE_PATH)
    result = bash(f"ls {project}/var; cat {database} | head -c 100; ls {project}; ls /root /home")
    assert result["exitCode"] != 0
    assert "SQLite format" not in result["output"]
    assert "manage.py" not in result["output"]
    assert result["output"].count("No such file") >= 3


def test_another_agents_folder_is_not_there(org, ctx, bash, use):
    other = AgentFactory(organization=org, name="Bookkeeper")
    other_ctx = ToolContext(org=org, actor=Actor.for_agent(other), conversation_id="thread-9")
    use("workspace.write", _ctx=other_ctx, path="secret.txt", content="the other agent's secret")
    other_folder = folders.place_for(org=org, actor=other_ctx.actor).folder
    assert (other_folder / "secret.txt").is_file()
    result = bash(f"cat {other_folder}/secret.txt; ls /work; ls /work/..; grep -r secret / 2>/dev/null | head")
    assert "the other agent's secret" not in result["output"]
    # Through its own tools too: the other agent's file is not in this agent's folder.
    assert use("workspace.read", path="secret.txt")["error"] == "not_found"


def test_another_workspace_never_sees_this_ones_shared_folder(ctx, use, other_org):
    use("workspace.write", path="/work/shared/plan.md", content="ours")
    stranger = AgentFactory(organization=other_org, name="Stranger")
    theirs = ToolContext(org=other_org, actor=Actor.for_agent(stranger))
    assert use("workspace.read", _ctx=theirs, path="/work/shared/plan.md")["error"] == "not_found"
    result = use("workspace.bash", _ctx=theirs, command="cat /work/shared/plan.md")
    assert "ours" not in result["output"] and result["exitCode"] != 0


def test_proc_1_environ_is_not_the_servers(bash, monkeypatch):
    monkeypatch.setenv("ROADSTAR_ESCAPE_MARKER", "leaked-server-environment")
    result = bash("cat /proc/1/environ; cat /proc/*/environ; env")
    assert "leaked-server-environment" not in result["output"]
    assert "SECRET_KEY" not in result["output"] and "DATABASE_URL" not in result["output"]


def test_no_socket_reaches_127_0_0_1(bash, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    reached = threading.Event()

    def accept():
        listener.settimeout(8)
        try:
            listener.accept()
            reached.set()
        except OSError:
            pass

    waiter = threading.Thread(target=accept)
    waiter.start()
    result = bash(f"python -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); "
                  "print('CONNECTED')\"")
    listener.close()
    waiter.join()
    assert not reached.is_set()
    assert "CONNECTED" not in result["output"]
    assert result["exitCode"] != 0


def test_no_socket_reaches_a_public_address(bash):
    # No packet leaves: the sandbox's network namespace has no route at all, so this fails at once, offline or not.
    result = bash("python -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2); "
                  "print('CONNECTED')\"; python -c \"import socket; print(socket.if_nameindex())\"")
    assert "CONNECTED" not in result["output"]
    assert "Network is unreachable" in result["output"]
    assert "eth" not in result["output"]


def test_writing_outside_the_folder_is_refused(bash, tmp_path, ctx):
    outside = tmp_path / "outside.txt"
    result = bash(f"echo x > {outside}; echo x > /usr/evil; echo x > /etc/evil; touch /evil; "
                  "mkdir -p /opt/roadstar/venv/evil; echo x > /node_modules/roadstar/index.js")
    assert not outside.exists()
    assert not Path("/usr/evil").exists() and not Path("/etc/evil").exists() and not Path("/evil").exists()
    assert result["exitCode"] != 0
    node = Path(__file__).resolve().parents[2] / "workspace" / "clients" / "node" / "roadstar" / "index.js"
    assert "export const mail" in node.read_text()


def test_a_fork_bomb_ends_and_leaves_nothing(bash):
    result = bash("rsbomb() { rsbomb | rsbomb & }; rsbomb; sleep 2; echo survived")
    assert "Resource temporarily unavailable" in result["output"]
    assert result["exitCode"] is not None or result["stopped"]
    _nothing_left_running("rsbomb")


def test_yes_filling_the_disk_stops_at_the_file_limit(bash, ctx):
    result = bash("yes > big.txt")
    assert result["exitCode"] != 0
    assert "file size limit" in result["stopped"]
    folder = folders.place_for(org=ctx.org, actor=ctx.actor).folder
    assert (folder / "big.txt").stat().st_size <= 8 * 1024 * 1024


def test_the_private_tmp_is_small_and_gone_after(bash, settings):
    settings.WORKSPACE_TMP_BYTES = 4 * 1024 * 1024
    result = bash("head -c 6000000 /dev/zero > /tmp/fill; echo code=$?")
    assert "No space left" in result["output"]
    assert "ls: cannot access" in bash("ls /tmp/fill")["output"]


def test_a_process_left_running_is_killed_with_the_run(bash):
    result = bash("setsid sleep 4321 > /dev/null 2>&1 & nohup sleep 4321 > /dev/null 2>&1 & echo left")
    assert result["exitCode"] == 0 and "left" in result["output"]
    _nothing_left_running("sleep 4321")


def test_a_200_mb_allocation_is_refused(bash, settings):
    settings.WORKSPACE_MEMORY_BYTES = 128 * 1024 * 1024
    result = bash("python -c \"b = bytearray(200 * 1024 * 1024); print('ALLOCATED')\"")
    assert "ALLOCATED" not in result["output"]
    assert "MemoryError" in result["output"]
    assert result["exitCode"] == 1


def test_node_runs_under_the_memory_limit(bash):
    # RLIMIT_DATA, not RLIMIT_AS: Node reserves far more address space than it uses and must still start.
    result = bash("node -e \"console.log('node ' + (1 + 1))\"")
    assert result["output"].strip() == "node 2", result


def test_sleeping_past_the_wall_clock_is_stopped(bash):
    result = bash("echo before; sleep 130; echo after")
    assert result["exitCode"] is None
    assert result["stopped"].startswith("Stopped after 3 s")
    assert "before" in result["output"] and "after" not in result["output"]
    _nothing_left_running("sleep 130")


def _running(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(cmdline)
    return found


def _nothing_left_running(marker: str) -> None:
    # The kernel ends a PID namespace's processes as its first one dies; a fork bomb's thousands take a moment.
    deadline = time.monotonic() + 30
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(marker) == []


def test_a_pipe_whose_reader_is_gone_ends_as_in_any_shell(bash):
    # SIGPIPE as usual (Python, which runs the measuring shim, ignores it; the command must not inherit that).
    result = bash("yes | head -n 2")
    assert (result["exitCode"], result["output"]) == (0, "y\ny\n")


def test_a_link_put_where_the_inbox_was_is_never_followed_from_outside(bash, ctx, use, tmp_path):
    host_file = tmp_path / "host-owned.txt"
    host_file.write_text("the server's")
    before, folder_before = os.stat(host_file), os.stat(tmp_path)
    result = bash(f"rm -rf inbox shared; ln -s {host_file} inbox; ln -s {tmp_path} shared; ls -l")
    assert result["exitCode"] == 0, result
    # The next run, and the tools that make the folders, put folders back instead of following the links.
    assert bash("ls -ld inbox shared")["exitCode"] == 0
    use("workspace.write", path="/work/inbox/x.txt", content="x")
    after = os.stat(host_file)
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid, before.st_mode)
    assert os.stat(tmp_path).st_uid == folder_before.st_uid
    assert host_file.read_text() == "the server's" and not (tmp_path / "x.txt").exists()
    folder = folders.place_for(org=ctx.org, actor=ctx.actor).folder
    assert (folder / "inbox").is_dir() and not (folder / "inbox").is_symlink()
