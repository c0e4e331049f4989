"""The agents' computer: one command at a time in Debian's bubblewrap, with limits, measured.

A run sees only what it is given: /usr read-only (Debian's Python and Node), the workspace's own Python venv
read-only, the agent's folder at /work (writable, kept between runs), the workspace's shared folder at
/work/shared (writable), a private /tmp of its own (a small tmpfs, gone after the run), and this run's socket for
tools from code. No network (its own empty network namespace), its own PID, IPC and UTS namespaces, every
capability dropped, a clean environment, its own session. Limits come from `prlimit` (RLIMIT_DATA, not RLIMIT_AS,
which kills Node; RLIMIT_FSIZE; RLIMIT_NPROC against fork bombs; no core files) and from this process: the wall
clock and the tool-call count stop the run by killing bwrap's process group, and with it bwrap's PID namespace, so
nothing the run started outlives it.

The run as a whole has limits too (issue 31): its memory and processes by a cgroup of its own, or a watcher here
where the machine gives none (limits.py); the folder's cap during the run by RLIMIT_FSIZE set to the room left
(inside the sandbox, by the measuring shim) and a look at the folders twice a second. Run as root, the run is made
as the workspace's own user, and a small wrapper binds what it is given into the run's private folder first (in a
mount namespace of its own), so the project may live under a folder that user can't pass through.

When bwrap is missing or the machine refuses the namespaces it needs, `availability()` says so in words and the
tools answer `unsupported`: there is no unsandboxed fallback.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import selectors
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from django.conf import settings

from core.errors import ToolError
from workspace import limits as run_limits

logger = logging.getLogger(__name__)

BWRAP = "/usr/bin/bwrap"
PRLIMIT = "/usr/bin/prlimit"
SETPRIV = "/usr/bin/setpriv"
UNSHARE = "/usr/bin/unshare"
SH = "/bin/sh"
OUTPUT_CHARS = 20_000  # what reaches the agent of a run's output (spec: "cut to 20,000 characters")
CLIENTS = Path(__file__).resolve().parent / "clients"  # the `roadstar` modules for Python and Node
INSIDE_VENV = "/opt/roadstar/venv"
INSIDE_PYTHONPATH = "/opt/roadstar/python"
INSIDE_SOCKET = "/run/roadstar/tools.sock"
INSIDE_HOME = "/work"
SANDBOX_UID = 1000
# Read-only bits of /etc that programs expect (the alternatives behind /usr/bin's links, fonts for matplotlib,
# the linker's cache, the time zone); none holds a secret. Passwords and the rest of /etc never enter.
ETC_FILES = ("/etc/alternatives", "/etc/fonts", "/etc/ld.so.cache", "/etc/localtime", "/etc/mime.types")
PASSWD = "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nagent:x:1000:1000:agent:/work:/bin/bash\n"
GROUP = "root:x:0:\nagent:x:1000:\n"
_LINE_BYTES = 4_000_000  # a tool call from code: its JSON line (a workspace write's 2,000,000 characters fit)


@dataclass
class Limits:
    wall_seconds: float
    tool_calls: int
    memory_bytes: int
    file_bytes: int
    processes: int
    tmp_bytes: int
    fallback_processes: int = 32
    folder_bytes: int | None = None  # what the folder and shared may hold together; None: no cap

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(
            wall_seconds=float(settings.WORKSPACE_WALL_SECONDS),
            tool_calls=int(settings.WORKSPACE_TOOL_CALLS),
            memory_bytes=int(settings.WORKSPACE_MEMORY_BYTES),
            file_bytes=int(settings.WORKSPACE_FILE_BYTES),
            processes=int(settings.WORKSPACE_PROCESSES),
            tmp_bytes=int(settings.WORKSPACE_TMP_BYTES),
            fallback_processes=int(settings.WORKSPACE_FALLBACK_PROCESSES),
            folder_bytes=int(settings.WORKSPACE_FOLDER_BYTES),
        )


@dataclass
class RunResult:
    output: str
    exit_code: int | None
    stopped: str | None
    took_ms: int
    cpu_ms: int
    peak_bytes: int
    bytes_written: int
    calls: dict = field(default_factory=dict)
    bounded_by: str = ""  # what held the run's memory: "cgroup" or "watcher"

    def usage(self) -> dict:
        return {"cpuMs": self.cpu_ms, "peakBytes": self.peak_bytes, "tookMs": self.took_ms,
                "bytesWritten": self.bytes_written}


# --- can this machine sandbox? ---------------------------------------------------------------------------------

_availability: str | None | Literal[False] = False  # False: not probed yet; None: available; text: why not


def _probe() -> str | None:
    if not Path(BWRAP).is_file():
        return ("the workspace needs Debian's bubblewrap (/usr/bin/bwrap), which isn't installed here; "
                "`make run` installs it (scripts/ensure-bubblewrap)")
    if not Path(PRLIMIT).is_file() or not Path(SETPRIV).is_file():
        return "the workspace needs prlimit and setpriv (Debian's util-linux), which aren't installed here"
    # As the runs will be made: as root, as another user (whose user namespaces the machine must allow).
    as_user = _as_user(int(settings.WORKSPACE_UID_BASE) if os.geteuid() == 0 else None)
    try:
        done = subprocess.run(
            [*as_user, BWRAP, *_namespace_args(), "--ro-bind", "/usr", "/usr", *_usr_links(), "--",
             "/usr/bin/true"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30, env={}, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap couldn't start ({error})"
    if done.returncode != 0:
        said = done.stdout.decode("utf-8", "replace").strip()[:300]
        return f"this machine doesn't allow the namespaces bubblewrap needs (bwrap said: {said or done.returncode})"
    return None


_failed_at: float | None = None  # when a run last couldn't start (its words are in _availability)
RETRY_AFTER_SECONDS = 300.0


def availability() -> str | None:
    """None when runs can be sandboxed here; else why not, in words. A run that couldn't start is remembered, and
    said the same way, for RETRY_AFTER_SECONDS: then the next run tries again (a folder moved back, a venv
    reinstalled)."""
    global _availability, _failed_at
    if _failed_at is not None and time.monotonic() - _failed_at > RETRY_AFTER_SECONDS:
        _availability, _failed_at = False, None
    if _availability is False:
        _availability = _probe()
    return _availability


def probe_at_start() -> None:
    why = availability()
    if why is not None:
        logger.error("The workspace can't run on this machine: %s. The workspace tools answer unsupported "
                     "until it can.", why)
        return
    logger.info("The workspace's runs are bounded by: %s.", run_limits.mode())


def require_available() -> None:
    why = availability()
    if why is not None:
        raise ToolError("unsupported", f"The workspace can't run on this Roadstar's machine: {why}. Tell the "
                                       "owner; nothing was run.")


def _namespace_args() -> list[str]:
    return ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--clearenv", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--disable-userns"]


def _usr_links() -> list[str]:
    links = []
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        if Path("/usr", name).exists():
            links += ["--symlink", f"usr/{name}", f"/{name}"]
    return links


# --- one run ---------------------------------------------------------------------------------------------------

# Answers one tool call from code: (tool name, input) -> the tool's JSON result, as use_tool gives it.
CallHandler = Callable[[str, object], object]


def venv_path() -> Path:
    return Path(settings.WORKSPACE_VENV)


def run(*, folder: Path, shared: Path, command: str, uid: int | None = None, limits: Limits | None = None,
        on_call: CallHandler | None = None) -> RunResult:
    """Run `command` with bash in the sandbox, in `folder` (at /work), with `shared` at /work/shared, as host user
    `uid` (which owns the folders) when Roadstar is root."""
    require_available()
    try:
        return _run(folder=folder, shared=shared, command=command, uid=uid, limits=limits, on_call=on_call)
    except _NotStarted as error:
        if error.passing:
            # The machine's limits, for a moment (the last run's processes still ending, memory short): this run
            # only, never the workspace turned off for everyone.
            raise ToolError("unavailable", f"The workspace couldn't start this run just now ({error.why}); nothing "
                                           "was run. Try again in a moment.") from None
        global _availability, _failed_at
        # Said once here; later runs, and the workspace page, give the same words until it is tried again.
        _availability, _failed_at = error.why, time.monotonic()
        logger.error("The workspace's sandbox couldn't start: %s", error.why)
        raise ToolError("unsupported", f"The workspace can't run on this Roadstar's machine: {error.why}. Tell the "
                                       "owner; nothing was run.") from None


class _NotStarted(Exception):
    """The sandbox itself failed before the command began (bwrap refused, a folder it needs was out of reach)."""

    def __init__(self, why: str, *, passing: bool = False):
        super().__init__(why)
        self.why = why
        self.passing = passing  # a moment's shortage (EAGAIN, ENOMEM), not how this machine is set up


def _run(*, folder: Path, shared: Path, command: str, uid: int | None, limits: Limits | None,
         on_call: CallHandler | None) -> RunResult:
    limits = limits or Limits.from_settings()
    for path in (folder, shared, folder / "shared", folder / "inbox"):  # shared's mount point, the inbox
        if path.is_symlink():
            # A run may have put a link where the inbox or shared's mount point was: never follow it from here (a
            # chown through it would give the run a file of this machine's). It goes; a folder takes its place.
            path.unlink()
        path.mkdir(parents=True, exist_ok=True)
        if uid is not None:
            os.chown(path, uid, uid, follow_symlinks=False)
    before = _snapshot([folder, shared])
    # The folder cap during the run: no file may grow past the room left (the program's write fails, EFBIG, as on
    # a full disk), and the supervisor stops the run if many files together pass it. A folder already over its cap
    # gets no room at all: `rm` still works (removing needs none), every write fails until it is under again.
    room = None
    if limits.folder_bytes is not None:
        room = max(0, limits.folder_bytes - _tree_bytes([folder, shared]))
    file_bytes = limits.file_bytes if room is None else min(limits.file_bytes, room)
    group = run_limits.run_group(memory_bytes=limits.memory_bytes, processes=limits.processes)
    processes = limits.processes if group is not None and group.limits_processes() else min(
        limits.processes, limits.fallback_processes)
    try:
        with tempfile.TemporaryDirectory(prefix="roadstar-run-", dir=_run_dir()) as private, \
                _Descriptors() as fds:
            private_dir = Path(private)
            os.chmod(private_dir, 0o700)
            if uid is not None:
                os.chown(private_dir, uid, uid)  # bwrap binds the socket by its path, as the run's user
            token = secrets.token_urlsafe(32)
            listener = _listen(private_dir / "tools.sock")
            try:
                usage_read, usage_write = os.pipe()
                fds.keep(usage_read)
                # Passed to bwrap only when bwrap binds them itself: a staged folder's descriptor never leaves
                # this process (in the sandbox it would lead out of it).
                open_for = fds.path if uid is None else fds.opened
                opened = {"folder": open_for(folder), "shared": open_for(shared), "clients": open_for(CLIENTS)}
                venv = venv_path()
                if (venv / "pyvenv.cfg").is_file():
                    opened["venv"] = open_for(venv)
                # What the sandbox is given. Run as Roadstar's own user, bwrap binds descriptors opened here. Run as
                # another user (Roadstar is root), bwrap would still look each one's path up as that user, who may
                # not get through this machine's folders to them (a project under a private folder, /root): so a
                # wrapper binds them, as root, into the run's own folder, in a mount namespace of the run's alone,
                # and bwrap takes them from there.
                sources: dict[str, tuple[str, str]] = {}
                staged: list[tuple[int, str]] = []
                for name, fd in opened.items():
                    if uid is None:
                        sources[name] = ("fd", str(fd))
                    else:
                        point = private_dir / "given" / name
                        point.mkdir(parents=True)
                        staged.append((fd, str(point)))
                        sources[name] = ("path", str(point))
                if uid is not None:
                    os.chown(private_dir / "given", uid, uid)
                sources["socket"] = ("path", str(private_dir / "tools.sock")) if uid is not None else (
                    "fd", str(fds.path(private_dir / "tools.sock")))
                given = {"passwd": fds.data(PASSWD), "group": fds.data(GROUP), "usage": fds.keep(usage_write)}
                argv = (_wrapper(group, staged) + _as_user(uid)
                        + _argv(given=given, sources=sources, token=token, limits=limits, command=command,
                                file_bytes=file_bytes, processes=processes))
                result = _supervise(argv, listener=listener, token=token, limits=limits, on_call=on_call,
                                    fds=fds, usage_read=usage_read, usage_write=usage_write, group=group,
                                    watch=[folder, shared] if limits.folder_bytes is not None else [],
                                    file_bytes=file_bytes)
            finally:
                listener.close()
    finally:
        if group is not None:
            group.remove()
    result.bytes_written = _written(before, _snapshot([folder, shared]))
    return result


def _run_dir() -> str | None:
    """Where a run's private folder (its socket, the wrapper's mount points) goes: a place every user can pass
    through, so the run's own user reaches its socket wherever Roadstar's temporary folder is."""
    for candidate in ("/tmp", "/var/tmp"):
        if _passable(Path(candidate)):
            return candidate
    return None


def _passable(path: Path) -> bool:
    try:
        for part in (path, *path.parents):
            if not os.stat(part).st_mode & 0o001:
                return False
    except OSError:
        return False
    return True


_WRAPPER = r"""
import ctypes, os, sys
args = sys.argv[1:]
for _ in range(int(args.pop(0))):
    with open(args.pop(0), "w") as f:
        f.write("0")  # this process into the run's cgroup; everything it starts stays in it
