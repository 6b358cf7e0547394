"""scenarios/ecmp_collisions.yaml: per-flow ECMP over two uplinks collides, and each flow's completion time follows
from how many flows share its uplink (physics, not the particular hash values)."""
from __future__ import annotations

from pathlib import Path

import pytest

from emulator.scenario.load import load_scenario
from emulator.sim.runner import run_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "ecmp_collisions.yaml"
MTU = 1024
WIRE_PER_PACKET = MTU + 82  # Eth 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16 on the first) + ICRC 4 + FCS/preamble/IFG 24
UPLINKS = ("9", "10")  # leaf1's ports toward spine1 and spine2 (after its 8 host ports)


@pytest.fixture(scope="module")
def run():
    sc = load_scenario(SCENARIO)
    return sc, run_scenario(sc).summary


def one_flow_ns(nbytes: int, rate_bps: int) -> float:
    """Wire time of one flow's data at line rate."""
    return nbytes / MTU * WIRE_PER_PACKET * 8 * 1e9 / rate_bps


def flows_per_uplink(s: dict, packets_per_flow: int) -> list[int]:
    ports = s["switches"]["leaf1"]["ports"]
    counts = []
    for p in UPLINKS:
        frames = ports[p]["tx_frames"]
        # ECMP is per flow: an uplink carries whole flows (no packet of a flow takes the other path)
        assert frames % packets_per_flow == 0, (p, frames)
        counts.append(frames // packets_per_flow)
    return counts


def test_ecmp_uses_both_spines_per_flow_and_collides(run):
    sc, s = run
    n = len(sc.workload.flows)
    counts = flows_per_uplink(s, sc.workload.flows[0].bytes // MTU)
    assert sum(counts) == n and min(counts) > 0
    assert max(counts) > n // 2  # the collision this scenario shows (a 4 + 4 split would be perfect)
    assert s["complete"] and s["totals"]["drops"] == 0 and s["totals"]["retransmitted_packets"] == 0


def test_completion_times_follow_the_flows_sharing_each_uplink(run):
    sc, s = run
    size = sc.workload.flows[0].bytes
    k_small, k_big = sorted(flows_per_uplink(s, size // MTU))
    t1 = one_flow_ns(size, sc.topology.rate)
    fcts = sorted(f["fct_ns"] for f in s["flows"])
    fast, slow = fcts[:k_small], fcts[k_small:]
    assert len(slow) == k_big
    # flows sharing an uplink share it equally (PFC keeps it lossless): k flows finish after about k x t1
    assert all(f == pytest.approx(k_small * t1, rel=0.08) for f in fast)
    assert all(f == pytest.approx(k_big * t1, rel=0.08) for f in slow)
    # the slowest rank sets the pace: the collective takes k_big / (n/2) times what a perfect split would
    n = len(fcts)
    assert max(fcts) / (n / 2 * t1) == pytest.approx(k_big / (n / 2), rel=0.08)
    assert s["fairness"]["goodput_jain"] < 0.9
