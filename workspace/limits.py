"""A run's memory and processes, limited for the run as a whole: the kernel's cgroups where this machine has them,
a watcher from this process where it hasn't.

Per-process limits (prlimit's RLIMIT_DATA and RLIMIT_NPROC) alone let one run hold `processes x memory` bytes: six
900 MB processes took 4.6 GB of a machine's memory, enough for the kernel's OOM killer to take the web, the worker
or PostgreSQL instead. So each run gets a group of its own:

- cgroup v2 (the unified hierarchy), where this process's own cgroup lets a child use the memory and pids
  controllers (a delegated subtree): memory.max, memory.swap.max 0, pids.max; the peak from memory.peak.
- cgroup v1, where the memory and pids hierarchies are mounted and writable (root on most machines still mounting
  v1): memory.limit_in_bytes (and memsw, swap included, where the kernel accounts it), pids.max; the peak from
  memory.max_usage_in_bytes.

The run's group is made below this process's own cgroup in each hierarchy (so whatever bounds Roadstar bounds its
runs too), the run joins it before bwrap starts (the wrapper writes its own pid to cgroup.procs, so nothing the run
starts is ever outside it), and it is removed once the run is over. Over the limit the kernel's OOM killer takes a
process of the run, never one of the machine's.

Where neither is available (not root, no delegated v2 subtree), `Watcher` bounds the run from here: the supervisor
sums the resident memory of every process of the run (bwrap's tree, read from /proc) several times a second and
stops the whole run once it passes the limit, while prlimit keeps each process under the limit and the run to fewer
processes (WORKSPACE_FALLBACK_PROCESSES). That bound is looser (it sees memory as often as it looks, not on every
page), which is why the cgroups come first. `mode()` says which applies, for the README and the logs.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

MOUNTINFO = Path("/proc/self/mountinfo")
CGROUP_SELF = Path("/proc/self/cgroup")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class _Hierarchies:
    """Where this process's own cgroup is, per controller: `memory` and `pids` (v1 or v2), None when not usable."""

    memory: tuple[int, Path] | None
    pids: tuple[int, Path] | None


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, fstype, super options) of each cgroup mount."""
    found: list[tuple[str, str, str, set[str]]] = []
    try:
        lines = MOUNTINFO.read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if len(fields) < 5 or len(rfields) < 3 or rfields[0] not in ("cgroup", "cgroup2"):
            continue
        found.append((fields[3], fields[4], rfields[0], set(rfields[2].split(","))))
    return found


def _own_paths() -> tuple[str | None, dict[str, str]]:
    """This process's cgroup: the v2 path, and the v1 path of each v1 controller."""
    v2, v1 = None, {}
    try:
        lines = CGROUP_SELF.read_text().splitlines()
    except OSError:
        return None, {}
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and controllers == "":
            v2 = path
        else:
            for name in controllers.split(","):
                v1[name] = path
    return v2, v1


def _joined(point: str, root: str, own: str) -> Path:
    # The mount may show a part of the hierarchy (a cgroup namespace, a container): our path is relative to its root.
    rel = os.path.relpath(own, root) if own.startswith(root) else own.lstrip("/")
    return Path(point) / ("" if rel == "." else rel)


def _find() -> _Hierarchies:
    v2_own, v1_own = _own_paths()
    memory: tuple[int, Path] | None = None
    pids: tuple[int, Path] | None = None
    for root, point, kind, _options in _mounts():
        if kind == "cgroup2" and v2_own is not None:
            base = _joined(point, root, v2_own)
            try:
                available = set((base / "cgroup.controllers").read_text().split())
            except OSError:
                continue
            if "memory" in available and memory is None:
                memory = (2, base)
            if "pids" in available and pids is None:
                pids = (2, base)
    for root, point, kind, options in _mounts():
        if kind != "cgroup":
            continue
        if "memory" in options and memory is None and "memory" in v1_own:
            memory = (1, _joined(point, root, v1_own["memory"]))
        if "pids" in options and pids is None and "pids" in v1_own:
            pids = (1, _joined(point, root, v1_own["pids"]))
    return _Hierarchies(memory=memory, pids=pids)


class RunGroup:
    """One run's cgroup(s): made with the run's limits, joined by the run, read for its peak, removed after."""

    def __init__(self, *, memory_bytes: int, processes: int):
        self.dirs: list[tuple[str, int, Path]] = []  # (controller, version, folder)
        self.memory_bytes = memory_bytes
        self.processes = processes

    @property
    def procs_files(self) -> list[str]:
        """The files the run writes its own pid to, before it starts anything."""
        seen, files = set(), []
        for _, _, path in self.dirs:
            if path not in seen:
                seen.add(path)
                files.append(str(path / "cgroup.procs"))
        return files

    def limits_memory(self) -> bool:
        return any(name == "memory" for name, _, _ in self.dirs)

    def limits_processes(self) -> bool:
        return any(name == "pids" for name, _, _ in self.dirs)

    def peak_bytes(self) -> int | None:
        for name, version, path in self.dirs:
            if name != "memory":
                continue
            try:
                text = (path / ("memory.peak" if version == 2 else "memory.max_usage_in_bytes")).read_text()
                return int(text.split()[0])
            except (OSError, ValueError, IndexError):
                return None
        return None

    def oom_kills(self) -> int:
        """How many of the run's processes the kernel killed for passing the run's memory."""
        for name, version, path in self.dirs:
            if name != "memory":
                continue
            try:
                text = (path / ("memory.events" if version == 2 else "memory.oom_control")).read_text()
            except OSError:
                return 0
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        return 0

    def remove(self) -> None:
        """Gone once the run's processes are. The PID namespace's end takes them, which can take the kernel a moment
        after bwrap is reaped: a group still busy is left to a thread that removes it then, so no run waits."""
        left = [path for path in self._paths() if not _removed(path)]
        if left:
            threading.Thread(target=_remove_later, args=(left,), daemon=True, name="roadstar-cgroup-rm").start()

    def _paths(self) -> list[Path]:
        seen: list[Path] = []
        for _, _, path in reversed(self.dirs):
            if path not in seen:
                seen.append(path)
        return seen