count = int(args.pop(0))
if count:
    libc = ctypes.CDLL(None, use_errno=True)
    def fail():
        why = os.strerror(ctypes.get_errno())
        sys.stderr.write("roadstar: the run's folders couldn't be prepared (%s)\n" % why)
        os._exit(125)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS: a mount namespace of this run's own
        fail()
    def mount(source, target, flags):
        if libc.mount(source, target, None, flags, None) != 0:
            fail()
    mount(None, b"/", 0x4000 | 0x40000)  # MS_REC | MS_PRIVATE: nothing below reaches the machine's mounts
    for _ in range(count):
        path, dev, ino, target = args.pop(0), int(args.pop(0)), int(args.pop(0)), args.pop(0)
        # Opened again here (a mount of another namespace can't be bound from this one), and only if it is still
        # the very folder Roadstar opened: nothing swapped in between is followed.
        fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (dev, ino):
            sys.stderr.write("roadstar: a folder given to the run changed as it started\n")
            os._exit(125)
        mount(b"/proc/self/fd/%d" % fd, target.encode(), 0x1000 | 0x4000)  # MS_BIND | MS_REC
        os.close(fd)
os.execv(args[0], args)
"""


def _wrapper(group: run_limits.RunGroup | None, staged: list[tuple[int, str]]) -> list[str]:
    """Debian's python3 before bwrap, as Roadstar: joins the run's cgroup, binds what the run is given (staged)."""
    procs = group.procs_files if group is not None else []
    if not procs and not staged:
        return []
    args = ["/usr/bin/python3", "-I", "-S", "-c", _WRAPPER, str(len(procs)), *procs, str(len(staged))]
    for fd, point in staged:
        st = os.fstat(fd)
        args += [os.readlink(f"/proc/self/fd/{fd}"), str(st.st_dev), str(st.st_ino), point]
    return args


def _tree_bytes(roots: list[Path]) -> int:
    total = 0
    for root in roots:
        for dirpath, _, filenames in os.walk(root):
            for name in filenames:
                try:
                    total += os.lstat(os.path.join(dirpath, name)).st_size
                except OSError:
                    continue
    return total


class _Descriptors:
    """The descriptors a run hands bwrap, closed here once it has them."""

    def __init__(self):
        self.fds: list[int] = []
        self.passed: list[int] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close_all()

    def keep(self, fd: int) -> int:
        self.fds.append(fd)
        return fd

    def path(self, path: Path) -> int:
        fd = self.opened(path)
        self.passed.append(fd)
        return fd

    def opened(self, path: Path) -> int:
        return self.keep(os.open(path, os.O_PATH | os.O_CLOEXEC))

    def data(self, text: str) -> int:
        fd = self.keep(os.memfd_create("roadstar-run", os.MFD_CLOEXEC))
        os.write(fd, text.encode())
        os.lseek(fd, 0, os.SEEK_SET)
        self.passed.append(fd)
        return fd

    def close_passed(self) -> None:
        for fd in self.passed:
            self.close(fd)

    def close(self, fd: int) -> None:
        if fd in self.fds:
            self.fds.remove(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self.fds):
            self.close(fd)


def _as_user(uid: int | None) -> list[str]:
    return [] if uid is None else [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    # The sandbox's uid is another user on the host's side of the mount: the socket must let it connect. Only this
    # run's sandbox sees it (its folder is 0700 and bound into this run alone), and every call carries the token.
    os.chmod(path, 0o777)
    listener.listen(8)
    listener.setblocking(False)
    return listener


_SHIM = """
import _signal, os, resource, sys
fd = int(sys.argv[1])
os.write(fd, b"+")  # the sandbox has started: what follows is the command's
# The room left in the folder, set here rather than by prlimit: bwrap itself writes a few files as it sets up.
room = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))
pid = os.fork()
if pid == 0:
    os.close(fd)
    # Python ignores SIGPIPE and SIGXFSZ; the command gets the usual dispositions (a pipe's reader gone, a file
    # past the size limit: the writer stops).
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)
    os.execv("/usr/bin/bash", ["bash", "-c", sys.argv[2]])
