"""RoCEv2 and PFC frames: layouts decode in scapy, ICRC verifies and survives ECN/TTL rewrites."""
from __future__ import annotations

import pytest

from traffic.pfc import build_pfc, ns_to_quanta, parse_pfc, quanta_to_ns, scapy_pfc

SRC = "02:00:00:00:00:01"


def test_pfc_build_matches_scapy_and_layout():
    quanta = [None, None, None, 0xFFFF, None, None, 7, None]
    frame = build_pfc(quanta, SRC)
    assert len(frame) == 60
    assert frame == scapy_pfc(quanta, SRC)
    assert frame[:6] == bytes.fromhex("0180c2000001")
    assert frame[6:12] == bytes.fromhex("020000000001")
    assert frame[12:14] == b"\x88\x08" and frame[14:16] == b"\x01\x01"
    assert frame[16:18] == bytes([0, 0b01001000])
    assert frame[18 + 2 * 3:18 + 2 * 4] == b"\xff\xff"
    assert frame[18 + 2 * 6:18 + 2 * 7] == b"\x00\x07"
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    from scapy.layers.l2 import Ether
    pkt = Ether(frame)
    cbfc = pkt[MACControlClassBasedFlowControl]
    assert cbfc.c3_enabled == 1 and cbfc.c3_pause_time == 0xFFFF and cbfc.c0_enabled == 0


def test_pfc_parse_round_trip_and_xon():
    assert parse_pfc(build_pfc([5, None, 0], SRC)) == {0: 5, 2: 0}
    assert parse_pfc(build_pfc([None] * 8, SRC)) == {}
    assert parse_pfc(build_pfc([1] * 8, bytes(6))) == {p: 1 for p in range(8)}
    not_pfc = bytearray(build_pfc([1], SRC))
    not_pfc[15] = 0x01
    not_pfc[14] = 0x00  # 802.3x PAUSE opcode 0x0001
    assert parse_pfc(bytes(not_pfc)) is None
    assert parse_pfc(b"\x00" * 12 + b"\x08\x00" + b"\x00" * 46) is None


def test_pfc_rejects_bad_input():
    with pytest.raises(ValueError):
        build_pfc([70000], SRC)
    with pytest.raises(ValueError):
        build_pfc([1] * 9, SRC)


def test_quanta_to_ns():
    assert quanta_to_ns(1000, 100_000_000_000) == 5120
    assert quanta_to_ns(1, 100e9) == 6  # 5.12 ns rounded up
    assert quanta_to_ns(0xFFFF, 10_000_000_000) == 0xFFFF * 512 // 10
    assert quanta_to_ns(0, 25e9) == 0
    assert ns_to_quanta(5120, 100e9) == 1000
    assert ns_to_quanta(10**9, 100e9) == 0xFFFF
