"""Files a user names: inputs read with bounds, outputs written without clobbering.

Every input (scenario, P4 source and its includes, STF test) is read through `read_text`, so `rocelab run
/dev/zero` says "larger than 4 MiB" instead of exhausting memory, and a file in another encoding names the first
bad byte instead of raising UnicodeDecodeError. Every output file goes through `write_atomic` (never
half-written, never replacing what is not a regular file).
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from emulator.errors import UsageError

Located = Callable[[str, int, int], Exception]  # (message, line, column) -> the exception to raise

MiB = 1 << 20
SCENARIO_LIMIT = 4 * MiB
P4_LIMIT = 16 * MiB  # per file (the main program and each #include)
STF_LIMIT = 64 * MiB  # packet tests can hold many large packets


def limit_text(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit:,} bytes"


def read_text(path: str | os.PathLike, what: str, limit: int, error: Callable[[str], Exception],
              located: Located | None = None) -> str:
    """The text of `path` (a `what`, e.g. "scenario"), at most `limit` bytes of UTF-8; `error(message)` makes the
    exception raised for an unreadable, oversized or non-UTF-8 file, `located(message, line, column)`, when given,
    the one for a byte that is not UTF-8 (P4 errors carry file:line:col)."""
    try:
        with open(path, "rb") as f:
            return decode_bounded(f, what, limit, error, located)
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}") from None


def decode_bounded(f: IO[bytes], what: str, limit: int, error: Callable[[str], Exception],
                   located: Located | None = None) -> str:
    """Read at most `limit` bytes of UTF-8 text from the open binary file `f` (errors as in read_text)."""
    data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"the {what} is larger than {limit_text(limit)}; is it the right file?")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        if located is not None:
            raise located(f"the {what} is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded (save it "
                          "as UTF-8)", line, col) from None
        raise error(f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, "
                    f"line {line}, column {col}); save it as UTF-8") from None
    return text.removeprefix("\ufeff")


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path`, never replacing what is not a regular file.

    A new or regular file is written to a temporary file in its directory and renamed over it, so it is never
    half-written. A device, FIFO or socket (`/dev/null`, a pipe) is written through, as `cc -o` would, never
    replaced; so is a descriptor named through `/dev/stdout` or `/dev/fd/N` (`--p4info /dev/stdout > x` fills x).
    A directory is refused, and so is any other symbolic link: writing through it would replace a file we did not
    name (a helper's test once overwrote /etc/hostname that way).
    """
    import stat

    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"cannot write {path}: it is a directory")
    if st is not None and (not stat.S_ISREG(st.st_mode) or _names_descriptor(path)):
        with open(path, "wb") as f:
            f.write(data)
        return
    _refuse_link(path)
    target = path
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)  # mkstemp makes the file 0600; give it the usual umask-based mode
        os.umask(umask)
        os.chmod(tmp, (st.st_mode & 0o7777) if st is not None else 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise UsageError(f"cannot write {path}: it is a symbolic link (to {os.readlink(path)}); name the file "
                         "itself, or remove the link")


def _names_descriptor(path: Path) -> bool:
    """`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`: links to an open descriptor of ours, which the user made (a
    shell redirection) and means to be written."""
    text = os.path.abspath(path)
    return text in ("/dev/stdout", "/dev/stderr") or text.startswith(("/dev/fd/", "/proc/self/fd/"))


def refuse_foreign(path: str | os.PathLike, what: str, ours: Callable[[bytes], bool],
                   limit: int = 64 * MiB) -> None:
    """Refuse `path` as the output for a `what` when it holds something else: an existing, non-empty regular file
    whose bytes `ours` does not recognise (a P4 source, notes) is not replaced, so `compile x.p4 --p4info x.p4` or a
    mistyped name cannot destroy a file we did not make. Devices, FIFOs and /dev/stdout are left to write_atomic."""
    import stat

    path = Path(path)
    if _names_descriptor(path):
        return
    try:
        st = os.stat(path)
    except OSError:
        st = None  # missing (made new), or write_atomic names what is wrong
    if st is None or stat.S_ISREG(st.st_mode):
        _refuse_link(path)  # a dangling link too: checked with the other outputs, before any is written
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return
    if st.st_size > limit:
        raise UsageError(f"cannot write {path}: it exists and is larger than any {what} we write; not replaced")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not ours(data):
        raise UsageError(f"cannot write {path}: it exists and is not a {what}; not replaced (remove it first, or "
                         "name another file)")
