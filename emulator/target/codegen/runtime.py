"""Run-time helpers the generated code calls (division, shifts, random) and the parser value sets."""
from __future__ import annotations

import random as _random_mod
from typing import Any

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.codegen.base import _bits, _mask, strip


def _anno_ints(a) -> list[int]:
    vals = []
    for x in a.args or []:
        cv = getattr(x, "const_value", None)
        if cv is None and isinstance(x, A.IntLiteral):
            cv = x.value
        if isinstance(cv, int):
            vals.append(cv)
    if not vals:
        for part in a.body.replace(" ", "").split(","):
            try:
                vals.append(int(part, 0))
            except ValueError:
                pass
    return vals


def value_set_widths(t) -> list[int]:
    """Field widths of a value_set's element type: one per struct field or tuple element (a tuple select),
    else one."""
    t = strip(t) if t is not None else None
    if isinstance(t, T.Struct):
        return [(_bits(f.type) or (1, False))[0] for f in t.fields]
    if isinstance(t, T.Tuple):
        return [(_bits(e) or (1, False))[0] for e in t.elements]
    return [(_bits(t) or (0, False))[0]]


def _split_fields(value: int, widths: list[int]) -> tuple:
    """An integer holding several fields back to back (most significant first) as a tuple of field values."""
    out = []
    for w in reversed(widths):
        out.append(value & _mask(w))
        value >>= w
    return tuple(reversed(out))


class ValueSetRuntime:
    """A parser value_set: members are (value, mask|None); `match(v)` tests them (v a tuple for several keys).
    A struct-typed set matches a tuple select; its members may also be given as one integer of all the fields
    concatenated (how a control plane without the struct layout writes them)."""

    def __init__(self, name: str, widths: list[int] | None = None):
        self.name = name
        self.widths = widths or []
        self.members: list[tuple[Any, Any]] = []

    def add(self, value, mask=None) -> None:
        if len(self.widths) > 1:
            if isinstance(value, int):
                value = _split_fields(value, self.widths)
            if isinstance(mask, int):
                mask = _split_fields(mask, self.widths)
        self.members.append((tuple(value) if isinstance(value, list) else value,
                             tuple(mask) if isinstance(mask, list) else mask))

    def clear(self) -> None:
        self.members.clear()

    def match(self, v) -> bool:
        for val, mask in self.members:
            if mask is None:
                if v == val:
                    return True
            elif isinstance(v, tuple):
                if all((a & m) == (b & m) for a, b, m in zip(v, val, mask)):
                    return True
            elif (v & mask) == (val & mask):
                return True
        return False


class UnmodelledExtern:
    """An extern instance without a runtime model."""

    def __init__(self, name: str, type_name: str):
        self.name = name
        self.type_name = type_name


def _div(a: int, b: int) -> int:
    return a // b if b else 0


def _mod(a: int, b: int) -> int:
    return a % b if b else 0


def _shl(a: int, b: int, w: int, signed: bool) -> int:
    if b >= w:
        return 0
    v = (a << b) & ((1 << w) - 1)
    if signed and v >> (w - 1):
        v -= 1 << w
    return v


_rng = _random_mod.Random(0)


def _rand(lo: int, hi: int) -> int:
    return lo if hi < lo else _rng.randint(lo, hi)


def _nocopy(*_a) -> None:
    return None
