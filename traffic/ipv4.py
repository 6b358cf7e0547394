"""The IPv4 header checksum (RFC 791/1071), kept free of scapy so that the switch's traffic manager can rewrite
a header (ECN marking) without loading the host stack."""
from __future__ import annotations

import struct

_H = struct.Struct("!H")


def fix_ipv4_checksum(b: bytearray, off: int, ihl: int = 20) -> None:
    """Recompute, in place, the checksum of the IPv4 header of `ihl` bytes at offset `off` of `b`."""
    b[off + 10] = b[off + 11] = 0
    s = sum(struct.unpack_from(f"!{ihl // 2}H", b, off))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    _H.pack_into(b, off + 10, ~s & 0xFFFF)
