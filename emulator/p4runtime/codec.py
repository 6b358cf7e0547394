"""P4Runtime bytestrings <-> integers, and P4Runtime match fields <-> the target's match specs.

Bytestrings (P4Runtime spec, "Bytestrings"): the canonical form of an unsigned value is the shortest big-endian
string that holds it (zero is one 0x00 byte). Servers answer reads in canonical form. On writes we take what
PI (simple_switch_grpc) takes: any big-endian string whose value fits the bitwidth, shorter than the field's bytes
or zero-padded beyond them (p4lang/tutorials' p4runtime_lib pads PacketOut metadata to `bitwidth` bytes, PTF
tests write 9-bit ports as 2 or 4 bytes), and refuse an empty one or a value that does not fit (INVALID_ARGUMENT).
"""
from __future__ import annotations

from emulator.p4runtime.errors import invalid


def encode(value: int, bitwidth: int | None = None) -> bytes:
    """The canonical bytestring of a non-negative integer."""
    if value < 0:
        raise ValueError(f"negative value {value}")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def decode(data: bytes, bitwidth: int, what: str) -> int:
    """An integer from a bytestring of a `bitwidth`-bit field; INVALID_ARGUMENT if it is empty or its value does
    not fit the width (leading zero bytes beyond the field's width are accepted, as PI does)."""
    if not data:
        raise invalid(f"{what}: empty bytestring")
    value = int.from_bytes(data, "big")
    if bitwidth and value >> bitwidth:
        raise invalid(f"{what}: value {value:#x} does not fit in {bitwidth} bits")
    return value


_MATCH_KINDS = frozenset({"exact", "lpm", "ternary", "range", "optional"})


def decode_match(field, fm, table: str) -> object:
    """One p4.v1.FieldMatch as the target's normalized spec for `field` (a MatchFieldInfo)."""
    kind, w = field.match_kind, field.bitwidth
    what = f"table '{table}' match field '{field.name}'"
    which = fm.WhichOneof("field_match_type")
    if which != (kind if kind in _MATCH_KINDS else None):  # FieldMatch's oneof members are named after the kinds
        raise invalid(f"{what} is {kind}, the entry gives {which or 'nothing'}")
    full = (1 << w) - 1
    if kind == "exact":
        return decode(fm.exact.value, w, what)
    if kind == "lpm":
        plen = fm.lpm.prefix_len
        if not 0 < plen <= w:  # a /0 is a don't-care and must be omitted (spec)
            raise invalid(f"{what}: prefix length {plen} out of range 1..{w} (omit the field for a wildcard)")
        v = decode(fm.lpm.value, w, what)
        if v & (full >> plen):
            raise invalid(f"{what}: LPM value {v:#x} has bits set beyond its /{plen} prefix")
        return (v, plen)
    if kind == "ternary":
        v = decode(fm.ternary.value, w, what)
        m = decode(fm.ternary.mask, w, what + " mask")
        if m == 0:
            raise invalid(f"{what}: a ternary mask of 0 is a wildcard and must be omitted")
        if v & ~m:
            raise invalid(f"{what}: ternary value {v:#x} has bits set outside its mask {m:#x}")
        return (v, m)
    if kind == "range":
        lo = decode(fm.range.low, w, what + " low")
        hi = decode(fm.range.high, w, what + " high")
        if lo > hi:
            raise invalid(f"{what}: empty range {lo}..{hi}")
        if lo == 0 and hi == full:
            raise invalid(f"{what}: a full range is a wildcard and must be omitted")
        return (lo, hi)
    return decode(fm.optional.value, w, what)


def wildcard(field) -> object:
    """The target spec of a field left out of an entry (P4Runtime: omitted = don't care)."""
    kind, w = field.match_kind, field.bitwidth
    if kind == "lpm":
        return (0, 0)
    if kind == "ternary":
        return (0, 0)
    if kind == "range":
        return (0, (1 << w) - 1)
    if kind == "optional":
        return None
    raise invalid(f"match field '{field.name}' is exact and cannot be omitted")


def encode_match(field, spec, fm) -> bool:
    """Fill a p4.v1.FieldMatch from a target spec; False when the spec is a wildcard (omitted in reads)."""
    kind, w = field.match_kind, field.bitwidth
    fm.field_id = field.id
    if kind == "exact":
        fm.exact.value = encode(spec)
    elif kind == "lpm":
        v, plen = spec
        if plen == 0:
            return False
        fm.lpm.value, fm.lpm.prefix_len = encode(v), plen
    elif kind == "ternary":
        v, m = spec
        if m == 0:
            return False
        fm.ternary.value, fm.ternary.mask = encode(v), encode(m)
    elif kind == "range":
        lo, hi = spec
        if lo == 0 and hi == (1 << w) - 1:
            return False
        fm.range.low, fm.range.high = encode(lo), encode(hi)
    elif kind == "optional":
        if spec is None:
            return False
        fm.optional.value = encode(spec)
    return True
