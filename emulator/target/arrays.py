"""Arrays of non-header elements (P4-16 1.2.5's generalized header stacks: `bit<8>[4]`, `S[2]`, `bool[3]`).

`P4Array` has what such an array has in P4: indexing, copy (`_copy`/`_set`) and `==` (`_eq`); none of a header
stack's `next`/`last`/`push_front` (the checker refuses them). Elements are made eagerly: these arrays live in
metadata and locals, where they are small. A scalar element (bit<W>, bool, enum, error, tuple) is a Python value
kept in a list; a composite one (struct, header, nested array) is an object with its own `_copy`/`_set`.

An index out of range behaves as for header stacks (see stacks.HeaderStack.at): in a control a read gives a
detached fresh element (0 / false / a zeroed struct) and a write is lost; in a parser both are
error.StackOutOfBounds."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.target.runtime_errors import ERR_STACK_OUT_OF_BOUNDS, ParserError


class P4Array:
    """`E[size]`: `elems` is a list of `size` elements; `make()` gives a fresh element (a zero value when
    `scalar`, else a new object)."""

    __slots__ = ("elems", "size", "_make", "_scalar")
    _kind = "array"

    def __init__(self, make: Callable[[], Any], size: int, scalar: bool):
        self._make = make
        self._scalar = scalar
        self.size = size
        self.elems: list[Any] = [make() for _ in range(size)]

    def _copy(self) -> P4Array:
        n = P4Array.__new__(P4Array)
        n._make, n._scalar, n.size = self._make, self._scalar, self.size
        n.elems = list(self.elems) if self._scalar else [e._copy() for e in self.elems]
        return n

    def _set(self, o: P4Array) -> None:
        if self._scalar:
            self.elems[:] = o.elems
        elif o is not self:
            for mine, theirs in zip(self.elems, o.elems):
                mine._set(theirs)

    def _eq(self, o: P4Array) -> bool:
        if self._scalar:
            return self.elems == o.elems
        return all(a._eq(b) for a, b in zip(self.elems, o.elems))

    def _values(self) -> tuple:
        if self._scalar:
            return tuple(self.elems)
        return tuple(v for e in self.elems for v in e._values())

    def _reset_headers(self) -> None:
        if not self._scalar:  # a struct element may hold headers
            for e in self.elems:
                e._reset_headers()

    def _emit(self, out: list) -> None:
        if not self._scalar:
            for e in self.elems:
                if hasattr(e, "_emit"):
                    e._emit(out)

    # run-time index ---------------------------------------------------------------------------------------
    def at(self, i: int, where: str = "?"):
        """Element `i` read in a control; out of range: a fresh element, detached (writes to it are lost)."""
        if 0 <= i < self.size:
            return self.elems[i]
        return self._make()

    def at_parser(self, i: int):
        if 0 <= i < self.size:
            return self.elems[i]
        raise ParserError(ERR_STACK_OUT_OF_BOUNDS)

    def put(self, i: int, v: Any, where: str = "?") -> None:
        """Write scalar element `i` in a control; out of range the write is ignored."""
        if 0 <= i < self.size:
            self.elems[i] = v

    def put_parser(self, i: int, v: Any) -> None:
        if not 0 <= i < self.size:
            raise ParserError(ERR_STACK_OUT_OF_BOUNDS)
        self.elems[i] = v


def filled(arr: Any, vals: tuple) -> Any:
    """`arr` (a fresh header stack or array) with its first elements set from a list expression's values
    (`h_t[2] s = {a, b};`); an element is copied in, as by assignment."""
    for i, v in enumerate(vals):
        if getattr(arr, "_scalar", False):
            arr.elems[i] = v
        else:
            arr.elems[i]._set(v)
    return arr
