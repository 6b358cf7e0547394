"""PFC in the switch MAC: XOFF/refresh/XON generation, headroom, and pauses received on egress."""
from __future__ import annotations

from emulator.sim.fakes import FakeJob
from emulator.tm import PfcConfig, TmConfig, TrafficManager
from emulator.tm.datapath import default_mac, pfc_frame, receive_pfc
from traffic.pfc import build_pfc, parse_pfc

G100 = 100_000_000_000
PAUSE_NS_100G = 335_540  # ceil(65535 x 512 / 100e9 s) in ns


def job(port: int, prio: int, length: int = 1000) -> FakeJob:
    return FakeJob(port, prio, length, b"")


class Recorder:
    def __init__(self):
        self.kicks: list[int] = []
        self.pauses: list[tuple] = []


def make_tm(pfc: PfcConfig, **kw) -> tuple[TrafficManager, Recorder]:
    rec = Recorder()
    tm = TrafficManager(TmConfig(pfc=pfc, **kw), kick=rec.kicks.append,
                        on_pause=lambda *a: rec.pauses.append(a))
    for p in range(4):
        tm.add_port(p, G100, 1000)
    return tm, rec


def static_pfc(**kw) -> PfcConfig:
    args = dict(enabled=True, priorities=(3,), xoff_bytes=10_000, xon_bytes=5_000, headroom_bytes=20_000)
    args.update(kw)
    return PfcConfig(**args)


def test_xoff_sends_well_formed_pfc_from_the_ingress_port():
    tm, rec = make_tm(static_pfc())
    for _i in range(9):
        assert tm.enqueue(job(2, 3), 1, 0)
        assert tm.pop_ctrl(1) is None
    assert tm.enqueue(job(2, 3), 1, 0)  # 10,000 bytes buffered from port 1: XOFF
    request = tm.pop_ctrl(1)
    assert request == (3, 0xFFFF) and tm.pop_ctrl(1) is None
    frame = pfc_frame(request, default_mac(1))  # what the MAC sends for it
    assert len(frame) == 60
    assert frame[:6] == bytes.fromhex("0180c2000001") and frame[6:12] == default_mac(1)
    assert frame[12:16] == bytes.fromhex("88080101")
    assert frame[16:18] == b"\x00\x08"  # class-enable vector: priority 3 only
    assert parse_pfc(frame) == {3: 0xFFFF}
    assert all(tm.pop_ctrl(p) is None for p in (0, 2, 3))
    assert rec.kicks == [1]
    assert rec.pauses == [(0, 1, 3, True, "tx")]
    assert tm.ports[1].stats.pause_sent[3] == 1


def test_scapy_decodes_the_switch_pfc_frame():
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    from scapy.layers.l2 import Ether

    tm, _ = make_tm(static_pfc())
    for _ in range(10):
        tm.enqueue(job(2, 3), 1, 0)
    pkt = Ether(pfc_frame(tm.pop_ctrl(1), default_mac(1)))
    layer = pkt[MACControlClassBasedFlowControl]
    assert layer.c3_enabled == 1 and layer.c3_pause_time == 0xFFFF and layer.c0_enabled == 0


def test_lossy_priority_never_pauses():
    tm, rec = make_tm(static_pfc())
    for _ in range(50):
        tm.enqueue(job(2, 0), 1, 0)
    assert tm.pop_ctrl(1) is None and rec.pauses == []


