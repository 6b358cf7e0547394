"""Workload generators: incast, many-to-many, permutation."""
from __future__ import annotations

from collections import Counter

import pytest

from emulator.errors import ConfigError
from traffic.workloads import FlowSpec, incast, many_to_many, permutation, sorted_by_start

HOSTS = [f"h{i}" for i in range(8)]


def test_incast_specs():
    flows = list(incast(HOSTS[1:], "h0", 1 << 20, start_ns=1000, priority=3))
    assert len(flows) == 7
    assert all(f.dst == "h0" and f.nbytes == 1 << 20 and f.start_ns == 1000 and f.priority == 3 for f in flows)
    assert [f.src for f in flows] == HOSTS[1:]
    assert len({f.name for f in flows}) == 7
    assert isinstance(flows[0], FlowSpec) and flows[0].bytes == 1 << 20


def test_incast_jitter_is_bounded_and_seeded():
    a = list(incast(HOSTS[1:], "h0", 1000, start_ns=500, jitter_ns=10_000, seed=7))
    b = list(incast(HOSTS[1:], "h0", 1000, start_ns=500, jitter_ns=10_000, seed=7))
    c = list(incast(HOSTS[1:], "h0", 1000, start_ns=500, jitter_ns=10_000, seed=8))
    assert a == b and a != c
    assert all(500 <= f.start_ns <= 10_500 for f in a)
    assert len({f.start_ns for f in a}) > 1


def test_incast_errors():
    with pytest.raises(ConfigError):
        list(incast([], "h0", 10))
    with pytest.raises(ConfigError):
        list(incast(["h0", "h1"], "h0", 10))
    with pytest.raises(ConfigError):
        list(incast(["h1"], "h0", -1))


def test_many_to_many_all_pairs():
    flows = list(many_to_many(HOSTS[:4], 4096))
    assert len(flows) == 12
    assert {(f.src, f.dst) for f in flows} == {(s, d) for s in HOSTS[:4] for d in HOSTS[:4] if s != d}
    sub = list(many_to_many(HOSTS[:4], 1, receivers=["h0", "h1"]))
    assert {(f.src, f.dst) for f in sub} == {(s, d) for s in HOSTS[:4] for d in ("h0", "h1") if s != d}


@pytest.mark.parametrize("seed", range(5))
def test_permutation_is_a_derangement(seed):
    flows = list(permutation(HOSTS, 100, seed=seed))
    assert sorted(f.src for f in flows) == sorted(HOSTS)
    assert Counter(f.dst for f in flows) == Counter(HOSTS)
    assert all(f.src != f.dst for f in flows)


def test_permutation_two_hosts_and_errors():
    flows = list(permutation(["a", "b"], 1))
    assert {(f.src, f.dst) for f in flows} == {("a", "b"), ("b", "a")}
    with pytest.raises(ConfigError):
        list(permutation(["a"], 1))
    with pytest.raises(ConfigError):
        list(permutation(["a", "a"], 1))


def test_sorted_by_start():
    flows = sorted_by_start(incast(HOSTS[1:], "h0", 1, jitter_ns=1000, seed=3))
    assert [f.start_ns for f in flows] == sorted(f.start_ns for f in flows)


def test_open_flows_run_back_to_back():
    from traffic.dcqcn import DcqcnConfig
    from traffic.flows import flow_report, open_flows
    from traffic.loopback import Loopback
    from traffic.nic import Nic, NicConfig

    cfg = NicConfig(dcqcn=DcqcnConfig(enabled=False))
    nics = {"a": Nic("a", "02:00:00:00:00:01", "10.0.0.1", 100e9, cfg),
            "b": Nic("b", "02:00:00:00:00:02", "10.0.0.2", 100e9, cfg)}
    flows = open_flows(nics, permutation(["a", "b"], 50_000, priority=2))
    assert [f.qp.priority for f in flows] == [2, 2]
    for f in flows:
        f.start(0)
    with pytest.raises(ConfigError):
        flows[0].start(1)
    Loopback(nics["a"], nics["b"]).run()
    rows = flow_report(flows)
    assert all(f.done for f in flows)
    assert all(r["fct_ns"] > 0 and r["goodput_gbps"] < 100 and not r["failed"] for r in rows)
    with pytest.raises(ConfigError):
        open_flows(nics, [FlowSpec("a", "zz", 1, 0, None, "x")])


def test_backlogged_flow_reports_pause_time_over_its_measurement_window():
    """Pause time and goodput cover the same window: start-up pauses before mark() are not counted."""
    from types import SimpleNamespace

    from traffic.flows import OpenFlow

    paused = {"ns": 0}
    nic = SimpleNamespace(paused_ns=lambda prio, now: paused["ns"],
                          post_backlogged=lambda qp, now, chunk, name="": SimpleNamespace())
    qp = SimpleNamespace(priority=3, stats=SimpleNamespace(retransmitted=0), error=False)
    peer = SimpleNamespace(stats=SimpleNamespace(bytes_received=0))
    flow = OpenFlow(FlowSpec("a", "b", 1 << 20, 0, None, "f"), nic, qp, peer=peer, backlogged=True)
    flow.start(0)
    paused["ns"] = 400  # paused during the warm-up
    flow.mark(1000)
    paused["ns"] = 400 + 250  # and 250 ns inside the window
    peer.stats.bytes_received = 1000
    row = flow.report(2000)
    assert (row["start_ns"], row["end_ns"], row["bytes"]) == (1000, 2000, 1000)
    assert row["paused_ns"] == 250
