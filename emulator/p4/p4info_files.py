"""P4Info files in the forms p4c writes (`--p4runtime-files`): protobuf text, JSON and binary.

- text (.txtpb/.txt/.pbtxt): two `# proto-file`/`# proto-message` comment lines and a blank line (as p4c's
  golden P4Infos begin), then protobuf text format (fields by number, map entries sorted by key, strings C-escaped).
- JSON (.json): protobuf JSON (lowerCamelCase names, 64-bit integers as strings, bytes as base64, enums by name)
  printed as protobuf's C++ JsonObjectWriter prints it with `add_whitespace`: one space of indent per level and a
  newline at the end; characters as its JsonEscaping writes them (UTF-8, but `<`, `>`, DEL, C1 controls and a few
  invisible code points as \\u escapes).
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


# Characters protobuf's C++ JSON writer escapes beyond what JSON requires (and Python's json escapes): `<` and `>`
# (HTML safety), DEL and the C1 controls, and invisible or formatting code points (JsonEscaping::EscapeCodePoint).
# They can only occur inside strings, so replacing them anywhere in the text is safe.
_BMP_ESCAPES = [0x3C, 0x3E, *range(0x7F, 0xA0), 0xAD, *range(0x600, 0x604), 0x6DD, 0x70F, 0x17B4, 0x17B5,
                *range(0x200B, 0x2010), *range(0x2028, 0x202F), *range(0x2060, 0x2065), *range(0x206A, 0x2070),
                0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB]
_SUPPLEMENTARY_ESCAPES = [0xE0001, *range(0x1D173, 0x1D17B), *range(0xE0020, 0xE0080)]


def _surrogates(cp: int) -> str:
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


_ESCAPES = str.maketrans({**{chr(c): f"\\u{c:04x}" for c in _BMP_ESCAPES},
                          **{chr(c): _surrogates(c) for c in _SUPPLEMENTARY_ESCAPES}})


def _cpp_json_escapes(text: str) -> str:
    return text.translate(_ESCAPES)


def to_json(p4info) -> str:
    """Protobuf JSON with one space of indent; fields in field-number order, map entries (type_info's maps) in key
    order, as in the text form (the only deterministic order: protobuf gives map entries none)."""
    import json

    from google.protobuf import json_format

    obj = json_format.MessageToDict(p4info)
    for key, value in (obj.get("typeInfo") or {}).items():
        if key != "error" and isinstance(value, dict):
            obj["typeInfo"][key] = dict(sorted(value.items()))
    return json.dumps(obj, indent=1, ensure_ascii=False)


def serialize(p4info, fmt: str) -> bytes:
    """The bytes of a P4Info file in format `fmt` ("text", "json" or "binary"), as p4c writes them."""
    if fmt == "text":
        return (TEXT_HEADER + to_text(p4info)).encode()
    if fmt == "json":
        return (_cpp_json_escapes(to_json(p4info)) + "\n").encode()
    if fmt == "binary":
        return p4info.SerializeToString(deterministic=True)
    raise ValueError(f"unknown P4Info format {fmt!r} (one of {', '.join(FORMATS)})")


def looks_like(data: bytes, fmt: str) -> bool:
    """Whether `data` is a P4Info in format `fmt` (ours, p4c's or a newer p4c's: unknown fields are allowed), so
    that `rocelab compile` replaces an earlier P4Info and nothing else."""
    from google.protobuf import json_format, text_format

    from emulator.proto import p4info_pb2

    message = p4info_pb2.P4Info()
    try:
        if fmt == "text":
            text_format.Parse(data.decode(), message, allow_unknown_field=True)
        elif fmt == "json":
            json_format.Parse(data.decode(), message, ignore_unknown_fields=True)
        else:
            message.ParseFromString(data)
            return bool(message.ListFields())  # random bytes can parse as unknown fields only
    except Exception:  # noqa: BLE001 - text_format, json_format and the binary parser each raise their own errors
        return False
    return True


def write_text(p4info, path: str | os.PathLike) -> None:
    """Write P4Info in protobuf text format (what p4runtime-shell and P4Runtime servers read)."""
    write_atomic(path, serialize(p4info, "text"))


def read_text(path: str | os.PathLike):
    from google.protobuf import text_format

    from emulator.proto import p4info_pb2

    return text_format.Parse(Path(path).read_text(), p4info_pb2.P4Info())

