"""A run's output folder: its own files only, each complete or absent, one run at a time.

- Every file is written under a temporary name in the folder and renamed into place when complete, so a crash,
  Ctrl-C or SIGTERM never leaves a half-written summary, CSV, plot or pcap.
- `begin()` takes the folder's lock (`.rocelab.lock`, an flock: a second run into the same folder is refused
  while the first holds it) and removes the previous run's files (listed in `.rocelab-files`, plus temporary files
  a killed run left), so no file of an earlier run is ever read as this run's. Nothing else in the folder is
  touched, and a name that is not a regular file (a symlink, a device, a folder) is never replaced.
- A folder that cannot be made or written, a full disk or a name that would clobber something is a UsageError
  naming the path; files this run already committed are then removed (its outputs are absent, never partial).
"""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from emulator.errors import UsageError
from emulator.files import write_atomic

LOCK = ".rocelab.lock"
MANIFEST = ".rocelab-files"
_PART = ".part-"


class OutputDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        refuse_non_folder(self.path, "output folder")
        self._made = _missing_dirs(self.path)  # removed again if the run writes nothing
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot make output folder {self.path}: {exc.strerror or exc}") from None
        self._staged: dict[Path, Path] = {}  # final path -> temporary path
        self._lock_fd: int | None = None
        self.written: list[Path] = []

    # -- one run at a time, no stale files ----------------------------------------------------------------------
    def begin(self) -> OutputDir:
        """Lock the folder for this run and remove the previous run's files."""
        import fcntl

        try:
            fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise UsageError(f"cannot write into output folder {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            raise UsageError(f"output folder {self.path} is in use by another run"
                             + (f" (pid {holder})" if holder else "")) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd
        self._clear_previous()
        return self

    def end(self) -> None:
        """Release the lock (the lock file stays; it is empty of meaning without a holder). A folder this run made
        and wrote nothing into is removed: a refused or interrupted run leaves nothing behind."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        if self._made and not self.written:
            for name in (LOCK, MANIFEST):
                (self.path / name).unlink(missing_ok=True)
            _remove_dirs(self._made)

    def _clear_previous(self) -> None:
        listed = self.path / MANIFEST
        names = listed_files(self.path)
        names += [p.name for p in self.path.iterdir() if p.name.startswith(".") and _PART in p.name]
        for name in names:
            target = self.path / name
            if name and "/" not in name and name not in (".", "..", LOCK) and _is_regular(target):
                self._io(target, target.unlink)
        self._io(listed, lambda: listed.unlink(missing_ok=True))

    # -- files --------------------------------------------------------------------------------------------------
    def stage(self, name: str) -> Path:
        """A temporary path for `name`; `commit(name)` renames it into place."""
        final = self._replaceable(name)
        tmp = final.with_name(f".{final.name}{_PART}{os.getpid()}")
        self._staged[final] = tmp
        return tmp

    def commit(self, name: str) -> Path:
        final = self.path / name
        tmp = self._staged.pop(final)
        self._io(final, lambda: self._note(name))
        self._io(final, lambda: os.replace(tmp, final))
        self.written.append(final)
        return final

    def write_text(self, name: str, text: str) -> Path:
        final = self._replaceable(name)
        self._io(final, lambda: self._note(name))
        self._io(final, lambda: write_atomic(final, text.encode()))
        self.written.append(final)
        return final

    def write_json(self, name: str, data: Any) -> Path:
        return self.write_text(name, json.dumps(data, indent=2, sort_keys=False) + "\n")

    def discard(self) -> None:
        """Remove whatever is still staged (a failed run)."""
        for tmp in self._staged.values():
            tmp.unlink(missing_ok=True)
        self._staged.clear()

    def abandon(self) -> None:
        """A run that could not finish its outputs: remove what is staged and what it committed."""
        self.discard()
        for final in self.written:
            final.unlink(missing_ok=True)
        self.written.clear()

    def check_replaceable(self, names: list[str]) -> None:
        """Refuse, before the run, any name it will write that is not a regular file: found at the rename, it cost
        the whole run and left a manifest of files that were never written."""
        for name in names:
            self._replaceable(name)

    def _replaceable(self, name: str) -> Path:
        final = self.path / name
        if final.is_symlink() or (final.exists() and not _is_regular(final)):
            raise UsageError(f"will not replace {final}: it is not a regular file")
        return final

    def _note(self, name: str) -> None:
        """List `name` in the manifest before it appears, so the next run removes it even after a SIGKILL."""
        fd = os.open(self.path / MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, f"{name}\n".encode())
        finally:
            os.close(fd)

    def _io(self, path: Path, op: Any) -> Any:
        try:
            return op()
        except OSError as exc:
            raise write_error(path, exc) from None


def listed_files(folder: str | Path) -> list[str]:
    """The names a run wrote in `folder`, from its manifest (empty if there is none or it cannot be read)."""
    listed = Path(folder) / MANIFEST
    try:
        return [n for n in listed.read_text(errors="replace").split("\n") if n] if _is_regular(listed) else []
    except OSError:
        return []


def check_folder(path: str | Path, what: str = "output folder") -> None:
    """Refuse, before any work, an output folder that is a file or cannot be made (it is made now)."""
    path = Path(path)
    refuse_non_folder(path, what)
    made = _missing_dirs(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{what} {path}: not writable")
    except OSError as exc:
        raise UsageError(f"cannot make {what} {path}: {exc.strerror or exc}") from None
    finally:
        _remove_dirs(made)  # made to see that it can be; the run makes it again


def refuse_non_folder(path: Path, what: str) -> None:
    """A path that exists and is not a folder, or a symbolic link that leads nowhere (mkdir said only "File
    exists" of it), is refused by name."""
    if path.is_symlink() and not path.exists():
        raise UsageError(f"{what} {path}: a symbolic link to {os.readlink(path)!r}, which leads nowhere (a missing "
                         "path or a loop of links)")
    if path.exists() and not path.is_dir():
        raise UsageError(f"{what} {path}: exists and is not a folder")


def _missing_dirs(path: Path) -> list[Path]:
    """`path` and its ancestors that do not exist yet, deepest first."""
    out = []
    for p in (path, *path.absolute().parents):
        if p.exists() or p.is_symlink():
            break
        out.append(p)
    return out


def _remove_dirs(dirs: list[Path]) -> None:
    """Remove these (empty) folders, deepest first; a folder something else wrote into stays."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            return


def write_error(path: str | Path, exc: OSError) -> UsageError:
    """The message for an output that could not be written (a full disk says so)."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        reason += " (the disk is full)"
    return UsageError(f"cannot write {path}: {reason}")


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