_, status, used = os.wait4(pid, 0)
os.write(fd, b"%d %d" % (int((used.ru_utime + used.ru_stime) * 1000), used.ru_maxrss * 1024))
os.close(fd)
code = os.waitstatus_to_exitcode(status)
os._exit(128 - code if code < 0 else code)
"""


def _bind(kind: str, source: tuple[str, str], dest: str) -> list[str]:
    how, value = source
    return [f"{kind}-fd" if how == "fd" else kind, value, dest]


def _argv(*, given: dict[str, int], sources: dict[str, tuple[str, str]], token: str, limits: Limits, command: str,
          file_bytes: int, processes: int) -> list[str]:
    args = [
        PRLIMIT, f"--data={limits.memory_bytes}", f"--fsize={limits.file_bytes}", f"--nproc={processes}",
        "--core=0", "--",
        BWRAP, *_namespace_args(),
        "--ro-bind", "/usr", "/usr", *_usr_links(),
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--ro-bind-data", str(given["passwd"]), "/etc/passwd",
        "--ro-bind-data", str(given["group"]), "/etc/group",
    ]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    if "venv" in sources:
        args += _bind("--ro-bind", sources["venv"], INSIDE_VENV)
    args += [
        *_bind("--ro-bind", sources["clients"], "/opt/roadstar/clients"),
        "--symlink", "clients/python", INSIDE_PYTHONPATH,
        # Node finds a bare `import ... from "roadstar"` in node_modules of the script's folders up to the root.
        "--symlink", "/opt/roadstar/clients/node", "/node_modules",
        *_bind("--ro-bind", sources["socket"], INSIDE_SOCKET),
        *_bind("--bind", sources["folder"], "/work"),
        *_bind("--bind", sources["shared"], "/work/shared"),
        "--chdir", "/work",
    ]
    env = {
        "PATH": f"{INSIDE_VENV}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": INSIDE_HOME,
        "USER": "agent",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONPATH": INSIDE_PYTHONPATH,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        # One thread for the maths libraries: their per-core buffers would count against the memory limit.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        # `import { mail } from "roadstar"` in a plain .js script in the agent's folder.
        "NODE_OPTIONS": "--experimental-detect-module --no-warnings",
        "ROADSTAR_SOCKET": INSIDE_SOCKET,
        "ROADSTAR_TOKEN": token,
    }
    for name, value in env.items():
        args += ["--setenv", name, value]
    # The command runs under a small measuring shim (Debian's python3, no site): what it reports on its own pipe
    # is the command's CPU and peak memory alone. Measured from here, bwrap's figures would carry this server's
    # memory (a forked process starts with its parent's high-water mark) and miss the namespace's children.
    args += ["--", "/usr/bin/python3", "-I", "-S", "-c", _SHIM, str(given["usage"]), command, str(file_bytes)]
    return args


@dataclass
class _Client:
    sock: socket.socket
    buffer: bytearray = field(default_factory=bytearray)


def _supervise(argv: list[str], *, listener: socket.socket, token: str, limits: Limits,
               on_call: CallHandler | None, fds: _Descriptors, usage_read: int, usage_write: int,
               group: run_limits.RunGroup | None = None, watch: list[Path] | None = None,
               file_bytes: int | None = None) -> RunResult:
    started = time.monotonic()
    deadline = started + limits.wall_seconds
    watch = watch or []
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True, close_fds=True, pass_fds=(*fds.passed, usage_write),
                                   env={})
    finally:
        # bwrap has its own copies now; the usage pipe must close here so its end is seen when the run ends.
        fds.close_passed()
        fds.close(usage_write)
    pipe = process.stdout
    assert pipe is not None  # stdout=PIPE: Popen made it
    output = _Output()
    calls: dict = {"count": 0, "made": []}
    stopped = None
    selector = selectors.DefaultSelector()
    os.set_blocking(pipe.fileno(), False)
    selector.register(pipe, selectors.EVENT_READ, "output")
    selector.register(listener, selectors.EVENT_READ, "listen")
    clients: dict[socket.socket, _Client] = {}
    # Where no cgroup holds the run's memory, this process looks at it several times a second (limits.py).
    watcher = None if group is not None and group.limits_memory() else run_limits.Watcher(
        root_pid=process.pid, memory_bytes=limits.memory_bytes)
    tick = 0.1 if watcher is not None else (0.5 if watch else 1.0)
    next_folder_look = started + 0.5
    try:
        while True:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                stopped = (f"Stopped after {_seconds(limits.wall_seconds)}: a run may take "
                           f"{_seconds(limits.wall_seconds)} at most.")
                break
            if watcher is not None and watcher.over():
                stopped = (f"Stopped: the run's processes held more than {_size(limits.memory_bytes)} of memory "
                           f"together; a run may use {_size(limits.memory_bytes)} at most.")
                break
            if watch and limits.folder_bytes is not None and now >= next_folder_look:
                next_folder_look = now + 0.5
                if _tree_bytes(watch) > limits.folder_bytes:
                    stopped = _folder_full(limits.folder_bytes)
                    break
            if calls["count"] > limits.tool_calls:
                stopped = f"Stopped at {limits.tool_calls} tool calls: a run may make {limits.tool_calls} at most."
                break
            events = selector.select(timeout=min(left, tick))
            finished = False
            for key, _ in events:
                if key.data == "output":
                    chunk = _read(pipe.fileno())
                    if chunk:
                        output.add(chunk)
                    elif chunk is not None:
                        selector.unregister(pipe)
                        finished = True
                elif key.data == "listen":
                    _accept(listener, selector, clients)
                else:
                    _serve(key.fileobj, clients, selector, token=token, calls=calls, limits=limits, on_call=on_call)
            if finished:
                break
        if stopped is not None:
            _kill(process)
        status, rusage = _reap(process, deadline=time.monotonic() + 10)
    finally:
        for client in list(clients):
            client.close()
        selector.close()
        pipe.close()
        if process.returncode is None:
            _kill(process)
            _reap(process, deadline=time.monotonic() + 10)
    took_ms = int((time.monotonic() - started) * 1000)
    exit_code = None if stopped is not None else _exit_code(status)
    began, cpu_ms, peak_bytes = _measured(usage_read, rusage)
    if not began and stopped is None:
        said = output.text()
        raise _NotStarted(_not_started_words(said), passing=any(
            words in said for words in ("Resource temporarily unavailable", "Cannot allocate memory")))
    if stopped is None and exit_code is not None and exit_code >= 128:
        exit_code, stopped = _signalled(exit_code, limits, file_bytes=file_bytes)
    bounded_by = "watcher"
    if group is not None and group.limits_memory():
        bounded_by = "cgroup"
        # The run's peak as the kernel counted it: all its processes together, not the largest one.
        peak_bytes = group.peak_bytes() or peak_bytes
        if stopped is None and group.oom_kills():
            stopped = (f"The run's processes passed {_size(limits.memory_bytes)} of memory together, so the system "
                       "stopped one of them: a run may use that much at most, all its processes counted.")
    elif watcher is not None:
        peak_bytes = max(peak_bytes, watcher.peak)
    return RunResult(
        output=output.text(), exit_code=exit_code, stopped=stopped, took_ms=took_ms, cpu_ms=cpu_ms,
        peak_bytes=peak_bytes, bytes_written=0, calls={"count": calls["count"], "made": calls["made"]},
        bounded_by=bounded_by,
    )


def _size(value: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{value / size:g} {unit}"
    return f"{value:,} bytes"


def _folder_full(cap: int) -> str:
    return (f"Stopped: your folder and shared passed the workspace's {_size(cap)}, so the run was stopped. Remove "
            "files you no longer need (rm works however full the folder is), then run again.")


def _not_started_words(output: str) -> str:
    said = " ".join(output.strip().splitlines()[:3])[:300]
    if "Permission denied" in said or "Can't find source path" in said:
        return ("the sandbox couldn't reach the folders it is given (Roadstar's folder, or a folder above it, "
                "isn't open to the user runs are made as). Whoever runs Roadstar can move the project, or "
                "WORKSPACE_ROOT and WORKSPACE_VENV, to a folder other users can pass through "
                f"(bubblewrap said: {said})")
    return f"the sandbox didn't start (it said: {said or 'nothing'})"


def _measured(usage_read: int, rusage) -> tuple[bool, int, int]:
    """Whether the command began, and the shim's figures; a run stopped before it reported gives bwrap's CPU time
    and no peak."""
    os.set_blocking(usage_read, False)
    try:
        data = os.read(usage_read, 200)
    except BlockingIOError:
        data = b""
    began = data.startswith(b"+")
    try:
        words = data[1:].split() if began else []
        return began, int(words[0]), int(words[1])
    except (ValueError, IndexError):
        return began, (int((rusage.ru_utime + rusage.ru_stime) * 1000) if rusage else 0), 0


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _signalled(code: int, limits: Limits, *, file_bytes: int | None = None) -> tuple[int | None, str | None]:
    """bwrap passes on the command's status; 128+N is the shell's word for a process killed by signal N."""
    number = code - 128
    if number == signal.SIGXFSZ:
        if file_bytes is not None and file_bytes < limits.file_bytes:
            return code, (f"A file reached the room left in your folder ({file_bytes:,} bytes of the workspace's "
                          f"{limits.folder_bytes:,}) and its writer was stopped. Remove files you no longer need "
                          "(rm works however full the folder is), then run again.")
        return code, f"A file reached the file size limit ({limits.file_bytes:,} bytes) and its writer was stopped."
    if number == signal.SIGKILL:
        return code, "The command was killed (signal 9), as happens when it runs out of memory."
    return code, None


def _read(fd: int) -> bytes | None:
    """The next bytes of output; b"" at its end; None when there is nothing yet (a spurious wake-up)."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None


