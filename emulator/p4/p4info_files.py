"""P4Info files in the forms p4c writes (`--p4runtime-files`): protobuf text, JSON and binary; atomic writes.

- text (.txtpb/.txt/.pbtxt): two `# proto-file`/`# proto-message` comment lines and a blank line (as p4c's
  golden P4Infos begin), then protobuf text format (fields by number, map entries sorted by key, strings C-escaped).
- JSON (.json): protobuf JSON (lowerCamelCase names, 64-bit integers as strings, bytes as base64, enums by name)
  printed as protobuf's C++ JsonObjectWriter prints it with `add_whitespace`: one space of indent per level and a
  newline at the end; non-ASCII characters as UTF-8.
- binary (.bin/.pb): the serialized message, map entries in key order (deterministic).
"""
from __future__ import annotations

import os
from pathlib import Path

from emulator.files import write_atomic  # noqa: F401  (re-exported: one writer for every output)

TEXT_HEADER = "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n"
FORMATS = ("text", "json", "binary")


def to_text(p4info) -> str:
    """The message in protobuf text format (without the header comment lines of a file)."""
    from google.protobuf import text_format

    return text_format.MessageToString(p4info)


def serialize(p4info, fmt: str) -> bytes:
    """The bytes of a P4Info file in format `fmt` ("text", "json" or "binary"), as p4c writes them."""
    if fmt == "text":
        return (TEXT_HEADER + to_text(p4info)).encode()
    if fmt == "json":
        from google.protobuf import json_format

        return (json_format.MessageToJson(p4info, indent=1, ensure_ascii=False) + "\n").encode()
    if fmt == "binary":
        return p4info.SerializeToString(deterministic=True)
    raise ValueError(f"unknown P4Info format {fmt!r} (one of {', '.join(FORMATS)})")


def write_text(p4info, path: str | os.PathLike) -> None:
    """Write P4Info in protobuf text format (what p4runtime-shell and P4Runtime servers read)."""
    write_atomic(path, serialize(p4info, "text"))


def read_text(path: str | os.PathLike):
    from google.protobuf import text_format

    from emulator.proto import p4info_pb2

    return text_format.Parse(Path(path).read_text(), p4info_pb2.P4Info())

