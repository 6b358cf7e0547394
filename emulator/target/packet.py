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

# error codes of the core library, in p4c/BMv2 order; user errors follow in declaration order
CORE_ERRORS = ("NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort", "ParserTimeout",
               "ParserInvalidArgument")
ERR_PACKET_TOO_SHORT = 1
ERR_NO_MATCH = 2
ERR_STACK_OUT_OF_BOUNDS = 3
ERR_HEADER_TOO_SHORT = 4


class ParserError(Exception):
    """Raised inside generated parser code; `code` is the error value stored in parser_error."""

    __slots__ = ("code",)

    def __init__(self, code: int):
        self.code = code


class ParserReject(Exception):
    """`transition reject` or a failed verify: the error code has already been chosen."""

    __slots__ = ("code",)

    def __init__(self, code: int):
        self.code = code


class P4Fault(Exception):
    """A run-time fault on which simple_switch stops (a failed assert/assume): the switch abandons the packet and
    records `str(fault)` (V1Switch.fatal_errors)."""


class ExitBlock(Exception):
    """`exit`: leaves the whole top-level control (copy-out of by-reference params is implicit)."""


# --------------------------------------------------------------------------------------------- layouts


@dataclass
class FieldLayout:
    """One field of a header/struct/union: kind is 'bits', 'int', 'bool', 'varbit', 'error', 'enum' (scalars)
    or 'header', 'struct', 'union', 'stack' (composites; `cls` is the element class, `size` the stack size)."""

    name: str
    kind: str
    width: int = 0
    cls: Any = None
    size: int = 0
    default: Any = 0


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


# --------------------------------------------------------------------------------------------- stacks


class StackElems:
    """The elements of a header stack, each made on first touch: a stack of a million headers costs what its used
    elements cost (an untouched element is an invalid header, which nothing emits). Index and iterate like a list;
    `made` holds the touched ones by index."""

    __slots__ = ("cls", "size", "made")

    def __init__(self, cls: type, size: int):
        self.cls = cls
        self.size = size
        self.made: dict[int, Any] = {}

    def __getitem__(self, i: int):
        e = self.made.get(i)
        if e is None:
            if not 0 <= i < self.size:
                raise IndexError(i)
            e = self.made[i] = self.cls()
        return e

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return (self[i] for i in range(self.size))  # every element (P4 for-in loops, traces)

    def touched(self) -> list[tuple[int, Any]]:
        return sorted(self.made.items())


