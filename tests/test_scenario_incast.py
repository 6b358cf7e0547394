"""The bundled incast scenarios (issue 3): incast_pfc, incast_lossy and incast_dcqcn, each run once per module on
the virtual-time engine, their properties read from the summary (and, where the summary has no figure for it,
from the run's own NIC/QP state and queue series).

8 senders RDMA-WRITE 2 MiB each to one receiver through one 100 Gb/s switch at t = 0:
- incast_pfc: lossless, near line rate, each sender paused ~7/8 of its flow time, fair;
- incast_lossy: tail drops, go-back-N (one NAK per gap, RTO for lost tails), yet every byte arrives;
- incast_dcqcn: ECN marks and CNPs, far fewer PFC pauses and a much lower queue than incast_pfc.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.scenario.load import load_scenario
from emulator.sim.runner import RunOutcome, run_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
RECEIVER = "r"
SWITCH = "s1"


def run(name: str, programs: dict) -> RunOutcome:
    """Run scenarios/<name>.yaml as bundled (no outputs written); `programs` shares the compiled fabric.p4."""
    return run_scenario(load_scenario(SCENARIOS / f"{name}.yaml"), program_cache=programs)


@pytest.fixture(scope="module")
def programs() -> dict:
    return {}


@pytest.fixture(scope="module")
def pfc(programs: dict) -> RunOutcome:
    return run("incast_pfc", programs)


@pytest.fixture(scope="module")
def lossy(programs: dict) -> RunOutcome:
    return run("incast_lossy", programs)


@pytest.fixture(scope="module")
def dcqcn(programs: dict) -> RunOutcome:
    return run("incast_dcqcn", programs)


def totals(o: RunOutcome) -> dict[str, Any]:
    return o.summary["totals"]


def nic(o: RunOutcome, host: str) -> dict[str, Any]:
    return o.summary["hosts"][host]["nic"]


def senders(o: RunOutcome) -> list[str]:
    return [f["src"] for f in o.summary["flows"]]


def assert_every_byte_delivered(o: RunOutcome) -> None:
    """The run ended by itself with every flow acknowledged and its receiver holding all its bytes in order."""
    s = o.summary
    assert s["complete"]
    assert len(s["flows"]) == 8
    assert all(f["completed"] and not f["failed"] for f in s["flows"])
    assert totals(o)["flows_completed"] == 8
    for f in o.built.flows:
        assert f.delivered_bytes == f.spec.nbytes, f.spec.name


def receiver_queue(o: RunOutcome) -> list[tuple[int, int]]:
    """(time_ns, bytes) samples of the receiver port's RoCE data queue (priority 3)."""
    port = o.built.ports[(SWITCH, RECEIVER)]
    prio = o.built.nics[RECEIVER].config.data_priority
    return [(t, b) for t, sw, p, q, _, b in o.recorder.queue_rows if (sw, p, q) == (SWITCH, port, prio)]


def mean_queue_bytes(o: RunOutcome, interval_ns: int) -> float:
    """Time-weighted mean depth of the receiver queue over the run (empty queues are not sampled: they add 0)."""
    return sum(b for _, b in receiver_queue(o)) * interval_ns / o.summary["sim_time_ns"]


# ------------------------------------------------------------------------------------------------ incast_pfc


def test_pfc_incast_is_lossless_and_complete(pfc: RunOutcome) -> None:
    assert_every_byte_delivered(pfc)
    t = totals(pfc)
    assert t["drops"] == 0 and t["retransmitted_packets"] == 0 and t["timeouts"] == 0
    assert t["pfc_pause_frames"] > 0  # lossless because PFC paused the senders, not because nothing queued


def test_pfc_incast_finishes_within_115_percent_of_line_rate(pfc: RunOutcome) -> None:
    sc = load_scenario(SCENARIOS / "incast_pfc.yaml")
    payload_bits = 8 * sum(f["bytes"] for f in pfc.summary["flows"])
    ideal_ns = payload_bits * 1e9 / sc.topology.rate  # the receiver's link carrying payload only
    last = pfc.summary["fairness"]["last_fct_ns"]
    assert last == max(f["fct_ns"] for f in pfc.summary["flows"])
    assert ideal_ns < last <= 1.15 * ideal_ns  # headers and ACK clocking cost a little, nothing more


def test_pfc_incast_senders_paused_about_seven_eighths(pfc: RunOutcome) -> None:
    # 8 senders share one 100G link: each may send 1/8 of the time, PFC holds it the other 7/8
    for f in pfc.summary["flows"]:
        assert 0.80 <= f["paused_ns"] / f["fct_ns"] <= 0.95, f["name"]


def test_pfc_incast_is_fair(pfc: RunOutcome) -> None:
    assert pfc.summary["fairness"]["goodput_jain"] >= 0.98


# ------------------------------------------------------------------------------------------------ incast_lossy


