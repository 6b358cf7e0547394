"""Reading a user's input file with bounds: a size limit, UTF-8 text, and a clear message for each failure.

Every file a user names (scenario, P4 source and its includes, STF test, command file) is read through
`read_text`, so `rocelab run /dev/zero` says "larger than 4 MiB" instead of exhausting memory, and a file in
another encoding names the first bad byte instead of raising UnicodeDecodeError.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

MiB = 1 << 20
SCENARIO_LIMIT = 4 * MiB
P4_LIMIT = 16 * MiB  # per file (the main program and each #include)
STF_LIMIT = 64 * MiB  # packet tests can hold many large packets


def limit_text(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit:,} bytes"


def read_text(path: str | os.PathLike, what: str, limit: int, error: Callable[[str], Exception]) -> str:
    """The text of `path` (a `what`, e.g. "scenario"), at most `limit` bytes of UTF-8; `error(message)` makes the
    exception raised for an unreadable, oversized or non-UTF-8 file."""
    try:
        with open(path, "rb") as f:
            return decode_bounded(f, what, limit, error)
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}") from None


def decode_bounded(f: IO[bytes], what: str, limit: int, error: Callable[[str], Exception]) -> str:
    """Read at most `limit` bytes of UTF-8 text from the open binary file `f`."""
    data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"the {what} is larger than {limit_text(limit)}; is it the right file?")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, "
                    f"line {line})") from None
    return text.removeprefix("\ufeff")
