"""DCQCN: reaction-point rate cuts, alpha, fast recovery / additive / hyper increase; notification-point pacing;
end to end through two NICs with CE marks."""
from __future__ import annotations

import math

import pytest

from emulator.errors import ConfigError
from traffic.dcqcn import DcqcnConfig, NotificationPoint, ReactionPoint, alpha_after_cnps, fast_recovery_rate
from traffic.frames import ECN_CE, Op, parse_roce, set_ecn
from traffic.loopback import Loopback
from traffic.nic import WIRE_OVERHEAD, Nic, NicConfig

LINE = 100e9
G = 1 / 256
US = 1000


def test_first_cnp_halves_rate_with_alpha_one():
    rp = ReactionPoint(LINE, DcqcnConfig())
    rp.on_cnp(0)
    assert rp.rt == LINE and rp.rc == LINE / 2
    assert rp.alpha == pytest.approx(1.0)  # (1-g)*1 + g
    assert rp.limited


def test_alpha_and_rate_after_k_cnps():
    cfg = DcqcnConfig(alpha_init=0.5)
    rp = ReactionPoint(LINE, cfg)
    rc, alpha = LINE, 0.5
    for k in range(1, 6):
        rp.on_cnp(k * US)  # closer than the 55 us timers: no decay, no increase in between
        rc *= 1 - alpha / 2
        alpha = (1 - G) * alpha + G
        assert rp.rc == pytest.approx(rc)
        assert rp.alpha == pytest.approx(alpha)
        assert rp.alpha == pytest.approx(alpha_after_cnps(k, G, 0.5))
    assert rp.rt == pytest.approx(rc / (1 - ((1 - G) ** 4 * 0.5 + 1 - (1 - G) ** 4) / 2))


def test_alpha_decays_every_55us_without_cnp():
    rp = ReactionPoint(LINE, DcqcnConfig(alpha_init=0.5))
    rp.on_cnp(0)
    a0 = rp.alpha
    rp.advance(54 * US)
    assert rp.alpha == a0
    rp.advance(55 * US)
    assert rp.alpha == pytest.approx(a0 * (1 - G))
    rp.advance(3 * 55 * US + 10)
    assert rp.alpha == pytest.approx(a0 * (1 - G) ** 3)
    rp.advance(1000 * 55 * US)  # long idle: closed form, no loop per period
    assert rp.alpha == pytest.approx(a0 * (1 - G) ** 1000)


def test_fast_recovery_then_additive_then_hyper_trajectory():
    cfg = DcqcnConfig(rate_ai=40e6, rate_hai=200e6, byte_counter=10**12)  # byte counter out of the way
    rp = ReactionPoint(LINE, cfg)
    rp.on_cnp(0)
    rc0, rt = rp.rc, rp.rt
    # F = 5 timer events of fast recovery: RC halves its distance to RT each time, RT fixed
    for k in range(1, 6):
        rp.advance(k * 55 * US)
        assert rp.t_count == k
        assert rp.rt == rt
        assert rp.rc == pytest.approx(fast_recovery_rate(rt, rc0, k))
    # event 6: timer count > F, byte count 0 <= F -> additive increase (RT capped at line rate)
    rc5 = rp.rc
    rp.advance(6 * 55 * US)
    assert rp.rt == min(rt + 40e6, LINE)
    assert rp.rc == pytest.approx((rp.rt + rc5) / 2)


def test_hyper_increase_when_both_stages_exceed_f():
    line = 40e9
    cfg = DcqcnConfig(rate_ai=40e6, rate_hai=200e6, byte_counter=1000, rate_increase_timer=10**15)
    rp = ReactionPoint(line, cfg)
    for t in range(5):  # cut deep so the increases below stay under line rate
        rp.on_cnp(t)
    rp.t_count = 7  # as if 7 timer periods had passed
    rt0 = rp.rt
    for _ in range(5):  # byte counter stages 1..5: additive (timer stage > F, byte stage <= F)
        rp.on_sent(1000, 10)
    assert rp.rt == pytest.approx(rt0 + 5 * 40e6)
    rc = rp.rc
    rt1 = rp.rt
    rp.on_sent(1000, 10)  # byte stage 6: both > F -> hyper increase with i = min(7, 6) - 5 = 1
    assert rp.rt == pytest.approx(rt1 + 200e6)
    assert rp.rc == pytest.approx((rp.rt + rc) / 2)
    rp.t_count = 8
    rt2 = rp.rt
    rp.on_sent(1000, 10)  # byte stage 7, timer stage 8: i = 2
    assert rp.rt == pytest.approx(rt2 + 2 * 200e6)


def test_byte_counter_triggers_increase():
    cfg = DcqcnConfig(byte_counter=10_000, rate_increase_timer=10**12)
    rp = ReactionPoint(LINE, cfg)
    rp.on_cnp(0)
    rc0 = rp.rc
    rp.on_sent(9_999, 1)
    assert rp.rc == rc0 and rp.bc_count == 0
    rp.on_sent(1, 2)
    assert rp.bc_count == 1 and rp.rc == pytest.approx((LINE + rc0) / 2)


