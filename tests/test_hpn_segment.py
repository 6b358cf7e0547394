"""scenarios/hpn_segment.yaml scaled down (2 ToRs of 4 servers per plane instead of 16 of 64, 4 ranks instead of
64): the dual-plane all-reduce completes with each channel on its own plane, both ports of every rank carrying
data, within the bounds NCCL's bus bandwidth sets; and plane binding is refused where it cannot work."""
from __future__ import annotations

from pathlib import Path

import pytest

from emulator.errors import ConfigError
from emulator.scenario.load import load_scenario
from emulator.sim.runner import run_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "hpn_segment.yaml"
SMALL = ["topology.dual_plane.tors=2", "topology.dual_plane.hosts_per_tor=4", "topology.dual_plane.aggs=2",
         "workload.collective.hosts=[h1a, h3a, h5a, h7a]", "workload.collective.bytes=256KiB",
         "workload.collective.steps=null"]  # the whole all-reduce of the small ring (the file runs one step)


def test_scaled_down_segment_runs_its_all_reduce_on_both_planes():
    sc = load_scenario(SCENARIO, SMALL)
    assert len(sc.topology.hosts) == 16 and len(sc.topology.switches) == 8
    s = run_scenario(sc, plots=False).summary
    c = s["collective"]
    assert c["completed"] and not c["failed"] and c["n"] == 4 and c["links_per_rank"] == 2
    # never faster than both ports at line rate; a small ring of big chunks gets within a few times of it
    assert c["bound_ns"] < c["time_ns"] < 5 * c["bound_ns"]
    assert c["busbw_gbps"] < 2 * c["link_rate_gbps"]
    # ring hops h3a -> h5a and h7a -> h1a cross the aggregation layer on each plane, one channel per plane
    crossing = {k: v for k, v in s["uplink_flows"].items() if v}
    assert any(k.startswith("tora") for k in crossing) and any(k.startswith("torb") for k in crossing)


@pytest.mark.parametrize("overrides, message", [
    (["topology={two_level: {spines: 2, leaves: 2, hosts_per_leaf: 4}}",
      "workload.collective.hosts=[h1, h2]"], "workload.collective.planes: per_channel needs a dual_plane topology"),
    (["topology.dual_plane.hosts_per_tor=4", "workload.collective.hosts=[h1a, h2a, zz]"], "unknown host 'zz'"),
])
def test_plane_binding_is_refused_where_it_cannot_work(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_scenario(SCENARIO, overrides)
