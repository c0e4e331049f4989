"""Where the workspace's folders are on this machine, and paths as the agent writes them, checked.

Each workspace (organization) has its own root under settings.WORKSPACE_ROOT: `<org id>/agents/<agent id>/` is an
agent's folder (the sandbox's /work, with its inbox at /work/inbox), and `<org id>/shared/` is the shared folder
(the sandbox's /work/shared). One workspace's runs never see another's root; one agent's runs never see another
agent's folder; shared is the only folder two agents both see.

The tools that touch files from here (read, write, edit, open, files.save, mail's attach) take a path as the agent
gives it: relative to its folder, or absolute under /work. `..`, an absolute path elsewhere, and a symlink that
leads out are refused with bad_input naming the path. Files are opened one folder at a time with O_NOFOLLOW from
the folder's own descriptor, so a link swapped in by a run at the same moment can't lead a write outside either.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings

from core.actors import Actor
from core.errors import ToolError
from workspace import run_users

INSIDE = PurePosixPath("/work")
_SAFE_KEY = re.compile(r"[^A-Za-z0-9_-]")


def run_uid(org) -> int | None:
    """The host user a workspace's runs are made as when Roadstar is root (None: runs are Roadstar's own user).

    Root's processes are exempt from RLIMIT_NPROC, so a fork bomb run as root would meet no limit; each workspace's
    runs get a user of their own, so one workspace's runs never share a process budget with another's. The number is
    the workspace's row in workspace.RunUser, made on first use (workspace/models.py)."""
    if os.geteuid() != 0:
        return None
    return run_users.run_user_for(org=org)


@dataclass(frozen=True)
class Place:
    """One actor's view of the workspace: its folder and the workspace's shared folder, on this machine."""

    folder: Path
    shared: Path
    uid: int | None = None  # who owns the folders' files on the host (run_uid)

    @property
    def inbox(self) -> Path:
        return self.folder / "inbox"

    def ensure(self) -> None:
        for path in (self.folder, self.shared, self.inbox, self.folder / "shared"):
            if path.is_symlink():  # a run's link where a folder of ours belongs: it goes, never followed
                path.unlink()
            path.mkdir(parents=True, exist_ok=True)
            own(path, self.uid)


def own(path: Path | str, uid: int | None, *, dir_fd: int | None = None) -> None:
    """Give a file or folder Roadstar made to the workspace's run user, so its runs can change and remove it."""
    if uid is None:
        return
    os.chown(path, uid, uid, dir_fd=dir_fd, follow_symlinks=False)


def place_for(*, org, actor: Actor) -> Place:
    root = Path(settings.WORKSPACE_ROOT) / str(org.pk)
    if actor.kind == "agent":
        folder = root / "agents" / _SAFE_KEY.sub("", actor.id)
    else:
        # The owner (through the API) or Roadstar itself: a folder of their own, beside the agents'.
        folder = root / "people" / _SAFE_KEY.sub("", f"{actor.kind}-{actor.id}")
    return Place(folder=folder, shared=root / "shared", uid=run_uid(org))


@dataclass(frozen=True)
class Target:
    """A checked path: the folder it is in (the agent's or shared), the parts below it, and how the agent sees it."""

    base: Path
    parts: tuple[str, ...]
    shown: str  # the path inside the sandbox: /work/report.xlsx, /work/shared/notes.md
    uid: int | None = None

    @property
    def name(self) -> str:
        return self.parts[-1] if self.parts else ""


NAME_BYTES = 255  # a file or folder name, as the file systems take it
PATH_BYTES = 1024  # a whole path, well inside PATH_MAX
# Control characters (a line break, a tab, escape, C1), the line and paragraph separators, and lone surrogates (what
# a name that isn't UTF-8 becomes): none belongs in a file name the owner reads on a page or an agent writes in code.
_REFUSED_CATEGORIES = {"Cc", "Cs", "Zl", "Zp"}


def check_path(raw: str, *, field: str = "path") -> None:
    """A path as the agent gives it, checked once, here at the edge: text a page and a shell can both show."""
    for position, ch in enumerate(raw, start=1):
        category = unicodedata.category(ch)
        if category == "Cs":
            raise ToolError("bad_input", f"{field}: the path isn't valid UTF-8 text (character {position}); name "
                                         "files with ordinary letters, digits, spaces and punctuation")
        if category in _REFUSED_CATEGORIES:
            raise ToolError("bad_input", f"{field}: the path has a control character ({_shown_char(ch)}, character "
                                         f"{position}), such as a line break or a tab; file names can't hold one")
    if len(raw.encode("utf-8")) > PATH_BYTES:
        raise ToolError("bad_input", f"{field}: the path is {len(raw.encode('utf-8')):,} bytes long; a path may be "
                                     f"{PATH_BYTES:,} bytes at most")
    for part in raw.split("/"):
        size = len(part.encode("utf-8"))
        if size > NAME_BYTES:
            raise ToolError("bad_input", f"{field}: the name {part[:40]!r}… is {size:,} bytes long; a file or folder "
                                         f"name may be {NAME_BYTES} bytes at most")


