"""Header stacks of the v1model target: `HeaderStack` (next/last/lastIndex, push_front/pop_front, out-of-range
reads and writes as p4c's BMv2 back end leaves them) over `StackElems`, elements made on first touch."""
from __future__ import annotations

from typing import Any

from emulator.target.runtime_errors import ERR_STACK_OUT_OF_BOUNDS, ParserError


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
