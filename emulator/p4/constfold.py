"""Compile-time evaluation of P4 operators with the spec's width semantics.

Values are Python ints (bit<W> in [0, 2^W), int<W> in [-2^(W-1), 2^(W-1)), InfInt unbounded), bools and
strings. The same functions serve the checker (folding constants) and anyone evaluating keysets.
"""
from __future__ import annotations

from emulator.p4.types import Bits, Bool, InfInt, NewType, P4Type, SerEnum


def wrap(value: int, t: P4Type) -> int:
    """Reduce an integer to the range of `t` (two's complement for int<W>)."""
    while isinstance(t, NewType):
        t = t.base
    if isinstance(t, SerEnum):
        t = t.underlying
    if isinstance(t, Bits):
        w = t.width
        if w == 0:
            return 0
        value &= (1 << w) - 1
        if t.signed and value >> (w - 1):
            value -= 1 << w
        return value
    return value


def saturate(value: int, t: Bits) -> int:
    if t.signed:
        lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
    else:
        lo, hi = 0, (1 << t.width) - 1
    return max(lo, min(hi, value))


class FoldError(Exception):
    """A constant operation that is illegal (e.g. division by zero); the checker turns it into a P4Error."""


def binop(op: str, a, b, t: P4Type):
    """Evaluate `a op b` where the operation's (result or operand) type is `t`."""
    if op == "&&":
        return bool(a) and bool(b)
    if op == "||":
        return bool(a) or bool(b)
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == ">=":
        return a >= b
    if isinstance(t, Bool):
        if op == "&":
            return a and b
        if op == "|":
            return a or b
        if op == "^":
            return a != b
        raise FoldError(f"operator {op} is not defined on bool")
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        _bounded(a.bit_length() + b.bit_length())
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            raise FoldError("division by zero")
        if a < 0 or b < 0:
            raise FoldError(f"operator {op} is only defined on non-negative values")
        r = a // b if op == "/" else a % b
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "<<":
        if b < 0:
            raise FoldError("negative shift amount")
        if isinstance(t, Bits) and b >= t.width:
            return 0
        _bounded(a.bit_length() + b if a else 0)
        r = a << b
    elif op == ">>":
        if b < 0:
            raise FoldError("negative shift amount")
        r = a >> b  # arithmetic shift for signed values (Python semantics)
    elif op == "|+|":
        return saturate(a + b, t) if isinstance(t, Bits) else a + b
    elif op == "|-|":
        return saturate(a - b, t) if isinstance(t, Bits) else a - b
    else:
        raise FoldError(f"cannot evaluate operator {op}")
    return wrap(r, t)


def unop(op: str, a, t: P4Type):
    if op == "!":
        return not a
    if op == "-":
        return wrap(-a, t)
    if op == "~":
        if isinstance(t, Bits):
            return wrap(~a, t)
        raise FoldError("operator ~ needs a fixed-width operand")
    if op == "+":
        return a
    raise FoldError(f"cannot evaluate operator {op}")


def concat(a: int, ta: Bits, b: int, tb: Bits) -> int:
    ua = a & ((1 << ta.width) - 1)
    ub = b & ((1 << tb.width) - 1)
    return wrap((ua << tb.width) | ub, Bits(ta.width + tb.width, ta.signed))


def slice_bits(a: int, hi: int, lo: int) -> int:
    return (a >> lo) & ((1 << (hi - lo + 1)) - 1)


def cast(value, src: P4Type, dst: P4Type):
    """Evaluate `(dst) value`."""
    while isinstance(dst, NewType):
        dst = dst.base
    if isinstance(dst, Bool):
        return bool(value)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(dst, (Bits, SerEnum)):
        return wrap(value, dst)
    if isinstance(dst, InfInt):
        return value
    return value


# compile-time integers (`int`, arbitrary precision) are kept below this many bits: `1 << (1 << 40)` is refused
# instead of exhausting memory (no fixed-width value is wider than the 2,048-bit limit on widths)
MAX_CONST_BITS = 1 << 16


def _bounded(bits: int) -> None:
    if bits > MAX_CONST_BITS:
        raise FoldError(f"the value of this constant expression would have {bits} bits, more than the "
                        f"{MAX_CONST_BITS} allowed for compile-time integers")