def _accept(listener, selector, clients) -> None:
    try:
        sock, _ = listener.accept()
    except BlockingIOError:
        return
    sock.setblocking(False)
    clients[sock] = _Client(sock)
    selector.register(sock, selectors.EVENT_READ, "client")


def _drop(sock, clients, selector) -> None:
    selector.unregister(sock)
    clients.pop(sock, None)
    sock.close()


def _serve(sock, clients, selector, *, token, calls, limits, on_call) -> None:
    client = clients[sock]
    try:
        chunk = sock.recv(65536)
    except BlockingIOError:
        return
    except OSError:
        chunk = b""
    if not chunk:
        _drop(sock, clients, selector)
        return
    client.buffer += chunk
    if len(client.buffer) > _LINE_BYTES and b"\n" not in client.buffer:
        _reply(sock, {"error": "too_large", "message": "A tool call from code may be 4 MB of JSON at most."})
        _drop(sock, clients, selector)
        return
    while b"\n" in client.buffer:
        line, _, rest = bytes(client.buffer).partition(b"\n")
        client.buffer = bytearray(rest)
        _reply(sock, _answer(line, token=token, calls=calls, limits=limits, on_call=on_call))


def _answer(line: bytes, *, token, calls, limits, on_call) -> dict:
    try:
        request = json.loads(line)
    except ValueError:
        return {"error": "bad_input", "message": "A tool call from code must be one line of JSON."}
    if not isinstance(request, dict) or not secrets.compare_digest(str(request.get("token", "")), token):
        return {"error": "forbidden", "message": "This run's token is missing or wrong."}
    name, tool_input = request.get("tool"), request.get("input")
    calls["count"] += 1
    if calls["count"] > limits.tool_calls:
        return {"error": "too_large", "message": f"A run may make {limits.tool_calls} tool calls at most; it stops "
                                                 "here."}
    if on_call is None:
        result = {"error": "unsupported", "message": "Tools can't be called from code in this run."}
    else:
        result = on_call(name, tool_input)
    calls["made"].append({"tool": name if isinstance(name, str) else str(name), "result": result})
    return {"result": result}


