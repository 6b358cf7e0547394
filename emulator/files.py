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
    half-written. A symbolic link to a regular file keeps the link: the file it names is replaced. A device, FIFO or
    socket (`/dev/null`, `/dev/stdout`) is written through, as `cc -o` would, never replaced; a directory is refused.
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
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(path, "wb") as f:
            f.write(data)
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
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
