"""P4Info files in the forms p4c writes (`--p4runtime-files`): protobuf text, JSON and binary; atomic writes."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from emulator.errors import UsageError


def to_text(p4info) -> str:
    from google.protobuf import text_format

    return text_format.MessageToString(p4info)


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


def write_text(p4info, path: str | os.PathLike) -> None:
    """Write P4Info in protobuf text format (what p4runtime-shell and P4Runtime servers read)."""
    write_atomic(path, to_text(p4info).encode())


def read_text(path: str | os.PathLike):
    from google.protobuf import text_format

    from emulator.proto import p4info_pb2

    return text_format.Parse(Path(path).read_text(), p4info_pb2.P4Info())