def _reply(sock, message: dict) -> None:
    data = json.dumps(message).encode() + b"\n"
    sock.setblocking(True)
    sock.settimeout(10)
    try:
        sock.sendall(data)
    except OSError:
        pass
    finally:
        sock.setblocking(False)


def _kill(process: subprocess.Popen) -> None:
    # bwrap leads its own process group; its PID namespace dies with it (--die-with-parent), taking everything the
    # command started, whatever session or group those processes moved to.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(process: subprocess.Popen, *, deadline: float):
    """Wait for bwrap with its resource usage. Its output has ended (or it was killed), so it is exiting now."""
    pause = 0.0005
    while True:
        pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
        if pid == process.pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return status, rusage
        if time.monotonic() > deadline:
            _kill(process)
            deadline = time.monotonic() + 10
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def _exit_code(status) -> int | None:
    if status is None:
        return None
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else None


class _Output:
    """A run's output: the first and last parts kept, so a long run's result and its error both reach the agent."""

    HEAD_BYTES = OUTPUT_CHARS * 4

    def __init__(self):
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.HEAD_BYTES:
                cut = len(self.tail) - self.HEAD_BYTES
                self.dropped += cut
                del self.tail[:cut]

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        whole = head + tail
        if not self.dropped and len(whole) <= OUTPUT_CHARS:
            return whole
        total = len(head) + len(tail) + self.dropped
        marker = f"\n… {total:,} characters or more; the middle was cut to keep {OUTPUT_CHARS:,} …\n"
        keep = (OUTPUT_CHARS - len(marker)) // 2
        start = whole[:keep]
        end = whole[-(OUTPUT_CHARS - len(marker) - keep):]
        return start + marker + end


# --- what a run wrote ------------------------------------------------------------------------------------------

_SNAPSHOT_FILES = 20_000


def _snapshot(roots: list[Path]) -> dict[str, tuple[int, int]]:
    files: dict[str, tuple[int, int]] = {}
    for root in roots:
        for dirpath, _, filenames in os.walk(root):
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                files[path] = (st.st_size, st.st_mtime_ns)
                if len(files) >= _SNAPSHOT_FILES:
                    return files
    return files


def _written(before: dict, after: dict) -> int:
    """Bytes in the files the run made or changed: what it left written in its folders."""
    return sum(size for path, (size, mtime) in after.items() if before.get(path) != (size, mtime))