def test_lossy_incast_drops_and_retransmits_yet_every_byte_arrives(lossy: RunOutcome) -> None:
    t = totals(lossy)
    assert t["pfc_pause_frames"] == 0 and t["pfc_resume_frames"] == 0
    assert t["buffer_drops"] > 0 and t["drops"] == t["buffer_drops"]  # tail drops only, no P4 drop
    assert t["retransmitted_packets"] > 0
    assert t["retransmitted_packets"] == sum(f["retransmitted_packets"] for f in lossy.summary["flows"])
    assert_every_byte_delivered(lossy)


def test_lossy_incast_receiver_naks_once_per_gap(lossy: RunOutcome) -> None:
    naks = 0
    for f in lossy.built.flows:
        rx = f.peer.stats
        naks += rx.naks_sent
        # every out-of-order packet of a gap is dropped silently after the gap's single NAK
        assert rx.naks_sent <= rx.out_of_order, f.spec.name
    assert naks > 0
    # some gap had several packets after it and got one NAK (most losses of this lock-step incast are whole
    # tails, recovered by the timer; NAK-once-per-gap itself is tests/test_qp.py's)
    total_out_of_order = sum(f.peer.stats.out_of_order for f in lossy.built.flows)
    assert total_out_of_order > naks
    assert nic(lossy, RECEIVER)["naks_sent"] == naks
    # the reverse path is not congested: every NAK reaches its sender
    assert sum(nic(lossy, h)["naks_received"] for h in senders(lossy)) == naks


def test_lossy_incast_senders_go_back_n(lossy: RunOutcome) -> None:
    for f in lossy.built.flows:
        tx = f.qp.stats
        if tx.naks_received or tx.timeouts:
            # rewound to the NAK'd (or oldest unacknowledged) PSN and sent everything from there again
            assert tx.retransmitted > 0, f.spec.name
        else:
            assert tx.retransmitted == 0, f.spec.name
    # a sender whose whole tail was dropped has no later packet to reveal the gap: only its timer recovers it
    assert totals(lossy)["timeouts"] > 0


# ------------------------------------------------------------------------------------------------ incast_dcqcn


def test_dcqcn_incast_marks_and_notifies_every_sender(dcqcn: RunOutcome) -> None:
    assert_every_byte_delivered(dcqcn)
    t = totals(dcqcn)
    assert t["drops"] == 0 and t["retransmitted_packets"] == 0
    assert t["ecn_marked"] > 0 and t["cnps"] > 0
    assert t["cnps"] <= t["ecn_marked"]  # at most one CNP per marked packet (and per 50 us per QP)
    assert nic(dcqcn, RECEIVER)["ce_received"] == t["ecn_marked"]
    assert all(nic(dcqcn, h)["cnps_received"] > 0 for h in senders(dcqcn))


def test_dcqcn_incast_needs_fewer_pauses_than_pfc(dcqcn: RunOutcome, pfc: RunOutcome) -> None:
    assert totals(dcqcn)["pfc_pause_frames"] < totals(pfc)["pfc_pause_frames"]
    paused = {f["name"]: f["paused_ns"] for f in pfc.summary["flows"]}
    for f in dcqcn.summary["flows"]:
        assert f["paused_ns"] < paused[f["name"]], f["name"]


def test_dcqcn_incast_queue_lower_than_pfc(dcqcn: RunOutcome, pfc: RunOutcome) -> None:
    # The first burst is PFC's in both runs: every sender starts at line rate and each ingress crosses XOFF
    # before any CNP can be back, so that peak (XOFF + headroom per ingress) cannot be lower; never higher.
    assert totals(dcqcn)["max_queue_bytes"] <= totals(pfc)["max_queue_bytes"]
    interval = load_scenario(SCENARIOS / "incast_dcqcn.yaml").outputs.sample_interval
    assert interval == load_scenario(SCENARIOS / "incast_pfc.yaml").outputs.sample_interval
    # once the rates are cut, DCQCN holds the queue far below what PFC alone keeps parked in the switch
    assert mean_queue_bytes(dcqcn, interval) < 0.25 * mean_queue_bytes(pfc, interval)
    settle_ns = 100_000  # the first CNPs and a couple of pause cycles
    late_peak = max(b for t, b in receiver_queue(dcqcn) if t >= settle_ns)
    assert late_peak < max(b for t, b in receiver_queue(pfc) if t >= settle_ns)


def test_summary_queue_statistics_show_dcqcn_lower(dcqcn: RunOutcome, pfc: RunOutcome) -> None:
    """summary.json's `queues` (sampled peak, p99, time-averaged) say the same as the raw series above."""
    def bottleneck(o: RunOutcome) -> dict:
        q = o.summary["queues"][0]  # busiest first
        assert (q["switch"], q["prio"]) == (SWITCH, 3) and q["max_bytes"] <= totals(o)["max_queue_bytes"]
        return q
    d, p = bottleneck(dcqcn), bottleneck(pfc)
    interval = load_scenario(SCENARIOS / "incast_pfc.yaml").outputs.sample_interval
    assert p["mean_bytes"] == pytest.approx(mean_queue_bytes(pfc, interval), rel=0.01)
    assert d["p99_bytes"] < 0.85 * p["p99_bytes"] and d["mean_bytes"] < 0.25 * p["mean_bytes"]