def test_min_rate_clamp_and_release_at_line_rate():
    cfg = DcqcnConfig(min_rate=1e9)
    rp = ReactionPoint(LINE, cfg)
    for t in range(20):
        rp.on_cnp(t)
    assert rp.rc == 1e9
    # without further CNPs the rate climbs back; once at line rate the limiter is released
    rp.advance(10**9)
    assert rp.rc == LINE and not rp.limited and rp.next_event_ns() is None


def test_defaults_scale_with_line_rate():
    rp = ReactionPoint(40e9, DcqcnConfig())
    assert rp.rai == pytest.approx(40e6) and rp.rhai == pytest.approx(200e6)
    assert ReactionPoint(100e9, DcqcnConfig()).rai == pytest.approx(100e6)


def test_config_validation():
    with pytest.raises(ConfigError):
        DcqcnConfig(g=0).validate()
    with pytest.raises(ConfigError):
        DcqcnConfig(byte_counter=0).validate()


def test_notification_point_paces_cnps_50us():
    np_ = NotificationPoint(50 * US)
    times = [0, 10 * US, 49_999, 50 * US, 60 * US, 99 * US, 100 * US, 300 * US]
    sent = [t for t in times if np_.on_ce(t)]
    assert sent == [0, 50 * US, 100 * US, 300 * US]


def _pair(**dcqcn):
    dcqcn = {"enabled": True, **dcqcn}
    cfg = NicConfig(dcqcn=DcqcnConfig(**dcqcn))
    a = Nic("a", "02:00:00:00:00:01", "10.0.0.1", LINE, cfg)
    b = Nic("b", "02:00:00:00:00:02", "10.0.0.2", LINE, NicConfig(dcqcn=DcqcnConfig(**dcqcn)))
    qp = a.connect(b)
    return a, b, qp


def test_data_is_ect0_and_cnp_is_dscp48():
    a, b, qp = _pair()
    a.post_write(qp, 1024, 0)
    info = parse_roce(a.poll(0))
    assert info.ecn == 0b10 and info.tos >> 2 == 26


def test_end_to_end_ce_marks_trigger_paced_cnps_and_rate_cut():
    a, b, qp = _pair()
    marked = []

    def mark_all(nic, frame, now):
        info = parse_roce(frame)
        if nic is a and info.opcode not in (Op.ACK, Op.CNP):
            marked.append(now)
            return set_ecn(frame, ECN_CE)
        return frame
    msg = a.post_write(qp, 2_000_000, 0)
    lb = Loopback(a, b, delay_ns=1000, fault=mark_all)
    lb.run()
    assert msg.done
    cnps = [d for d in lb.log if d.src == "b" and parse_roce(d.frame).opcode == Op.CNP]
    assert len(cnps) == b.stats.cnps_sent == a.stats.cnps_received >= 2
    gaps = [y.time_ns - x.time_ns for x, y in zip(cnps, cnps[1:])]
    assert min(gaps) >= 50 * US - 100  # <= 1 per 50 us (arrival jitter of one frame time)
    cnp = parse_roce(cnps[0].frame)
    assert cnp.dqpn == qp.qpn and cnp.becn == 1 and cnp.tos >> 2 == 48 and cnp.ecn == 0
    assert qp.rp.cnps == len(cnps)
    # paced below line rate: the transfer takes longer than at line rate
    line_time = 2_000_000 / 1024 * (1024 + 58 + WIRE_OVERHEAD) * 8 / 100
    assert msg.fct_ns > 1.5 * line_time


def test_rate_limiter_spaces_frames_at_current_rate():
    a, b, qp = _pair()
    a.post_write(qp, 20 * 1024, 0)
    qp.rp.on_cnp(0)  # alpha 1 -> 50 Gb/s
    qp.rp.on_cnp(0)  # -> 25 Gb/s
    assert qp.rp.rc == pytest.approx(25e9)
    f1 = a.poll(0)
    assert f1 is not None
    gap = (len(f1) + WIRE_OVERHEAD) * 8 / 25  # ns at 25 Gb/s
    assert a.poll(int(gap) - 1) is None
    assert a.next_wakeup(10) == math.ceil(gap)
    assert a.poll(math.ceil(gap)) is not None


def test_dcqcn_disabled_means_no_ecn_no_cnp():
    cfg = NicConfig(dcqcn=DcqcnConfig(enabled=False))
    a = Nic("a", "02:00:00:00:00:01", "10.0.0.1", LINE, cfg)
    b = Nic("b", "02:00:00:00:00:02", "10.0.0.2", LINE, NicConfig(dcqcn=DcqcnConfig(enabled=False)))
    qp = a.connect(b)
    a.post_write(qp, 1024, 0)
    frame = a.poll(0)
    assert parse_roce(frame).ecn == 0
    b.receive(set_ecn(frame, ECN_CE), 10)
    assert b.stats.ce_received == 1 and b.stats.cnps_sent == 0
    assert qp.rp is None
