"""P4Runtime bytestrings <-> integers, and P4Runtime match fields <-> the target's match specs.

Bytestrings (P4Runtime spec, "Bytestrings"): the canonical form of an unsigned value is the shortest big-endian
string that holds it (zero is one 0x00 byte). Servers answer reads in canonical form. On writes we take what
PI (simple_switch_grpc) takes: any big-endian string whose value fits the bitwidth, shorter than the field's bytes
or zero-padded beyond them (p4lang/tutorials' p4runtime_lib pads PacketOut metadata to `bitwidth` bytes, PTF
tests write 9-bit ports as 2 or 4 bytes), and refuse an empty one or a value that does not fit (INVALID_ARGUMENT).
"""
from __future__ import annotations

from emulator.p4.summary import BMV2_MATCH_KINDS
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
        raise invalid(f"{what}: value {shown(value)} does not fit in {bitwidth} bits")
    return value


def replica_port(r) -> int:
    """A p4.v1.Replica's port: `egress_port`, or the bytestring `port` of P4Runtime 1.4 (INVALID_ARGUMENT if empty
    or wider than 32 bits)."""
    return decode(r.port, 32, "replica port") if r.WhichOneof("port_kind") == "port" else r.egress_port


def shown(value: int, digits: int = 32) -> str:
    """A value for an error message, its hex cut short: a 100 KB bytestring made a 200 KB message, which flooded
    the log and, in a Write's status details, passed gRPC's metadata limit (the client got RESOURCE_EXHAUSTED
    'received metadata size exceeds hard limit' instead of the error)."""
    text = f"{value:x}"
    if len(text) <= digits:
        return f"0x{text}"
    return f"0x{text[:digits // 2]}...{text[-digits // 2:]} ({value.bit_length():,} bits)"


def _field_value(data: bytes, bitwidth: int) -> int:
    """A match field's bytestring as PI checks it: empty or too wide is "Invalid bytestring format"."""
    value = int.from_bytes(data, "big")
    if not data or value >> bitwidth:
        raise invalid("Invalid bytestring format")
    return value


def decode_match(field, fm, table: str) -> object:
    """One p4.v1.FieldMatch as the target's normalized spec for `field` (a MatchFieldInfo).

    A refusal has PI's message, checked in PI's order (p4lang/PI DeviceMgr's validate_*_match): clients and PTF
    tests written against simple_switch_grpc compare these texts."""
    kind, w = field.match_kind, field.bitwidth
    which = fm.WhichOneof("field_match_type")
    if which != (kind if kind in BMV2_MATCH_KINDS else None):  # FieldMatch's oneof members are named after the kinds
        raise invalid("Invalid match type")
    full = (1 << w) - 1
    if kind == "exact":
        return _field_value(fm.exact.value, w)
    if kind == "lpm":
        v, plen = _field_value(fm.lpm.value, w), fm.lpm.prefix_len
        if plen < 0:
            raise invalid("Prefix length cannot be < 0")
        if plen > w:
            raise invalid("Prefix length cannot be > bitwidth")
        if plen == 0:  # PI's spelling, kept so that clients matching the text match ours
            raise invalid("Invalid reprsentation of 'don't care' LPM match, "
                          "omit match field instead of using a prefix length of 0")
        if v & (full >> plen):
            raise invalid("Invalid LPM value, incorrect number of trailing zeros")
        return (v, plen)
    if kind == "ternary":
        v, m = _field_value(fm.ternary.value, w), _field_value(fm.ternary.mask, w)
        if m == 0:
            raise invalid("Invalid representation of 'don't care' ternary match, "
                          "omit match field instead of using 0 mask")
        if v & ~m:
            raise invalid("Invalid ternary value, make sure value & mask == value")
        return (v, m)
    if kind == "range":
        lo, hi = _field_value(fm.range.low, w), _field_value(fm.range.high, w)
        if lo == 0 and hi == full:
            raise invalid("Invalid representation of 'don't care' range match, "
                          "omit match field instead of using low=0 and high=2**bitwidth-1")
        if lo > hi:
            raise invalid("Invalid range value, make sure low <= high")
        return (lo, hi)
    if kind == "optional":
        return _field_value(fm.optional.value, w)
    raise invalid(f"table '{table}' match field '{field.name}' has match kind '{kind}', unknown to P4Runtime")


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
    raise invalid("Missing non-ternary field in match key")  # PI's words for an omitted exact field


def bmv2_masked(field, spec):
    """A ternary or lpm spec with the value's bits outside the mask (or prefix) cleared, as BMv2 stores the entry
    simple_switch_CLI adds (`10.0.1.1/24`, `10.0.0.1&&&255.0.0.0`); P4Runtime (PI) refuses such values, so a client
    speaking for simple_switch_CLI clears them first."""
    kind, w = field.match_kind, field.bitwidth
    if kind == "ternary":
        v, m = spec
        return (v & m, m)
    if kind == "lpm":
        v, plen = spec
        return (v & (((1 << plen) - 1) << (w - plen)), plen)
    return spec


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


def watch_of(msg) -> tuple[str, object] | None:
    """The watch port of a group member or one-shot action as written (`watch` int32 or `watch_port` bytes), so
    that a read gives it back the same way, as PI does; None when none is set. (PI also turns off a member whose
    watched port goes down; rocelab's ports do not go down, so the member always stays in.)"""
    which = msg.WhichOneof("watch_kind")
    return None if which is None else (which, getattr(msg, which))


def set_watch(msg, watch: tuple[str, object] | None) -> None:
    if watch is not None:
        setattr(msg, watch[0], watch[1])


def counts(data) -> tuple[int, int]:
    """(packets, bytes) of a written CounterData. Its int64 counts may be negative on the wire; a counter holds
    none (BMv2's are unsigned and would read -1 back as 2^64-1), and one set to -5 took it and counted up from it."""
    for what, n in (("packet_count", data.packet_count), ("byte_count", data.byte_count)):
        if n < 0:
            raise invalid(f"counter data: {what} must not be negative, got {n}")
    return data.packet_count, data.byte_count
