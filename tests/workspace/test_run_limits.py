"""A run's limits are the run's as a whole: its memory (all its processes together), its processes, and the folder's
cap while it runs. Each path this machine allows is tested: the kernel's cgroups (v1 here, v2 where delegated) and
the watcher that bounds a run where there are none."""

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.workspace.conftest import needs_sandbox
from workspace import folders, limits, sandbox

pytestmark = [needs_sandbox, pytest.mark.django_db]

MiB = 1024 * 1024
# Four children, each holding 400 MiB of its own (written, so the pages are really there) for 3 s, then HELD.
FOUR_CHILDREN = (
    "for i in 1 2 3 4; do python -c \"import time; b = b'x' * (400 << 20); time.sleep(3); print('HE' + 'LD')\" & done; "
    "wait; echo finished"
)


@pytest.fixture(autouse=True)
def run_limits(settings):
    settings.WORKSPACE_WALL_SECONDS = 30
    settings.WORKSPACE_MEMORY_BYTES = 1024 * MiB
    settings.WORKSPACE_PROCESSES = 64


def _has_cgroups() -> bool:
    group = limits.run_group(memory_bytes=64 * MiB, processes=16)
    if group is None:
        return False
    group.remove()
    return group.limits_memory()


def test_four_children_of_400_mib_cant_all_hold_it_under_a_1_gib_cgroup(bash):
    if not _has_cgroups():
        pytest.skip(f"no cgroup for runs on this machine ({limits.mode()}); the watcher's test covers it")
    result = bash(FOUR_CHILDREN)
    assert result["output"].count("HELD") < 4, result
    assert "finished" in result["output"]  # the run went on: the kernel stopped a child, not the run
    assert "passed 1 GiB of memory together" in result["stopped"]
    # The run's peak, as the kernel counted it: every process, and never past the cap.
    assert 400 * MiB < result["usage"]["peakBytes"] <= 1024 * MiB


def test_the_run_gets_its_own_cgroup_and_it_is_gone_after(monkeypatch):
    if not _has_cgroups():
        pytest.skip(f"no cgroup for runs on this machine ({limits.mode()})")
    made = []
    real = limits.run_group

    def spy(**kwargs):
        group = real(**kwargs)
        made.append(group)
        return group

    monkeypatch.setattr(limits, "run_group", spy)
    folder = Path(os.environ.get("TMPDIR", "/tmp"))
    result = sandbox.run(folder=folder / f"rs-cg-{os.getpid()}", shared=folder / f"rs-cg-{os.getpid()}-s",
                         command="python -c \"b = b'x' * (50 << 20)\"")
    try:
        [group] = made
        assert result.bounded_by == "cgroup"
        assert group.dirs[0][2].name.startswith("roadstar-run-")
        assert result.peak_bytes >= 50 * 1024 * 1024  # the kernel's count of the group: the command was in it
        deadline = time.monotonic() + 30  # removed at once, or by a thread as soon as the kernel lets go
        while any(path.exists() for _, _, path in group.dirs) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(not path.exists() for _, _, path in group.dirs)
    finally:
        shutil.rmtree(folder / f"rs-cg-{os.getpid()}", ignore_errors=True)
        shutil.rmtree(folder / f"rs-cg-{os.getpid()}-s", ignore_errors=True)


def test_without_cgroups_the_watcher_bounds_the_whole_run(bash, monkeypatch):
    monkeypatch.setattr(limits, "run_group", lambda **kwargs: None)
    result = bash(FOUR_CHILDREN)
    assert result["output"].count("HELD") < 4, result
    assert "held more than 1 GiB of memory together" in result["stopped"]
    assert result["exitCode"] is None


def test_without_cgroups_a_run_has_fewer_processes(bash, monkeypatch, settings):
    monkeypatch.setattr(limits, "run_group", lambda **kwargs: None)
    settings.WORKSPACE_FALLBACK_PROCESSES = 8
    result = bash("prlimit --nproc --noheadings --output SOFT")
    assert result.get("output", "").strip() == "8", result


def test_a_write_past_the_folder_cap_fails_in_the_program_and_rm_works_after(bash, ctx, settings):
    settings.WORKSPACE_FOLDER_BYTES = 1 * MiB
    result = bash("python -c \"open('big.bin', 'wb').write(b'x' * 2000000)\"; echo code=$?; ls -l big.bin")
    assert "File size limit exceeded" in result["output"] or "File too large" in result["output"], result
    assert "code=0" not in result["output"]
    folder = folders.place_for(org=ctx.org, actor=ctx.actor).folder
    assert (folder / "big.bin").stat().st_size <= 1 * MiB
    cleaned = bash("rm big.bin && echo removed")
    assert cleaned["exitCode"] == 0 and "removed" in cleaned["output"]
    assert not (folder / "big.bin").exists()


def test_many_files_past_the_folder_cap_stop_the_run(bash, ctx, settings):
    settings.WORKSPACE_FOLDER_BYTES = 1 * MiB
    result = bash("for i in $(seq 1 40); do head -c 500000 /dev/zero > f$i.bin; sleep 0.2; done; echo wrote all")
    assert "wrote all" not in result["output"]
    assert "passed the workspace's 1 MiB" in result["stopped"]
    assert bash("rm f*.bin && echo removed")["exitCode"] == 0
    assert bash("echo fits > small.txt && cat small.txt")["output"].strip() == "fits"


def test_a_folder_already_over_its_cap_can_always_be_cleaned(bash, ctx, settings, use):
    settings.WORKSPACE_FOLDER_BYTES = 1 * MiB
    use("workspace.write", path="keep.txt", content="kept")
    folder = folders.place_for(org=ctx.org, actor=ctx.actor).folder
    (folder / "huge.bin").write_bytes(b"x" * (3 * MiB))  # left over from before the cap was lowered, say
    full = bash("python -c \"f = open('more.txt', 'w'); f.write('more'); f.close()\"")
    assert full["exitCode"] != 0 and "at or over the workspace's" in full["output"]
    assert not (folder / "more.txt").exists() or (folder / "more.txt").read_text() == ""
    result = bash("rm huge.bin && echo removed")
    assert result["exitCode"] == 0, result
    assert "removed" in result["output"]
    assert not (folder / "huge.bin").exists()
    assert bash("echo more > more.txt && cat more.txt keep.txt")["output"].split() == ["more", "kept"]


def test_no_descriptor_of_the_machine_reaches_the_run(bash):
    # A folder's descriptor inside the sandbox would lead out of it (openat(fd, "..")): only stdin, out and err,
    # and the descriptor ls opens to list them.
    result = bash("ls /proc/self/fd")
    assert result["output"].split() == ["0", "1", "2", "3"], result
