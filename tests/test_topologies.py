"""Topology shorthands (fat-tree, dual-plane segment, rail groups, leaf-spine oversubscription and parallel links),
routes over every shortest path, hash polarization across tiers and its removal by per-switch polynomials, and
topologies that cannot carry the workload refused before anything runs."""
from __future__ import annotations

import pytest

from emulator.errors import ConfigError
from emulator.scenario.schema import Scenario
from emulator.sim.build import build_scenario
from emulator.sim.runner import run_scenario

CACHE: dict = {}


def scenario(topology: dict, flows: list[dict], **kw) -> Scenario:
    return Scenario.model_validate({"topology": topology, "workload": {"flows": flows},
                                    "outputs": {"plots": False}, **kw})


def run(sc: Scenario) -> dict:
    return run_scenario(sc, plots=False, program_cache=CACHE).summary


def test_fat_tree_has_the_k_ary_shape():
    t = Scenario.model_validate({"topology": {"fat_tree": {"k": 4}}}).topology
    k = 4
    assert len(t.hosts) == k ** 3 // 4
    assert len([s for s in t.switches if s.startswith("core")]) == (k // 2) ** 2
    assert len([s for s in t.switches if s.startswith(("edge", "agg"))]) == k * k
    degree = {s: 0 for s in t.switches}
    for lk in t.links:
        for end in (lk.a, lk.b):
            if end in degree:
                degree[end] += 1
    assert set(degree.values()) == {k}  # every switch has k ports in use


def test_dual_plane_hosts_have_one_port_per_plane_and_planes_share_no_switch():
    t = Scenario.model_validate({"topology": {"dual_plane": {"tors": 2, "hosts_per_tor": 2, "aggs": 2}}}).topology
    assert sorted(t.hosts) == sorted(f"h{i}{p}" for i in range(1, 5) for p in "ab")
    for lk in t.links:
        ends = {lk.a, lk.b}
        assert all(e.endswith("a") or e.startswith(("tora", "agga")) for e in ends) or \
            all(e.endswith("b") or e.startswith(("torb", "aggb")) for e in ends)


def test_a_flow_across_planes_is_refused_and_one_within_a_plane_runs():
    topo = {"dual_plane": {"tors": 2, "hosts_per_tor": 1, "aggs": 2}}
    with pytest.raises(ConfigError, match="no path from h1a to h2b"):
        build_scenario(scenario(topo, [{"src": "h1a", "dst": "h2b", "bytes": "4KiB"}]), program_cache=CACHE)
    s = run(scenario(topo, [{"src": "h1a", "dst": "h2a", "bytes": "16KiB"},
                            {"src": "h1b", "dst": "h2b", "bytes": "16KiB"}]))
    assert s["complete"] and all(f["completed"] for f in s["flows"])
    assert any(v for k, v in s["uplink_flows"].items() if k.startswith("tora1")) and \
        any(v for k, v in s["uplink_flows"].items() if k.startswith("torb1"))


def test_rail_groups_keep_same_gpu_traffic_on_its_rail():
    topo = {"rail": {"servers": 2, "gpus_per_server": 2, "spines": 2}}
    s = run(scenario(topo, [{"src": "s1g1", "dst": "s2g1", "bytes": "16KiB"}]))
    assert s["complete"] and not any(s["uplink_flows"].values())  # one rail switch, no spine
    s = run(scenario(topo, [{"src": "s1g1", "dst": "s2g2", "bytes": "16KiB"}]))
    assert s["complete"] and sum(v for k, v in s["uplink_flows"].items() if k.startswith("rail1")) == 1


def test_oversubscription_sets_uplink_rates_and_parallel_links_all_carry_routes():
    sc = scenario({"two_level": {"spines": 2, "leaves": 2, "hosts_per_leaf": 4, "parallel_links": 2,
                                 "oversubscription": 2}}, [])
    ups = [lk for lk in sc.topology.links if lk.b.startswith("spine")]
    assert len(ups) == 2 * 2 * 2 and {lk.rate for lk in ups} == {4 * 100 * 10**9 // (2 * 2 * 2)}
    built = build_scenario(sc, program_cache=CACHE)
    api = built.fabrics["leaf1"].api
    # the group toward leaf2's hosts has one member per uplink: 2 spines x 2 parallel links
    assert api.table_num_entries("FabricIngress.lb_member") == 4
    with pytest.raises(ValueError, match="uplink_rate or oversubscription"):
        scenario({"two_level": {"uplink_rate": "50Gbps", "oversubscription": 2}}, [])


def test_same_crc_on_every_tier_polarizes_and_a_polynomial_per_tier_removes_it():
    flows = [{"src": f"h{s}", "dst": f"h{d}", "bytes": "8KiB"} for s in range(1, 5) for d in (5, 7, 9, 11, 13, 15)]
    aggs = [f"agg{p}_{i}" for p in range(1, 5) for i in (1, 2)]

    def cores_used(overrides: dict) -> list[int]:
        s = run(Scenario.model_validate({"seed": 3, "topology": {"fat_tree": {"k": 4}}, "workload": {"flows": flows},
                                         "switch_overrides": overrides, "outputs": {"plots": False}}))
        assert s["complete"]
        return [sum(1 for k, v in s["uplink_flows"].items() if k.startswith(f"{a}:") and "core" in k and v)
                for a in ("agg1_1", "agg1_2")]

    # an aggregation switch only sees flows its edge hashed to it, and hashes them again the same way (a seed per
    # switch only XORs a constant into a CRC): one of its two cores carries them all
    assert cores_used({}) == [1, 1]
    other = {a: {"routing": {"hash": "crc32_custom", "polynomial": 0x1EDC6F41}} for a in aggs}  # CRC-32C
    assert cores_used(other) == [2, 2]


def test_a_topology_in_pieces_is_refused():
    with pytest.raises(ConfigError, match="not connected: 2 separate parts"):
        build_scenario(Scenario.model_validate({"topology": {
            "switches": ["s1", "s2"], "hosts": ["h1", "h2"], "links": [["h1", "s1"], ["h2", "s2"]]}}),
            program_cache=CACHE)
    with pytest.raises(ConfigError, match="hosts without a link: h3"):
        build_scenario(Scenario.model_validate({"topology": {
            "switches": ["s1"], "hosts": ["h1", "h2", "h3"], "links": [["h1", "s1"], ["h2", "s1"]]}}),
            program_cache=CACHE)
