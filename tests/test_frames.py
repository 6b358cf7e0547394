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


# --- RoCEv2 ---------------------------------------------------------------------------------------------------

from scapy.contrib.roce import AETH, BTH, CNPPadding  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from traffic.frames import (  # noqa: E402
    AETH_ACK,
    NAK_PSN_SEQ_ERROR,
    RETH,
    FlowAddr,
    FrameBuilder,
    Op,
    parse_roce,
    rocev2_sport,
    scapy_frame,
    set_ecn,
    set_ttl,
    tos,
)
from traffic.icrc import compute_icrc, frame_icrc, verify_icrc  # noqa: E402

ADDR = FlowAddr.make("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2",
                     rocev2_sport(0x111, 0x222), 0x222)


def _builder():
    return FrameBuilder(ADDR, data_tos=tos(26, 0b10), ack_tos=tos(26, 0), cnp_tos=tos(48, 0))


def test_sport_formula_values():
    # hand-computed from the Linux formula
    fl = 0x111 * 0x222
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl &= 0xFFFFF
    assert rocev2_sport(0x111, 0x222) == ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000
    assert rocev2_sport(1, 1) == 0xC001
    assert rocev2_sport(0, 5) == 0xC000
    # 0x4000 * 1: bit 14 folds down onto bit 0
    assert rocev2_sport(0x4000, 1) == 0xC001
    assert rocev2_sport(0xFFFFFF, 0xFFFFFF) & 0xC000 == 0xC000


def test_data_frame_decodes_in_scapy_with_icrc():
    b = _builder()
    frame = b.data(Op.WRITE_FIRST, psn=0xFFFFFE, payload_len=1024, ip_id=77, ackreq=False,
                   va=0x1000_0000_2000, rkey=0xABCD, dma_len=5000)
    assert len(frame) == 14 + 20 + 8 + 12 + 16 + 1024 + 4
    pkt = Ether(frame)
    assert pkt[IP].tos == (26 << 2) | 2 and pkt[IP].id == 77 and pkt[IP].ttl == 64 and pkt[IP].flags == "DF"
    assert pkt[UDP].dport == 4791 and pkt[UDP].sport == ADDR.sport and pkt[UDP].chksum == 0
    bth = pkt[BTH]
    assert bth.opcode == 0x06 and bth.psn == 0xFFFFFE and bth.dqpn == 0x222 and bth.pkey == 0xFFFF
    assert bth.ackreq == 0 and bth.padcount == 0
    reth = pkt[RETH]
    assert (reth.va, reth.rkey, reth.dlen) == (0x1000_0000_2000, 0xABCD, 5000)
    # IP checksum valid: the one's-complement sum of the header is 0xFFFF
    words = [int.from_bytes(frame[14 + i:16 + i], "big") for i in range(0, 20, 2)]
    total = sum(words)
    assert (total & 0xFFFF) + (total >> 16) == 0xFFFF
    assert verify_icrc(frame)
    # scapy's own BTH ICRC computation agrees with ours
    scapy_icrc = Ether(bytes(scapy_frame(ADDR, Op.WRITE_FIRST, 0xFFFFFE, 1024, tos_byte=(26 << 2) | 2, ip_id=77,
                                         va=0x1000_0000_2000, rkey=0xABCD, dma_len=5000)))[BTH].icrc
    assert bth.icrc == scapy_icrc


def test_all_data_opcodes_and_padding():
    b = _builder()
    for op in (Op.WRITE_MIDDLE, Op.WRITE_LAST, Op.WRITE_ONLY, Op.SEND_FIRST, Op.SEND_MIDDLE, Op.SEND_LAST,
               Op.SEND_ONLY):
        frame = b.data(op, psn=5, payload_len=1023, ip_id=1, ackreq=op in (Op.WRITE_LAST, Op.SEND_LAST))
        pkt = Ether(frame)
        assert pkt[BTH].opcode == op and pkt[BTH].padcount == 1
        assert verify_icrc(frame)
        info = parse_roce(frame)
        assert info.opcode == op and info.psn == 5 and info.payload_len == 1023 and info.dqpn == 0x222
        assert info.ackreq == (op in (Op.WRITE_LAST, Op.SEND_LAST))
        assert (RETH in pkt) == (op == Op.WRITE_ONLY)


def test_ack_and_nak_frames():
    b = _builder()
    ack = b.ack(psn=0x123456, syndrome=AETH_ACK, msn=9, ip_id=3)
    pkt = Ether(ack)
    assert pkt[BTH].opcode == 0x11 and pkt[BTH].psn == 0x123456
    assert pkt[AETH].syndrome == AETH_ACK and pkt[AETH].msn == 9
    assert pkt[IP].tos == 26 << 2
    assert verify_icrc(ack)
    nak = b.ack(psn=42, syndrome=NAK_PSN_SEQ_ERROR, msn=1, ip_id=4)
    info = parse_roce(nak)
    assert (info.opcode, info.psn, info.syndrome, info.msn, info.payload_len) == (0x11, 42, 0x60, 1, 0)
    assert Ether(nak)[AETH].syndrome == 0x60 and verify_icrc(nak)


