"""IEEE 802.1Qbb priority flow control (PFC) frames: build, parse, pause-quanta conversion.

Layout (60 bytes without FCS): dst 01:80:c2:00:00:01 | src | EtherType 0x8808 | opcode 0x0101 |
class-enable vector (0x00, e[7:0], bit i = priority i) | eight 16-bit pause times, priority 0 first | zero padding.
One quantum is 512 bit times; a time of 0 for an enabled class means resume (XON).

The layout is taken from scapy's `MACControlClassBasedFlowControl` once (tests check both agree);
building and parsing per frame use `struct` because switches and NICs do it on the hot path.
"""
from __future__ import annotations

import math
import struct
from collections.abc import Sequence

PFC_DST_MAC = bytes.fromhex("0180c2000001")
MAC_CONTROL_ETHERTYPE = 0x8808
PFC_OPCODE = 0x0101
PFC_FRAME_LEN = 60  # minimum Ethernet frame (64) minus the 4-byte FCS the engine accounts for
QUANTUM_BITS = 512
MAX_QUANTA = 0xFFFF
NUM_PRIORITIES = 8

_BODY = struct.Struct("!HHH8H")  # ethertype, opcode, class-enable vector, 8 pause times
_HEAD = struct.Struct("!HH")  # ethertype, opcode (what parse checks first)
_BODY_OFF = 12
_PAD = bytes(PFC_FRAME_LEN - 14 - 20)


def mac_bytes(mac: str | bytes) -> bytes:
    """'aa:bb:cc:dd:ee:ff' (or '-' separated, or 6 raw bytes) -> 6 bytes."""
    if isinstance(mac, (bytes, bytearray)):
        if len(mac) != 6:
            raise ValueError(f"MAC address must be 6 bytes, got {len(mac)}")
        return bytes(mac)
    digits = mac.replace(":", "").replace("-", "")
    if len(digits) != 12:
        raise ValueError(f"bad MAC address {mac!r}")
    return bytes.fromhex(digits)


def build_pfc(pause_quanta: Sequence[int | None], src_mac: str | bytes) -> bytes:
    """A PFC frame pausing each priority i for pause_quanta[i] quanta (None or absent: class not enabled).

    A quanta of 0 with the class enabled is an XON (resume now).
    """
    if len(pause_quanta) > NUM_PRIORITIES:
        raise ValueError(f"PFC has {NUM_PRIORITIES} priorities, got {len(pause_quanta)} pause times")
    enable = 0
    times = [0] * NUM_PRIORITIES
    for prio, q in enumerate(pause_quanta):
        if q is None:
            continue
        if not 0 <= q <= MAX_QUANTA:
            raise ValueError(f"PFC pause time for priority {prio} out of range 0..65535: {q}")
        enable |= 1 << prio
        times[prio] = q
    return (PFC_DST_MAC + mac_bytes(src_mac)
            + _BODY.pack(MAC_CONTROL_ETHERTYPE, PFC_OPCODE, enable, *times) + _PAD)


def is_pfc(frame: bytes) -> bool:
    """True if frame is an (untagged) MAC control frame with the class-based flow control opcode."""
    return (len(frame) >= 34 and frame[12] == 0x88 and frame[13] == 0x08
            and frame[14] == 0x01 and frame[15] == 0x01)


def parse_pfc(frame: bytes) -> dict[int, int] | None:
    """{priority: pause quanta} for the enabled classes of a PFC frame; None if frame is not PFC."""
    if not is_pfc(frame):
        return None
    _, _, enable, *times = _BODY.unpack_from(frame, _BODY_OFF)
    return {prio: times[prio] for prio in range(NUM_PRIORITIES) if enable >> prio & 1}


def quanta_to_ns(quanta: int, rate_bps: int | float) -> int:
    """Pause duration of `quanta` quanta (512 bit times each) at rate_bps, rounded up to whole ns."""
    if rate_bps <= 0:
        raise ValueError(f"link rate must be positive, got {rate_bps}")
    if isinstance(rate_bps, float) and rate_bps.is_integer():
        rate_bps = int(rate_bps)  # 100e9 from YAML: keep the arithmetic exact
    num = quanta * QUANTUM_BITS * 1_000_000_000
    if isinstance(rate_bps, int):
        return -(-num // rate_bps)
    return math.ceil(num / rate_bps)


def ns_to_quanta(ns: int, rate_bps: int | float) -> int:
    """Smallest quanta count covering `ns` at rate_bps, clamped to the 16-bit field."""
    q = -(-int(ns * rate_bps) // (QUANTUM_BITS * 1_000_000_000))  # ceil
    return min(max(q, 0), MAX_QUANTA)


def scapy_pfc(pause_quanta: Sequence[int | None], src_mac: str | bytes) -> bytes:
    """The same frame built with scapy's MAC control layer (reference for tests and pcaps)."""
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    from scapy.layers.l2 import Ether

    fields = {}
    for prio, q in enumerate(pause_quanta):
        if q is not None:
            fields[f"c{prio}_enabled"] = 1
            fields[f"c{prio}_pause_time"] = q
    src = mac_bytes(src_mac).hex(":")
    pkt = Ether(dst="01:80:c2:00:00:01", src=src, type=MAC_CONTROL_ETHERTYPE) / \
        MACControlClassBasedFlowControl(**fields)
    return bytes(pkt)
