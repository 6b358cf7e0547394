"""scenarios/pfc_parking_lot.yaml: PFC shares a bottleneck per ingress port, not per flow.

h1, h2 -> s2 -> s1 -> r and h3 -> s1 -> r, all backlogged, PFC only. s1 splits its egress to r between its two
ingress ports, so h3 (alone on its port) gets about twice what h1 or h2 gets: 2:1:1, Jain about 0.889; s2 is
paused by s1 (PFC spreads upstream). The bundled file is run as it is (one run, about 4 s of wall time).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.scenario.load import load_scenario
from emulator.sim.runner import RunOutcome, run_scenario
from traffic.flows import jain_index

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "pfc_parking_lot.yaml"
PRIO = 3  # the RoCE data class the scenario makes lossless

# payload share of the wire for the scenario's full-MTU WRITE middles: 1024 B payload in a 1,082-byte frame
# (Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4) + 24 B of FCS, preamble and IFG
PAYLOAD_PER_WIRE = 1024 / (1082 + 24)


@pytest.fixture(scope="module")
def outcome() -> RunOutcome:
    return run_scenario(load_scenario(SCENARIO))


@pytest.fixture(scope="module")
def goodput(outcome: RunOutcome) -> dict[str, float]:
    return {f["name"]: f["goodput_gbps"] for f in outcome.summary["flows"]}


def tm_port(outcome: RunOutcome, switch: str, neighbor: str) -> dict[str, Any]:
    """The TM counters of `switch`'s port facing `neighbor` (summary keys may be ints or strings)."""
    port = outcome.built.ports[(switch, neighbor)]
    ports = outcome.summary["switches"][switch]["tm"]["ports"]
    return ports[port] if port in ports else ports[str(port)]


def test_the_bundled_file_is_the_parking_lot():
    sc = load_scenario(SCENARIO)
    assert sc.switch.pfc.enabled and sc.switch.ecn.mode == "off" and not sc.nic.dcqcn.enabled
    assert sc.workload.backlogged and 0 < sc.workload.warmup < sc.duration
    assert sc.topology.rate == 100 * 10**9 and sc.topology.delay == 1000
    assert {(f.src, f.dst) for f in sc.workload.flows} == {("h1", "r"), ("h2", "r"), ("h3", "r")}


def test_lossless_steady_state(outcome: RunOutcome):
    s = outcome.summary
    assert s["complete"] and s["stop_reason"] == "duration"
    assert s["totals"]["drops"] == 0
    assert s["totals"]["retransmitted_packets"] == 0
    assert all(f["backlogged"] and not f["failed"] for f in s["flows"])
    # goodput is measured from the end of the warm-up
    warmup = load_scenario(SCENARIO).workload.warmup
    assert all(f["start_ns"] == warmup for f in s["flows"])


def test_h3_gets_twice_h1_and_h2(goodput: dict[str, float]):
    assert 1.7 <= goodput["h3"] / ((goodput["h1"] + goodput["h2"]) / 2) <= 2.3
    assert abs(goodput["h1"] - goodput["h2"]) <= 0.15 * max(goodput["h1"], goodput["h2"])


def test_the_bottleneck_is_full(goodput: dict[str, float]):
    """PFC wastes no capacity here: the three flows fill s1 -> r (payload share of 100 Gb/s)."""
    capacity = 100 * PAYLOAD_PER_WIRE
    total = sum(goodput.values())
    assert 0.85 * capacity < total <= capacity * 1.001


def test_jain_index_is_the_port_fair_one(outcome: RunOutcome, goodput: dict[str, float]):
    """1/2, 1/4, 1/4 gives 16/18 = 0.889; per-flow fairness would give 1."""
    jain = outcome.summary["fairness"]["goodput_jain"]
    assert 0.86 <= jain <= 0.92
    assert jain == pytest.approx(jain_index(goodput.values()), abs=1e-4)


def test_pfc_spreads_upstream_to_s2(outcome: RunOutcome):
    """s1 pauses s2 (s2's port toward s1 receives PFC frames and is paused for a good share of the run), and
    s2 in turn pauses h1 and h2."""
    up = tm_port(outcome, "s2", "s1")
    duration = outcome.summary["sim_time_ns"]
    assert up["pause_recv"][PRIO] > 10
    assert 0.2 * duration < up["paused_ns"][PRIO] < 0.8 * duration
    # s1 held both of its ingress ports in XOFF in turn: each about half the time
    for neighbor in ("s2", "h3"):
        port = tm_port(outcome, "s1", neighbor)
        assert port["pause_sent"][PRIO] > 10
        assert 0.3 * duration < port["xoff_ns"][PRIO] < 0.7 * duration
    for host in ("h1", "h2"):
        assert tm_port(outcome, "s2", host)["pause_sent"][PRIO] > 10


def test_senders_paused_in_proportion_to_their_share(outcome: RunOutcome):
    """A sender sends at line rate when not paused, so h3 (half the bottleneck) is paused about half of the
    window and h1, h2 (a quarter each) about three quarters."""
    rows = {f["name"]: f for f in outcome.summary["flows"]}
    share = {name: r["paused_ns"] / (r["end_ns"] - r["start_ns"]) for name, r in rows.items()}
    assert share["h3"] == pytest.approx(0.5, abs=0.08)
    assert share["h1"] == pytest.approx(0.75, abs=0.08)
    assert share["h2"] == pytest.approx(0.75, abs=0.08)