def test_cnp_layout():
    b = _builder()
    frame = b.cnp(ip_id=5)
    assert len(frame) == 14 + 20 + 8 + 12 + 16 + 4
    pkt = Ether(frame)
    assert pkt[BTH].opcode == 0x81 and pkt[BTH].becn == 1 and pkt[BTH].dqpn == 0x222
    assert CNPPadding in pkt and pkt[CNPPadding].reserved1 == 0 and pkt[CNPPadding].reserved2 == 0
    assert pkt[IP].tos == 48 << 2
    assert verify_icrc(frame)
    info = parse_roce(frame)
    assert info.opcode == 0x81 and info.becn == 1


def test_icrc_survives_ecn_and_ttl_rewrite_but_not_payload_change():
    frame = _builder().data(Op.WRITE_MIDDLE, psn=1, payload_len=256, ip_id=9)
    marked = set_ttl(set_ecn(frame, 0b11), 12)
    assert marked != frame
    assert Ether(marked)[IP].tos & 3 == 3 and Ether(marked)[IP].ttl == 12
    assert verify_icrc(marked)
    assert parse_roce(marked).ecn == 3
    bad = bytearray(frame)
    bad[-10] ^= 1
    assert not verify_icrc(bytes(bad))
    bad = bytearray(frame)
    bad[18] ^= 1  # IP id is covered
    assert not verify_icrc(bytes(bad))


def test_icrc_matches_scapy_for_varied_fields():
    b = _builder()
    for psn, ip_id, n in ((0, 0, 4), (0xFFFFFF, 0xFFFF, 1024), (77, 1234, 3)):
        frame = b.data(Op.SEND_ONLY, psn=psn, payload_len=n, ip_id=ip_id, ackreq=True)
        ref = bytes(scapy_frame(ADDR, Op.SEND_ONLY, psn, n, tos_byte=(26 << 2) | 2, ip_id=ip_id, ackreq=True))
        assert frame == ref
        assert compute_icrc(frame) == frame_icrc(frame)


def test_reth_round_trip():
    raw = bytes(RETH(va=0xDEADBEEF01, rkey=7, dlen=65536))
    assert len(raw) == 16
    back = RETH(raw)
    assert (back.va, back.rkey, back.dlen) == (0xDEADBEEF01, 7, 65536)


def test_parse_rejects_non_roce():
    frame = bytearray(_builder().data(Op.WRITE_ONLY, psn=1, payload_len=8, ip_id=1))
    frame[36:38] = (4792).to_bytes(2, "big")  # UDP dport
    assert parse_roce(bytes(frame)) is None
    assert parse_roce(b"\x00" * 30) is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(op=st.sampled_from([Op.WRITE_FIRST, Op.WRITE_MIDDLE, Op.WRITE_LAST, Op.WRITE_ONLY, Op.SEND_FIRST,
                           Op.SEND_ONLY, Op.SEND_LAST]),
       psn=st.integers(0, 0xFFFFFF), plen=st.integers(0, 4096), ip_id=st.integers(0, 0xFFFF),
       ackreq=st.booleans(), dma_len=st.integers(0, 1 << 31), lq=st.integers(1, 0xFFFFFF),
       rq=st.integers(1, 0xFFFFFF), ecn=st.integers(0, 3), ttl=st.integers(1, 255))
def test_builder_parser_and_scapy_agree(op, psn, plen, ip_id, ackreq, dma_len, lq, rq, ecn, ttl):
    addr = FlowAddr.make("02:00:00:00:00:01", "02:00:00:00:00:02", "10.1.2.3", "10.4.5.6", rocev2_sport(lq, rq), rq)
    b = FrameBuilder(addr, data_tos=tos(26, 2), ack_tos=0, cnp_tos=0)
    frame = b.data(op, psn, plen, ip_id, ackreq, va=0, rkey=lq, dma_len=dma_len)
    ref = bytes(scapy_frame(addr, op, psn, plen, tos_byte=tos(26, 2), ip_id=ip_id, ackreq=ackreq, rkey=lq,
                            dma_len=dma_len))
    assert frame == ref
    rewritten = set_ttl(set_ecn(frame, ecn), ttl)
    assert verify_icrc(rewritten)
    info = parse_roce(rewritten)
    assert (info.opcode, info.psn, info.ackreq, info.dqpn, info.ecn, info.payload_len) == \
        (op, psn, int(ackreq), rq, ecn, plen)
    if op in (Op.WRITE_FIRST, Op.WRITE_ONLY):
        assert info.dma_len == dma_len == Ether(frame)[RETH].dlen
    assert Ether(frame)[UDP].sport == rocev2_sport(lq, rq)