def _shown_char(ch: str) -> str:
    return {"\n": "a line break", "\r": "a carriage return", "\t": "a tab"}.get(ch, f"U+{ord(ch):04X}")


def target(place: Place, path: str, *, field: str = "path") -> Target:
    """The file a path names, inside the agent's folder or shared; bad_input naming the path otherwise."""
    raw = path.strip()
    if not raw:
        raise ToolError("bad_input", f"{field}: give a path, such as report.py or /work/inbox/Timesheet.xlsx")
    check_path(raw, field=field)
    pure = PurePosixPath(raw)
    if any(part == ".." for part in pure.parts):
        raise ToolError("bad_input", f"{field}: {raw!r} uses '..'; paths stay inside your folder (/work)")
    if pure.is_absolute():
        try:
            pure = pure.relative_to(INSIDE)
        except ValueError:
            raise ToolError("bad_input", f"{field}: {raw!r} is outside your folder; paths are relative to it or "
                                         "under /work, such as /work/inbox/file.xlsx") from None
    parts = tuple(p for p in pure.parts if p not in ("", "."))
    if not parts:
        raise ToolError("bad_input", f"{field}: {raw!r} is your folder itself; name a file in it")
    if parts[0] == "shared":
        base, parts = place.shared, parts[1:]
        if not parts:
            raise ToolError("bad_input", f"{field}: {raw!r} is the shared folder itself; name a file in it")
    else:
        base = place.folder
    shown = str(INSIDE.joinpath(*(("shared",) if base == place.shared else ()), *parts))
    return Target(base=base, parts=parts, shown=shown, uid=place.uid)


@contextmanager
def _folder_fd(t: Target, *, make: bool, raw: str, field: str):
    """A descriptor of the folder the file is in, reached with no symlink followed; folders made when `make`."""
    t.base.mkdir(parents=True, exist_ok=True)
    fd = os.open(t.base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in t.parts[:-1]:
            try:
                next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise ToolError("not_found", f"{field}: there is no {raw!r} in your folder") from None
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                    own(part, t.uid, dir_fd=fd)
                except FileExistsError:
                    pass
                next_fd = _open_dir(part, fd, raw=raw, field=field)
            except OSError as error:
                raise _path_error(error, raw=raw, field=field) from None
            os.close(fd)
            fd = next_fd
        yield fd
    finally:
        os.close(fd)


def _open_dir(part: str, fd: int, *, raw: str, field: str) -> int:
    try:
        return os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except OSError as error:
        raise _path_error(error, raw=raw, field=field) from None


def _path_error(error: OSError, *, raw: str, field: str) -> ToolError:
    if error.errno == errno.ELOOP:
        return ToolError("bad_input", f"{field}: {raw!r} goes through a link; paths stay inside your folder")
    if error.errno == errno.ENOTDIR:
        return ToolError("bad_input", f"{field}: part of {raw!r} is a file, not a folder (or a link out of it)")
    if error.errno == errno.EISDIR:
        return ToolError("bad_input", f"{field}: {raw!r} is a folder, not a file")
    if error.errno == errno.ENOENT:
        return ToolError("not_found", f"{field}: there is no {raw!r} in your folder")
    if error.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT):
        return ToolError("too_large", f"{field}: {raw!r} doesn't fit: the workspace is full")
    # An OSError raised without an errno (by Python code, not the system) has only its message to say.
    why = os.strerror(error.errno) if error.errno is not None else str(error)
    return ToolError("bad_input", f"{field}: {raw!r} can't be used ({why})")


