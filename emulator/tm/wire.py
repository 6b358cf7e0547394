"""What a frame costs on the wire: the bytes the MAC adds around it and its serialization time."""
from __future__ import annotations

WIRE_OVERHEAD_BYTES = 4 + 8 + 12  # FCS + preamble/SFD + IFG


def serialization_ns(length: int, rate_bps: int) -> int:
    """Wire time of a frame of `length` bytes (no FCS) at `rate_bps`, rounded up to whole ns."""
    return -(-(length + WIRE_OVERHEAD_BYTES) * 8_000_000_000 // rate_bps)