class HeaderStack:
    """A header stack `H[size]`: `elems` (made lazily, see StackElems) plus the parser's `nextIndex`."""

    __slots__ = ("elems", "nextIndex", "size", "_cls")
    _kind = "stack"

    def __init__(self, cls: type, size: int):
        self._cls = cls
        self.size = size
        self.elems = StackElems(cls, size)
        self.nextIndex = 0

    def _copy(self) -> HeaderStack:
        n = HeaderStack.__new__(HeaderStack)
        n._cls = self._cls
        n.size = self.size
        n.elems = StackElems(self._cls, self.size)
        n.elems.made = {i: e._copy() for i, e in self.elems.made.items()}
        n.nextIndex = self.nextIndex
        return n

    def _set(self, o: HeaderStack) -> None:
        mine, theirs = self.elems, o.elems
        for i in set(mine.made) | set(theirs.made):
            mine[i]._set(theirs[i])
        self.nextIndex = o.nextIndex

    def _eq(self, o: HeaderStack) -> bool:
        mine, theirs = self.elems, o.elems
        return all(mine[i]._eq(theirs[i]) for i in set(mine.made) | set(theirs.made))

    def _values(self) -> tuple:
        blank = self._cls()._values()
        made = self.elems.made
        out: list = []
        for i in range(self.size):
            out.extend(made[i]._values() if i in made else blank)
        return tuple(out)

    def _reset_headers(self) -> None:
        for e in self.elems.made.values():
            e._reset_headers()
        self.nextIndex = 0

    def _emit(self, out: list) -> None:
        for _, e in self.elems.touched():
            e._emit(out)

    # element access -------------------------------------------------------------------------------------
    def at(self, i: int, where: str = "?"):
        """Element `i` (a run-time index) for reading/writing in a control. Out of range: a detached dummy (reads
        0, writes are lost) and the packet goes on. That is what p4c's BMv2 samples expect (gauntlet_index_5 and
        gauntlet_index_10: an out-of-range write, or an inout argument, leaves the packet unchanged and it is
        forwarded): p4c's mid end turns run-time indexes into per-index branches, so simple_switch's own
        std::out_of_range is never reached. `where` names the source line for diagnostics."""
        if 0 <= i < self.size:
            return self.elems[i]
        return self._cls()

    def at_parser(self, i: int):
        if 0 <= i < self.size:
            return self.elems[i]
        raise ParserError(ERR_STACK_OUT_OF_BOUNDS)

    @property
    def next(self):
        if self.nextIndex >= self.size:
            raise ParserError(ERR_STACK_OUT_OF_BOUNDS)
        return self.elems[self.nextIndex]

    @property
    def last(self):
        if self.nextIndex == 0 or self.nextIndex > self.size:
            raise ParserError(ERR_STACK_OUT_OF_BOUNDS)
        return self.elems[self.nextIndex - 1]

    @property
    def lastIndex(self) -> int:
        return (self.nextIndex - 1) & 0xFFFFFFFF

    def last_ctl(self):
        """`.last` in a control: out of range gives a dummy instead of an error."""
        if 0 < self.nextIndex <= self.size:
            return self.elems[self.nextIndex - 1]
        return self._cls()

    def next_ctl(self):
        if self.nextIndex < self.size:
            return self.elems[self.nextIndex]
        return self._cls()

    def extract_next(self, data: bytes, cur: int, vlen: int | None = None) -> int:
        if self.nextIndex >= self.size:
            raise ParserError(ERR_STACK_OUT_OF_BOUNDS)
        e = self.elems[self.nextIndex]
        cur = e._extract(data, cur) if vlen is None else e._extract(data, cur, vlen)
        self.nextIndex += 1
        return cur

    def extract_next_member(self, member: str, data: bytes, cur: int, vlen: int | None = None) -> int:
        """`extract(stack.next.m)` on a stack of header unions: member m of the next element becomes its only
        valid member, then the element counts as extracted."""
        if self.nextIndex >= self.size:
            raise ParserError(ERR_STACK_OUT_OF_BOUNDS)
        u = self.elems[self.nextIndex]
        h = getattr(u, member)
        cur = h._extract(data, cur) if vlen is None else h._extract(data, cur, vlen)
        u._only(member)
        self.nextIndex += 1
        return cur

    def push_front(self, n: int) -> None:
        """Shift every element up by n (those pushed past the end are lost); the first n become invalid."""
        if n <= 0:
            return
        self._shift(n)
        self.nextIndex = min(self.nextIndex + n, self.size)

    def pop_front(self, n: int) -> None:
        """Shift every element down by n (the first n are lost); the last n become invalid."""
        if n <= 0:
            return
        self._shift(-n)
        self.nextIndex = max(self.nextIndex - n, 0)

    def _shift(self, n: int) -> None:
        """Element i's contents move to i + n, in place (the objects stay where they are: code may hold them)."""
        els, size = self.elems, self.size
        moved = {i + n: e._copy() for i, e in els.made.items() if 0 <= i + n < size}
        for i, e in els.made.items():
            if i not in moved:
                e._reset_headers()
        for i, e in moved.items():
            els[i]._set(e)

    def isValid(self) -> bool:  # not P4, but handy for `emit` of stacks of unions
        return any(e.isValid() for e in self.elems.made.values())


def noop(*_args: Any, **_kw: Any) -> None:
    return None


Factory = Callable[[], Any]


class PacketIn:
    """The parser's `packet_in`: the received bytes and a bit cursor."""

    __slots__ = ("data", "cur")

    def __init__(self, data: bytes):
        self.data = data
        self.cur = 0