def read_bytes(t: Target, *, raw: str, field: str = "path", limit: int | None = None) -> bytes:
    """A file's bytes, opened without following a link; bad_input when it is a link, a folder or too big."""
    with _folder_fd(t, make=False, raw=raw, field=field) as dir_fd:
        try:
            fd = os.open(t.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        except OSError as error:
            raise _link_or(error, raw=raw, field=field) from None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not _is_regular(st.st_mode):
                raise ToolError("bad_input", f"{field}: {raw!r} is not a file")
            if limit is not None and st.st_size > limit:
                raise ToolError("too_large", f"{field}: {raw!r} is {st.st_size:,} bytes; this takes files up to "
                                             f"{limit:,} bytes")
            return f.read()


def file_size(t: Target, *, raw: str, field: str = "path") -> int:
    with _folder_fd(t, make=False, raw=raw, field=field) as dir_fd:
        try:
            st = os.stat(t.name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError as error:
            raise _path_error(error, raw=raw, field=field) from None
        if not _is_regular(st.st_mode):
            raise ToolError("bad_input", f"{field}: {raw!r} is a link or a folder, not a file in your folder")
        return st.st_size


def write_bytes(t: Target, data: bytes, *, raw: str, field: str = "path") -> int:
    """Write a file whole (a new file beside it, then renamed over it), making its folders; never through a link."""
    limit = int(settings.WORKSPACE_FILE_BYTES)
    if len(data) > limit:
        raise ToolError("too_large", f"{field}: {len(data):,} bytes is over the workspace's file size limit of "
                                     f"{limit:,} bytes")
    with _folder_fd(t, make=True, raw=raw, field=field) as dir_fd:
        try:
            st = os.stat(t.name, dir_fd=dir_fd, follow_symlinks=False)
            if not _is_regular(st.st_mode):
                raise ToolError("bad_input", f"{field}: {raw!r} is a link or a folder; write a file of your own")
        except FileNotFoundError:
            pass
        temp = f".{t.name}.roadstar-{os.getpid()}-{os.urandom(4).hex()}"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
            with os.fdopen(fd, "wb") as f:
                if t.uid is not None:
                    os.fchown(f.fileno(), t.uid, t.uid)
                f.write(data)
            os.rename(temp, t.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as error:
            try:
                os.unlink(temp, dir_fd=dir_fd)
            except OSError:
                pass
            raise _path_error(error, raw=raw, field=field) from None
    return len(data)


def _link_or(error: OSError, *, raw: str, field: str) -> ToolError:
    if error.errno == errno.ELOOP:
        return ToolError("bad_input", f"{field}: {raw!r} is a link; paths stay inside your folder")
    return _path_error(error, raw=raw, field=field)


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def folder_bytes(paths: list[Path]) -> int:
    total = 0
    for root in paths:
        for dirpath, _, filenames in os.walk(root):
            for name in filenames:
                try:
                    total += os.lstat(os.path.join(dirpath, name)).st_size
                except OSError:
                    continue
    return total


def listing(base: Path) -> list[dict]:
    """Every file under a folder, for the owner's page: its path inside, shown safely, and its size; links left out.

    Any name a run left is listed, whatever it holds (a line break, bytes that aren't UTF-8, 255 bytes): `path` is
    what the page shows (odd bytes and control characters written as escapes), `key` names the file exactly (its
    bytes, in hex) for the page's download and delete, and `plain` says whether `path` alone names it too."""
    found = []
    root = os.fsencode(base)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            rel = os.path.relpath(full, root)
            shown, plain = shown_name(rel)
            found.append({"path": shown, "size": st.st_size, "key": rel.hex(), "plain": plain})
    return found


def shown_name(rel: bytes) -> tuple[str, bool]:
    """A name's bytes as text a page can show, and whether that text is the name itself."""
    text = rel.decode("utf-8", "backslashreplace")
    shown = "".join(ch if unicodedata.category(ch) not in _REFUSED_CATEGORIES else ch.encode("unicode_escape")
                    .decode("ascii") for ch in text)
    try:
        plain = shown == rel.decode("utf-8") and len(rel) <= PATH_BYTES
    except UnicodeDecodeError:
        plain = False
    return shown, plain


def _raw_parts(base: Path, key: str) -> tuple[bytes, ...]:
    """The parts of a file's path below `base` from a listing's `key`; ValueError for anything else."""
    rel = bytes.fromhex(key)
    parts = tuple(rel.split(b"/"))
    if not rel or any(part in (b"", b".", b"..") or b"\x00" in part for part in parts):
        raise ValueError("not a file's key")
    return parts


@contextmanager
def _raw_folder(base: Path, parts: tuple[bytes, ...]):
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        yield fd
    finally:
        os.close(fd)


def read_listed(base: Path, key: str, *, limit: int) -> tuple[bytes, bytes]:
    """A listed file's name and bytes, by its listing key, never through a link: for the owner's page only.
    FileNotFoundError when the key names no regular file in the folder; ValueError when it is too big."""
    try:
        parts = _raw_parts(base, key)
    except ValueError:
        raise FileNotFoundError(key) from None
    try:
        with _raw_folder(base, parts) as dir_fd:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
            with os.fdopen(fd, "rb") as f:
                st = os.fstat(f.fileno())
                if not stat.S_ISREG(st.st_mode):
                    raise FileNotFoundError(key)
                if st.st_size > limit:
                    raise ValueError(f"{st.st_size:,} bytes")
                return parts[-1], f.read()
    except OSError as error:
        raise FileNotFoundError(key) from error


def remove_listed(base: Path, key: str) -> bool:
    """Remove a listed file by its listing key (any name a run left, however odd), never through a link."""
    try:
        parts = _raw_parts(base, key)
        with _raw_folder(base, parts) as dir_fd:
            st = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                return False
            os.unlink(parts[-1], dir_fd=dir_fd)
            return True
    except (OSError, ValueError):
        return False
