"""Traffic manager: scheduling, queue depths reported to egress, shared buffer with dynamic thresholds."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import ConfigError
from emulator.sim.fakes import FakeJob
from emulator.tm import PfcConfig, SchedulerConfig, TmConfig, TrafficManager
from emulator.tm.datapath import receive_pfc
from traffic.pfc import build_pfc

G100 = 100_000_000_000


def job(port: int, prio: int, length: int = 1000, tag: int = 0) -> FakeJob:
    return FakeJob(port, prio, length, tag.to_bytes(4, "big"))


def make_tm(**kw) -> TrafficManager:
    tm = TrafficManager(TmConfig(**kw))
    for p in range(4):
        tm.add_port(p, G100, 1000)
    return tm


def drain(tm: TrafficManager, port: int, now: int = 0) -> list[FakeJob]:
    out = []
    while (got := tm.dequeue(port, now)) is not None:
        out.append(got[0])
    return out


def test_strict_priority_highest_first_fifo_within():
    tm = make_tm()
    order = [(0, 1), (7, 2), (3, 3), (7, 4), (0, 5), (3, 6)]
    for prio, tag in order:
        assert tm.enqueue(job(1, prio, tag=tag), 0, 0)
    got = [(j.priority, int.from_bytes(j.data, "big")) for j in drain(tm, 1)]
    assert got == [(7, 2), (7, 4), (3, 3), (3, 6), (0, 1), (0, 5)]
    assert tm.dequeue(1, 0) is None


def test_dwrr_shares_bytes_by_weight():
    weights = (1, 3, 1, 1, 1, 1, 1, 2)
    tm = make_tm(buffer_bytes=50_000_000, scheduler=SchedulerConfig("dwrr", weights, 1500))
    for _i in range(3000):
        for prio, size in ((0, 1000), (1, 700), (7, 1500)):
            assert tm.enqueue(job(2, prio, size), 0, 0)
    served = {0: 0, 1: 0, 7: 0}
    for _ in range(3000):
        j = tm.dequeue(2, 0)[0]
        served[j.priority] += j.length
    total = sum(served.values())
    # weights 1 : 3 : 2 -> shares 1/6, 1/2, 1/3 of the bytes
    assert served[0] / total == pytest.approx(1 / 6, rel=0.02)
    assert served[1] / total == pytest.approx(1 / 2, rel=0.02)
    assert served[7] / total == pytest.approx(1 / 3, rel=0.02)


def test_dwrr_alone_gets_everything_and_skips_empty():
    tm = make_tm(scheduler=SchedulerConfig("dwrr", (1,) * 8, 100))  # quantum smaller than a packet
    for i in range(5):
        tm.enqueue(job(0, 4, 1000, i), 1, 0)
    assert [int.from_bytes(j.data, "big") for j in drain(tm, 0)] == [0, 1, 2, 3, 4]


def test_per_port_scheduler_override():
    tm = TrafficManager(TmConfig(port_schedulers={1: SchedulerConfig("dwrr")}))
    tm.add_port(0, G100)
    tm.add_port(1, G100)
    assert tm.ports[0].sched.kind == "strict" and tm.ports[1].sched.kind == "dwrr"


def test_queue_info_depths_and_timestamps_as_bmv2():
    tm = make_tm()
    tm.enqueue(job(1, 2, 1000), 0, 1_500)
    tm.enqueue(job(1, 2, 500), 0, 2_000)
    tm.enqueue(job(1, 2, 300), 0, 2_999)
    _, info, in_port = tm.dequeue(1, 5_200)
    assert in_port == 0
    assert (info.enq_timestamp_us, info.enq_qdepth, info.enq_qdepth_bytes) == (1, 0, 0)
    assert (info.deq_qdepth, info.deq_qdepth_bytes, info.deq_timedelta_us) == (2, 800, 4)
    _, info, _ = tm.dequeue(1, 6_000)
    assert (info.enq_timestamp_us, info.enq_qdepth, info.enq_qdepth_bytes) == (2, 1, 1000)
    assert (info.deq_qdepth, info.deq_qdepth_bytes, info.deq_timedelta_us) == (1, 300, 4)
    _, info, _ = tm.dequeue(1, 6_000)
    assert (info.enq_qdepth, info.enq_qdepth_bytes, info.deq_qdepth, info.deq_qdepth_bytes) == (2, 1500, 0, 0)


def test_dynamic_threshold_one_queue_takes_alpha_share_then_tail_drops():
    # alpha 1: a queue grows while its shared use < free -> it stops at half the shared pool
    tm = TrafficManager(TmConfig(buffer_bytes=100_000, reserved_bytes=0, alpha=1.0))
    tm.add_port(0, G100)
    tm.add_port(1, G100)
    accepted = sum(tm.enqueue(job(1, 0, 1000), 0, 0) for _ in range(100))
    assert accepted == 50
    assert tm.ports[1].stats.drops[0] == 50
    assert tm.queue_depth(1, 0) == (50, 50_000)
    # a second queue gets alpha x the remaining free buffer: q2 < 50,000 - q2 -> 25 packets
    accepted2 = sum(tm.enqueue(job(1, 5, 1000), 0, 0) for _ in range(100))
    assert accepted2 == 25
    assert tm.ports[1].stats.drops[5] == 75
    # draining the first queue frees buffer for the second
    drain_n = 30
    for _ in range(drain_n):
        tm.dequeue(1, 0)  # strict: priority 5 first
    assert tm.buffer.shared_used == 75_000 - 25_000 - 5_000


def test_small_alpha_limits_a_queue_to_a_fraction():
    tm = TrafficManager(TmConfig(buffer_bytes=900_000, reserved_bytes=0, alpha=1 / 8))
    tm.add_port(0, G100)
    n = sum(tm.enqueue(job(0, 0, 1000), None, 0) for _ in range(1000))
    # q < (B - q)/8  ->  q < B/9 = 100,000
    assert n == 100


def test_reserve_admits_when_shared_pool_is_exhausted():
    tm = TrafficManager(TmConfig(buffer_bytes=8 * 2 * 2048 + 4000, reserved_bytes=2048, alpha=100.0))
    tm.add_port(0, G100)
    tm.add_port(1, G100)
    assert tm.buffer.shared_size == 4000
    assert sum(tm.enqueue(job(0, 0, 1000), 1, 0) for _ in range(10)) == 2 + 4  # reserve, then shared
    assert tm.buffer.shared_used == 4000
    # another queue still has its reserve
    assert tm.enqueue(job(0, 1, 1000), 1, 0) and tm.enqueue(job(0, 1, 1000), 1, 0)
    assert not tm.enqueue(job(0, 1, 1000), 1, 0)
    assert tm.ports[0].stats.drops[:2] == [4, 1]


def test_queue_max_pkts_caps_queue():
    tm = make_tm(queue_max_pkts=3)
    assert [tm.enqueue(job(1, 0), 0, 0) for _ in range(5)] == [True, True, True, False, False]
    assert tm.ports[1].stats.drops[0] == 2


def test_unlinked_port_drops_counted():
    tm = make_tm()
    assert not tm.enqueue(job(9, 0), 0, 0)
    assert tm.unrouted_drops == 1


def test_max_queue_bytes_and_counters():
    tm = make_tm()
    for _ in range(4):
        tm.enqueue(job(2, 1, 1500), 0, 0)
    drain(tm, 2)
    s = tm.snapshot(0)["ports"][2]
    assert s["max_queue_bytes"][1] == 6000 and s["max_queue_pkts"][1] == 4
    assert s["enq_pkts"][1] == 4 and s["tx_bytes"][1] == 6000


@pytest.mark.parametrize("cfg, field", [
    (TmConfig(pfc=PfcConfig(enabled=True, xoff_bytes=5000, xon_bytes=5000)), "tm.pfc.xon_bytes"),
    (TmConfig(pfc=PfcConfig(enabled=True, xoff_bytes=5000, xon_bytes=9000)), "tm.pfc.xon_bytes"),
    (TmConfig(scheduler=SchedulerConfig("wfq")), "tm.scheduler.kind"),
    (TmConfig(scheduler=SchedulerConfig("dwrr", (1, 2))), "tm.scheduler.weights"),
    (TmConfig(pfc=PfcConfig(priorities=(9,))), "tm.pfc.priorities[0]"),
    (TmConfig(alpha=0), "tm.alpha"),
    (TmConfig(pfc=PfcConfig(pause_quanta=0x10000)), "tm.pfc.pause_quanta"),
])
def test_impossible_settings_raise_config_error_naming_the_field(cfg, field):
    with pytest.raises(ConfigError) as exc:
        TrafficManager(cfg)
    assert exc.value.path == field
    assert field in str(exc.value)


def test_buffer_smaller_than_headroom_plus_reserve():
    tm = TrafficManager(TmConfig(buffer_bytes=100_000, reserved_bytes=2048,
                                 pfc=PfcConfig(enabled=True, headroom_bytes=30_000)))
    tm.add_port(0, G100)  # 16,384 reserve + 30,000 headroom
    with pytest.raises(ConfigError) as exc:
        tm.add_port(1, G100)
        tm.add_port(2, G100)
    assert exc.value.path == "tm.buffer_bytes"
    assert "headroom" in str(exc.value)


def test_from_dict_and_errors():
    cfg = TmConfig.from_dict({"buffer_bytes": 1_000_000, "scheduler": "dwrr",
                              "pfc": {"enabled": True, "xoff_bytes": 20000, "priorities": [3, 4]}})
    assert cfg.scheduler.kind == "dwrr" and cfg.pfc.priorities == (3, 4) and cfg.pfc.xon_threshold() == 17000
    with pytest.raises(ConfigError) as exc:
        TmConfig.from_dict({"pfc": {"xof": 1}}, path="switch")
    assert exc.value.path == "switch.pfc.xof"
    with pytest.raises(ConfigError) as exc:
        TmConfig.from_dict({"pfc": {"xoff_bytes": "lots"}})
    assert exc.value.path == "tm.pfc.xoff_bytes"


@pytest.mark.parametrize("data, path", [
    ([1, 2], "tm"),  # rocelab-switch --tm-config with a JSON list: a TypeError traceback
    ({"port_schedulers": {"x": "dwrr"}}, "tm.port_schedulers"),  # int("x") raised ValueError
    ({"port_schedulers": {"600": "dwrr"}}, "tm.port_schedulers"),
    ({"buffer_bytes": None}, "tm.buffer_bytes"),  # None <= 0 in validate(): a TypeError
    ({"scheduler": {"weights": None}}, "tm.scheduler.weights"),
    ({"pfc": {"mtu_bytes": True}}, "tm.pfc.mtu_bytes"),
    ({"ecn": -1}, "tm.ecn"),  # taken as a plain value: 'int' object has no attribute 'validate'
    ({"ecn": {"mode": "step", "priorities": [9]}}, "tm.ecn.priorities[0]"),
])
def test_from_dict_refuses_hostile_values_with_the_field(data, path):
    with pytest.raises(ConfigError) as exc:
        TmConfig.from_dict(data)
    assert exc.value.path == path


def test_from_dict_reads_a_nested_ecn():
    cfg = TmConfig.from_dict({"ecn": {"mode": "step", "threshold_bytes": 20000, "priorities": [3]}})
    assert cfg.ecn.mode == "step" and cfg.ecn.priorities == (3,) and cfg.ecn.threshold_bytes == 20000


def test_from_scenario_switch_spec():
    from emulator.scenario.schema import SwitchSpec
    from emulator.tm import tm_config_from_spec

    spec = SwitchSpec(scheduling="dwrr", pfc={"enabled": True, "xoff": 40000, "xon": 20000})
    cfg = tm_config_from_spec(spec)
    assert cfg.pfc.enabled and cfg.pfc.xoff_bytes == 40000 and cfg.scheduler.kind == "dwrr"
    assert cfg.buffer_bytes == spec.buffer.size and cfg.alpha == spec.buffer.alpha


ops = st.lists(st.tuples(st.sampled_from(["enq", "deq", "pfc"]), st.integers(0, 3), st.integers(0, 7),
                         st.integers(64, 4000)), max_size=300)


@settings(max_examples=60, deadline=None)
@given(ops=ops, static=st.booleans(), sched=st.sampled_from(["strict", "dwrr"]))
def test_buffer_accounting_invariants(ops, static, sched):
    pfc = PfcConfig(enabled=True, priorities=(3, 5), headroom_bytes=9000,
                    xoff_bytes=12_000 if static else None, xon_bytes=6_000 if static else None)
    tm = TrafficManager(TmConfig(buffer_bytes=300_000, reserved_bytes=1500, alpha=0.5, pfc=pfc,
                                 scheduler=SchedulerConfig(sched)))
    for p in range(4):
        tm.add_port(p, G100, 500)
    now = 0
    for op, port, prio, size in ops:
        now += 50
        tm.advance(now)
        if op == "enq":
            tm.enqueue(job((port + 1) % 4, prio, size), port, now)
        elif op == "deq":
            tm.dequeue(port, now)
        else:
            receive_pfc(tm, port, build_pfc([None] * prio + [size % 3], b"\x02" * 6), now)
        buf = tm.buffer
        assert 0 <= buf.shared_used <= buf.shared_size
        for ing in tm.ingress.values():
            for p in range(8):
                assert 0 <= ing.hdrm[p] <= ing.hdrm_cap[p]
                assert ing.shared[p] >= 0 and ing.occ[p] >= ing.shared[p] + ing.hdrm[p]
        for eport in tm.ports.values():
            assert eport.backlog == sum(len(q) for q in eport.queues)
            assert all(0 <= eport.res_used[p] <= 1500 for p in range(8))
            # lossless classes are never tail-dropped
            assert eport.stats.drops[3] == 0 and eport.stats.drops[5] == 0
    # drain everything (pauses expire): all accounting returns to zero and every XOFF got its XON
    now += 10**9
    tm.advance(now)
    for p in range(4):
        while tm.dequeue(p, now) is not None:
            pass
    assert tm.buffer.shared_used == 0
    for ing in tm.ingress.values():
        assert ing.occ == [0] * 8 and ing.hdrm == [0] * 8 and ing.shared == [0] * 8
        assert not any(ing.xoff)
    for eport in tm.ports.values():
        assert eport.res_used == [0] * 8 and eport.qbytes == [0] * 8
        sent_xoff = [eport.stats.pause_sent[p] > 0 for p in range(8)]
        assert all(eport.stats.resume_sent[p] > 0 for p in range(8) if sent_xoff[p])


def test_pass_through_counts_as_enqueue_then_dequeue_of_an_empty_queue():
    """The real-time switch's idle unshaped ports: pass_through gives the QueueInfo and counters that enqueue()
    and dequeue() at the same instant give, and refuses (None) whenever the job would really have to wait."""
    a, b = make_tm(), make_tm()
    j = job(1, 3, 700)
    assert a.pass_through(j, 0, 5_000)
    assert b.enqueue(j, 0, 5_000)
    _, info, _ = b.dequeue(1, 5_000)  # what egress is told otherwise: an empty queue, enqueued now
    assert (info.enq_timestamp_us, info.enq_qdepth, info.deq_timedelta_us, info.deq_qdepth, info.enq_qdepth_bytes,
            info.deq_qdepth_bytes) == (5, 0, 0, 0, 0, 0)
    assert a.snapshot(5_000) == b.snapshot(5_000) and a.busy_ports == b.busy_ports == {1}
    assert a.enqueue(job(1, 0), 0, 0)
    assert not a.pass_through(job(1, 3), 0, 0)  # the port holds a packet: FIFO/priority order needs the queue
    assert not a.pass_through(job(2, 0, 4096), 0, 0)  # beyond the reserve: enqueue() judges the shared pool
    a.pause(2, (0,), 10_000, 0)
    assert not a.pass_through(job(2, 0), 0, 0)  # paused priority
    pfc = make_tm(pfc=PfcConfig(enabled=True, priorities=(3,)))
    assert not pfc.pass_through(job(2, 3), 1, 0)  # lossless: XOFF accounting happens in the queue
