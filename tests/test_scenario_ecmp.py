"""scenarios/ecmp_collisions.yaml: per-flow ECMP puts whole flows on uplinks, flows on one uplink share it, and the
aggregate goodput is one link's worth per uplink in use (physics, not the particular hash values)."""
from __future__ import annotations

from pathlib import Path

import pytest

from emulator.scenario.load import load_scenario
from emulator.sim.runner import run_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "ecmp_collisions.yaml"
HEADERS = 82  # Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS/preamble/gap 24


@pytest.fixture(scope="module")
def run():
    # ECMP's placement is fixed from the first packet: a shorter warm-up than the bundled one (which lets
    # flowlets settle) measures the same steady state
    sc = load_scenario(SCENARIO, ["duration=300us", "workload.warmup=100us"])
    return sc, run_scenario(sc, plots=False).summary


def leaf1_uplinks(s: dict) -> dict[str, int]:
    return {k: v for k, v in s["uplink_flows"].items() if k.startswith("leaf1:")}


def test_the_bundled_scenario_is_the_issue_fabric(run):
    sc, s = run
    t = sc.topology
    assert len([x for x in t.switches if x.startswith("spine")]) == 8 and len(t.hosts) == 16
    assert sc.switch.routing.mode == "ecmp" and len(s["flows"]) == 8
    assert len(leaf1_uplinks(s)) == 8


def test_each_flow_takes_one_uplink_and_uplink_sharers_split_it(run):
    sc, s = run
    ups = leaf1_uplinks(s)
    assert sum(ups.values()) == len(s["flows"])  # ECMP is per flow: no flow shows up on two uplinks
    line = sc.topology.rate / 1e9 * sc.nic.mtu / (sc.nic.mtu + HEADERS)
    used = sum(1 for v in ups.values() if v)
    # steady state: every uplink in use is full, so the fabric carries `used` links' worth
    assert s["aggregate_goodput_gbps"] == pytest.approx(used * line, rel=0.03)
    # each flow gets its uplink's share: line / (flows on that uplink); the shares present are 1/k of a link
    shares = sorted(round(line / f["goodput_gbps"]) for f in s["flows"])
    assert sorted(shares) == sorted(k for k in ups.values() if k for _ in range(k))
    assert s["totals"]["drops"] == 0 and s["totals"]["retransmitted_packets"] == 0


def test_links_report_the_busy_uplinks(run):
    _, s = run
    busy = {row["a"]: row["a_to_b"] for row in s["links"] if row["a"].startswith("leaf1:")}
    ups = leaf1_uplinks(s)
    for label, flows in ups.items():
        port = label.split("->")[0]
        assert (busy[port] > 0.9) == (flows > 0), (label, busy[port])