def test_refresh_at_half_pause_time_then_xon_resume():
    tm, rec = make_tm(static_pfc())
    for _ in range(12):
        tm.enqueue(job(2, 3), 1, 0)
    assert tm.pop_ctrl(1) == (3, 0xFFFF)
    assert tm.next_timer() == PAUSE_NS_100G // 2
    tm.advance(PAUSE_NS_100G // 2 - 1)
    assert tm.pop_ctrl(1) is None
    tm.advance(PAUSE_NS_100G // 2)
    assert tm.pop_ctrl(1) == (3, 0xFFFF)  # still above XON: refreshed
    assert tm.next_timer() == PAUSE_NS_100G // 2 * 2
    # drain to XON (5,000 bytes): 12,000 -> 5,000 after 7 dequeues
    for _i in range(6):
        tm.dequeue(2, 200_000)
        assert tm.pop_ctrl(1) is None
    tm.dequeue(2, 200_000)
    assert tm.pop_ctrl(1) == (3, 0)
    assert tm.ports[1].stats.pause_sent[3] == 2 and tm.ports[1].stats.resume_sent[3] == 1
    assert rec.pauses[-1] == (200_000, 1, 3, False, "tx")
    assert tm.snapshot(300_000)["ports"][1]["xoff_ns"][3] == 200_000
    tm.advance(10**9)  # the stale refresh timer does nothing
    assert tm.pop_ctrl(1) is None


def test_dynamic_xoff_at_alpha_times_free_and_xon_below_it():
    tm, _ = make_tm(PfcConfig(enabled=True, priorities=(3,), alpha=1 / 8, headroom_bytes=50_000,
                              xon_offset_bytes=3000), buffer_bytes=1_000_000, reserved_bytes=0)
    shared = tm.buffer.shared_size
    n = 0
    while tm.pop_ctrl(1) is None:
        assert tm.enqueue(job(2, 3), 1, 0)
        n += 1
    # XOFF once shared use >= alpha x free
    used = n * 1000
    assert used >= (shared - used) / 8 and (used - 1000) < (shared - used + 1000) / 8
    for _ in range(n - 2):
        tm.dequeue(2, 1000)  # release below XON: pause time 0 at once
    assert tm.pop_ctrl(1) == (3, 0)


def test_headroom_absorbs_in_flight_and_overflow_is_counted():
    tm, _ = make_tm(static_pfc(xoff_bytes=10_000, headroom_bytes=5_000), buffer_bytes=10_000_000)
    results = [tm.enqueue(job(2, 3), 1, 0) for _ in range(20)]
    # 10 packets before XOFF, 5 absorbed by headroom, the rest overflow
    assert results == [True] * 15 + [False] * 5
    stats = tm.ports[1].stats
    assert stats.headroom_drops[3] == 5 and stats.max_headroom_bytes[3] == 5000
    assert tm.ports[2].stats.drops[3] == 0  # never a tail drop on the lossless class
    assert tm.ingress[1].hdrm[3] == 5000
    for _ in range(15):
        tm.dequeue(2, 0)
    assert tm.ingress[1].hdrm[3] == 0 and tm.ingress[1].occ[3] == 0


def test_lossless_traffic_uses_headroom_instead_of_tail_drop_when_buffer_is_full():
    # a tiny shared pool: lossy traffic would be tail-dropped; lossless goes to headroom and pauses
    tm, _ = make_tm(static_pfc(xoff_bytes=100_000, headroom_bytes=8_000),
                    buffer_bytes=4 * 8 * 0 + 4 * 8_000 + 3_000, reserved_bytes=0)
    assert tm.buffer.shared_size == 3000
    ok = [tm.enqueue(job(2, 3), 1, 0) for _ in range(12)]
    assert ok == [True] * 11 + [False]
    assert tm.pop_ctrl(1) == (3, 0xFFFF)
    assert tm.ports[1].stats.headroom_drops[3] == 1


def test_default_headroom_from_link_rate_and_delay():
    tm, _ = make_tm(PfcConfig(enabled=True, priorities=(3, 4)))
    # 3 x 100 Gb/s x 1 us = 37,500 bytes + 2 MTU
    assert tm.ingress[0].hdrm_cap == [0, 0, 0, 40_500, 40_500, 0, 0, 0]
    assert tm.buffer.headroom_total == 4 * 2 * 40_500


def test_received_pause_stops_only_that_priority_for_the_right_time():
    tm, rec = make_tm(static_pfc())
    tm.enqueue(job(2, 3), 0, 0)
    tm.enqueue(job(2, 1), 0, 0)
    quanta = 100  # 100 x 512 bits at 100 Gb/s = 512 ns
    assert receive_pfc(tm, 2, build_pfc([None, None, None, quanta], b"\x02" * 6), 1000)
    assert tm.ports[2].stats.pause_recv[3] == 1
    got = tm.dequeue(2, 1000)
    assert got[0].priority == 1  # priority 3 is higher but paused
    assert tm.dequeue(2, 1511) is None
    assert tm.has_work(2, 1511) is False and tm.has_work(2, 1512) is True
    assert tm.next_timer() == 1512
    tm.advance(1512)
    assert rec.kicks == [2]
    assert tm.dequeue(2, 1512)[0].priority == 3
    assert tm.snapshot(5000)["ports"][2]["paused_ns"][3] == 512
    assert (1000, 2, 3, True, "rx") in rec.pauses and (1512, 2, 3, False, "rx") in rec.pauses


def test_pause_refresh_extends_and_zero_resumes():
    tm, rec = make_tm(static_pfc())
    src = b"\x02" * 6
    receive_pfc(tm, 2, build_pfc([None, None, None, 0xFFFF], src), 0)
    receive_pfc(tm, 2, build_pfc([None, None, None, 0xFFFF], src), 100_000)  # refresh
    assert tm.ports[2].paused_until[3] == 100_000 + PAUSE_NS_100G
    tm.advance(PAUSE_NS_100G)  # the first expiry timer is stale
    assert tm.ports[2].is_paused(3, PAUSE_NS_100G)
    receive_pfc(tm, 2, build_pfc([None, None, None, 0], src), 200_000)
    assert not tm.ports[2].is_paused(3, 200_000)
    assert rec.kicks[-1] == 2
    assert tm.ports[2].paused_ns(3, 10**9) == 200_000
    # pausing other rates: quanta are bit times of the receiving port
    tm.add_port(5, 25_000_000_000)
    receive_pfc(tm, 5, build_pfc([10], src), 0)
    assert tm.ports[5].paused_until[0] == 205  # 10 x 512 / 25e9 s = 204.8 ns -> 205


def test_non_pfc_mac_control_is_not_consumed_as_pfc():
    tm, _ = make_tm(static_pfc())
    pause_8023x = bytes.fromhex("0180c2000001") + b"\x02" * 6 + bytes.fromhex("88080001ffff") + bytes(42)
    assert receive_pfc(tm, 1, pause_8023x, 0) is False
    assert tm.ports[1].stats.pause_recv == [0] * 8


def test_headroom_drains_first_and_xon_waits_for_it():
    tm, _ = make_tm(static_pfc(xoff_bytes=4_000, xon_bytes=3_000, headroom_bytes=10_000),
                    buffer_bytes=10_000_000, reserved_bytes=0)
    for _ in range(8):
        assert tm.enqueue(job(2, 3), 1, 0)
    ing = tm.ingress[1]
    assert tm.pop_ctrl(1) == (3, 0xFFFF)
    assert (ing.shared[3], ing.hdrm[3], ing.occ[3]) == (4000, 4000, 8000)
    for expected_hdrm in (3000, 2000, 1000, 0):
        tm.dequeue(2, 0)
        assert ing.hdrm[3] == expected_hdrm and ing.shared[3] == 4000
        assert tm.pop_ctrl(1) is None  # occupancy still above XON
    tm.dequeue(2, 0)
    assert (ing.shared[3], ing.occ[3]) == (3000, 3000)
    assert tm.pop_ctrl(1) == (3, 0)
    assert tm.buffer.shared_used == 3000


def test_dwrr_skips_a_paused_priority_without_banking_credit():
    from emulator.tm import SchedulerConfig

    tm, _ = make_tm(static_pfc(), scheduler=SchedulerConfig("dwrr", (1, 1, 1, 1, 1, 1, 1, 1), 1000),
                    buffer_bytes=10_000_000)
    for _ in range(20):
        tm.enqueue(job(2, 3), 0, 0)
        tm.enqueue(job(2, 1), 0, 0)
    receive_pfc(tm, 2, build_pfc([None, None, None, 10], b"\x02" * 6), 0)  # 10 quanta = 52 ns at 100G
    assert [tm.dequeue(2, 10)[0].priority for _ in range(4)] == [1, 1, 1, 1]
    # after the pause the two classes alternate again (no burst of priority 3 from saved-up credit)
    assert [tm.dequeue(2, 100)[0].priority for _ in range(6)] == [3, 1, 3, 1, 3, 1]


def test_the_mac_turns_requests_into_frames_and_frames_into_pauses():
    from emulator.sim.fakes import FakeSwitch, fake_frame
    from emulator.tm.datapath import Datapath

    woken, deferred = [], []
    dp = Datapath(FakeSwitch(), TmConfig(pfc=static_pfc()), wake=lambda port, now: woken.append(port),
                  defer=lambda at, fn, arg: deferred.append((at, fn, arg)), now=lambda: 0,
                  mac_of=lambda port: bytes((2, 9, 9, 9, 9, port)))
    for p in range(3):
        dp.add_port(p, G100, 1000)
    for i in range(10):  # 10,000 bytes of priority 3 in from port 1, for port 2: XOFF out of port 1
        dp.receive(1, fake_frame(2, 3, 1000, seq=i), 0)
    assert dp.tm.ports[1].ctrl  # the TM asked for a pause frame; the MAC builds it, ahead of any data
    frame = dp.next_frame(1, 0)
    assert frame[6:12] == bytes((2, 9, 9, 9, 9, 1)) and parse_pfc(frame) == {3: 0xFFFF}
    assert dp.next_frame(1, 0) is None
    # a pause received on port 2 holds its priority-3 queue for 100 quanta = 512 ns at 100 Gb/s
    dp.receive(2, build_pfc([None, None, None, 100], b"\x02" * 6), 0)
    assert dp.next_frame(2, 511) is None and dp.tm.ports[2].paused_until[3] == 512
    assert dp.next_frame(2, 512) is not None
    pause_8023x = bytes.fromhex("0180c2000001") + b"\x02" * 6 + bytes.fromhex("88080001ffff") + bytes(42)
    dp.receive(2, pause_8023x, 600)
    assert dp.mac_ctrl_ignored == 1