def _removed(path: Path) -> bool:
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError as error:
        if error.errno != errno.EBUSY:
            logger.warning("A workspace run's cgroup %s couldn't be removed: %s", path, error)
            return True  # nothing more to try
        return False
    return True


def _remove_later(paths: list[Path]) -> None:
    deadline = time.monotonic() + 30
    while paths and time.monotonic() < deadline:
        time.sleep(0.05)
        paths = [path for path in paths if not _removed(path)]
    for path in paths:
        logger.warning("A workspace run's cgroup %s was still busy after 30 s; it is left in place.", path)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _make(base: Path, name: str) -> Path:
    path = base / name
    path.mkdir(mode=0o755)
    return path


def run_group(*, memory_bytes: int, processes: int) -> RunGroup | None:
    """A new cgroup for one run with its limits set, or None where this machine gives Roadstar none to use."""
    found = _find()
    group = RunGroup(memory_bytes=memory_bytes, processes=processes)
    name = f"roadstar-run-{os.getpid()}-{secrets.token_hex(4)}"
    made: dict[Path, Path] = {}
    for controller, where in (("memory", found.memory), ("pids", found.pids)):
        if where is None:
            continue
        version, base = where
        try:
            path = made.get(base) or _make(base, name)
            made[base] = path
            if version == 2:
                try:
                    available = set((path / "cgroup.controllers").read_text().split())
                except OSError:
                    available = set()
                if controller not in available:
                    _enable(base, controller)
                if controller == "memory":
                    _write(path / "memory.max", str(memory_bytes))
                    if (path / "memory.swap.max").exists():
                        _write(path / "memory.swap.max", "0")
                else:
                    _write(path / "pids.max", str(processes))
            elif controller == "memory":
                _write(path / "memory.limit_in_bytes", str(memory_bytes))
                if (path / "memory.memsw.limit_in_bytes").exists():
                    try:  # swap counted too, where the kernel accounts it; no swap means nothing to add
                        _write(path / "memory.memsw.limit_in_bytes", str(memory_bytes))
                    except OSError:
                        pass
            else:
                _write(path / "pids.max", str(processes))
        except OSError as error:
            logger.debug("No %s cgroup for workspace runs at %s: %s", controller, base, error)
            continue
        group.dirs.append((controller, version, made[base]))
    # A folder made but left without a controller (its limit refused) is no use: it goes.
    used = {path for _, _, path in group.dirs}
    for path in made.values():
        if path not in used:
            try:
                path.rmdir()
            except OSError:
                pass
    return group if group.dirs else None


def _enable(base: Path, controller: str) -> None:
    # v2: a child uses a controller only once its parent hands it down (EBUSY where the parent holds processes of
    # its own and isn't the root: then the child stays without it and this run falls back for that controller).
    _write(base / "cgroup.subtree_control", f"+{controller}")


def mode(*, memory_bytes: int = 64 * 1024 * 1024, processes: int = 16) -> str:
    """Which bound applies on this machine, in words: a real group is made and removed to find out."""
    group = run_group(memory_bytes=memory_bytes, processes=processes)
    if group is None:
        return "watcher"
    try:
        parts = sorted({f"{name} (cgroup v{version})" for name, version, _ in group.dirs})
        return ", ".join(parts)
    finally:
        group.remove()


# --- the fallback: a watcher -----------------------------------------------------------------------------------


def _parents() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        after = stat.rsplit(b")", 1)[-1].split()
        if len(after) > 2:
            children.setdefault(int(after[1]), []).append(int(entry))
    return children


def tree_bytes(root_pid: int) -> int:
    """The memory the processes under `root_pid` hold of their own (resident, less what they share with files)."""
    children = _parents()
    total, todo, seen = 0, list(children.get(root_pid, [])), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                fields = f.read().split()
            total += max(0, int(fields[1]) - int(fields[2])) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total


class Watcher:
    """Where no cgroup limits the run's memory: its processes' memory summed from here, the run stopped past it."""

    def __init__(self, *, root_pid: int, memory_bytes: int):
        self.root_pid = root_pid
        self.memory_bytes = memory_bytes
        self.peak = 0

    def over(self) -> bool:
        used = tree_bytes(self.root_pid)
        self.peak = max(self.peak, used)
        return used > self.memory_bytes
