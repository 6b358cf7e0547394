"""Runtime values of the v1model target: headers, structs, unions and stacks as generated `__slots__` classes,
plus the bit-level extract/emit helpers the generated parser and deparser call.

Classes are produced from a small layout description by generating Python source once per type (so field
access is a plain slot access and extract/emit are straight-line shift/mask code, no per-field loops).
Values: `bit<W>` fields are ints in [0, 2^W), `int<W>` fields signed ints, `bool` fields bools, varbit fields
an int plus its current width in the slot `<name>__w`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# the exceptions and error codes generated code uses, and header stacks, importable from here as before
from emulator.target.runtime_errors import (  # noqa: F401
    CORE_ERRORS,
    ERR_HEADER_TOO_SHORT,
    ERR_NO_MATCH,
    ERR_PACKET_TOO_SHORT,
    ERR_STACK_OUT_OF_BOUNDS,
    ExitBlock,
    P4Fault,
    ParserError,
    ParserReject,
)
from emulator.target.stacks import HeaderStack, StackElems  # noqa: F401

# --------------------------------------------------------------------------------------------- layouts


@dataclass
class FieldLayout:
    """One field of a header/struct/union: kind is 'bits', 'int', 'bool', 'varbit', 'error', 'enum' (scalars)
    or 'header', 'struct', 'union', 'stack' (composites; `cls` is the element class, `size` the stack size), or
    'array' (a non-header array, arrays.P4Array)."""

    name: str
    kind: str
    width: int = 0
    cls: Any = None
    size: int = 0
    default: Any = 0
    elem: Any = None  # an 'array' field: its element's FieldLayout (`cls` then makes the whole array)


@dataclass
class TypeLayout:
    name: str
    kind: str  # header / struct / union
    fields: list[FieldLayout] = field(default_factory=list)



def _vb_extract(data: bytes, cur: int, width: int) -> int:
    return extract_bits(data, cur, width)


def extract_bits(data: bytes, cur: int, width: int) -> int:
    """`width` bits of `data` starting at bit offset `cur` (MSB first), as an unsigned int."""
    if width == 0:
        return 0
    end = cur + width
    b0 = cur >> 3
    b1 = (end + 7) >> 3
    v = int.from_bytes(data[b0:b1], "big")
    return (v >> (-end & 7)) & ((1 << width) - 1)


def join_emitted(parts: list, payload: bytes = b"") -> bytes:
    """Concatenate what the deparser emitted: byte strings, or (value, width) pairs for non-byte-aligned data."""
    if all(type(p) is bytes for p in parts):
        return b"".join(parts) + payload
    acc = 0
    nbits = 0
    for p in parts:
        if type(p) is bytes:
            acc = (acc << (8 * len(p))) | int.from_bytes(p, "big")
            nbits += 8 * len(p)
        else:
            v, w = p
            acc = (acc << w) | (v & ((1 << w) - 1))
            nbits += w
    pad = -nbits % 8  # BMv2 rejects non-byte-aligned packets; we zero-pad the last byte
    acc <<= pad
    return acc.to_bytes((nbits + pad) // 8, "big") + payload


def noop(*_args: Any, **_kw: Any) -> None:
    return None


Factory = Callable[[], Any]


class PacketIn:
    """The parser's `packet_in`: the received bytes and a bit cursor."""

    __slots__ = ("data", "cur")

    def __init__(self, data: bytes):
        self.data = data
        self.cur = 0
