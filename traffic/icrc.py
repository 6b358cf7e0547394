"""RoCEv2 invariant CRC (ICRC) over IPv4.

CRC-32 (the zlib/Ethernet polynomial) over: 8 bytes of 0xFF (standing in for the InfiniBand LRH), the IPv4 header
with TOS, TTL and header checksum set to all ones, the UDP header with its checksum set to 0xFFFF, the BTH with its
FECN/BECN/reserved byte set to 0xFF, and everything after the BTH up to the ICRC. The result is sent least
significant byte first. Masking the fields routers rewrite (ECN/DSCP, TTL, checksum) keeps the ICRC valid end to end.
"""
from __future__ import annotations

import struct
import zlib

ETH_HLEN = 14
_ICRC = struct.Struct("<I")
_FF8 = b"\xff" * 8
_FF8_CRC = zlib.crc32(_FF8)  # the pseudo-LRH is constant: start the CRC from its value


def _masked_headers(frame: bytes | bytearray, l3_off: int) -> tuple[bytearray, int]:
    """Pseudo-LRH + IP + UDP + BTH with the variant fields set to ones, and where the BTH ends in frame."""
    ihl = (frame[l3_off] & 0x0F) * 4
    hdr_end = l3_off + ihl + 8 + 12
    buf = bytearray(_FF8)
    buf += frame[l3_off:hdr_end]
    ip = 8
    buf[ip + 1] = 0xFF  # TOS (DSCP + ECN)
    buf[ip + 8] = 0xFF  # TTL
    buf[ip + 10] = 0xFF  # header checksum
    buf[ip + 11] = 0xFF
    udp = ip + ihl
    buf[udp + 6] = 0xFF  # UDP checksum
    buf[udp + 7] = 0xFF
    buf[udp + 8 + 4] = 0xFF  # BTH byte 4: FECN, BECN, reserved
    return buf, hdr_end


def compute_icrc(frame: bytes | bytearray, l3_off: int = ETH_HLEN, end: int | None = None) -> int:
    """ICRC of a RoCEv2/IPv4 frame whose covered bytes end at `end` (default: frame end minus the 4 ICRC bytes)."""
    if end is None:
        end = len(frame) - 4
    hdr, hdr_end = _masked_headers(frame, l3_off)
    # the payload is covered as is: CRC it in place instead of copying it
    return zlib.crc32(memoryview(frame)[hdr_end:end], zlib.crc32(hdr)) & 0xFFFFFFFF


def icrc_bytes(value: int) -> bytes:
    """The 4 ICRC bytes as they appear on the wire (least significant byte first)."""
    return _ICRC.pack(value)


def frame_icrc(frame: bytes | bytearray) -> int:
    """The ICRC value carried in the last 4 bytes of a frame (no FCS)."""
    return _ICRC.unpack_from(frame, len(frame) - 4)[0]


def verify_icrc(frame: bytes | bytearray, l3_off: int = ETH_HLEN) -> bool:
    """True if the ICRC at the end of the IP datagram matches its contents (Ethernet padding is ignored)."""
    if len(frame) < l3_off + 20 + 8 + 12 + 4:
        return False
    end = l3_off + ((frame[l3_off + 2] << 8) | frame[l3_off + 3]) - 4
    if end + 4 > len(frame):
        return False
    if l3_off == ETH_HLEN and frame[l3_off] & 0x0F == 5:
        return icrc_ok_ipv4(frame, end)
    return compute_icrc(frame, l3_off, end) == _ICRC.unpack_from(frame, end)[0]


def icrc_ok_ipv4(frame: bytes | bytearray, end: int) -> bool:
    """verify_icrc for an untagged frame with a 20-byte IPv4 header whose ICRC is at `end` (the caller checked
    len(frame) >= end + 4 and >= 58). The receive fast path: the same bytes as _masked_headers, built with one
    copy and the masked offsets written directly, and the constant pseudo-LRH folded into the CRC's start value."""
    m = bytearray(frame[14:54])
    m[1] = m[8] = m[10] = m[11] = m[26] = m[27] = m[32] = 0xFF  # TOS, TTL, IP checksum, UDP checksum, BTH byte 4
    return zlib.crc32(memoryview(frame)[54:end], zlib.crc32(m, _FF8_CRC)) == _ICRC.unpack_from(frame, end)[0]
