"""fabric.p4's routing modes on a small leaf-spine (2 leaves, 4 spines, 4 hosts per leaf, long flows leaf1 ->
leaf2): the seed moves ECMP's collisions, adaptive routing spreads the flows, spraying reorders (go-back-N on
RoCE NICs, nothing with out-of-order placement), and user entries override the routes installed."""
from __future__ import annotations

import pytest

from emulator.errors import ConfigError
from emulator.scenario.schema import Scenario
from emulator.sim.build import build_scenario
from emulator.sim.runner import run_scenario

CACHE: dict = {}
N = 4  # flows = spines
LINE = 100 * 4096 / (4096 + 82)  # Gb/s of payload one 100G link carries at MTU 4096


def small(seed: int = 1, mode: str = "ecmp", **extra) -> Scenario:
    senders = [f"h{i}" for i in range(1, N + 1)]
    receivers = [f"h{i}" for i in range(N + 1, 2 * N + 1)]
    spec = {"seed": seed, "duration": "120us",
            "topology": {"two_level": {"spines": N, "leaves": 2, "hosts_per_leaf": N}},
            "switch": {"routing": {"mode": mode, "flowlet_gap": "2us"},
                       "pfc": {"enabled": True, "xoff": "32KB"}},
            "nic": {"mtu": 4096},
            "workload": {"backlogged": True, "warmup": "40us",
                         "permutation": {"hosts": senders, "receivers": receivers, "bytes": "1MiB"}},
            "outputs": {"plots": False}}
    for path, value in extra.items():
        node = spec
        *parents, leaf = path.split("__")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return Scenario.model_validate(spec)


def run(sc: Scenario) -> dict:
    return run_scenario(sc, plots=False, program_cache=CACHE).summary


def leaf1(s: dict) -> tuple[int, ...]:
    return tuple(v for k, v in sorted(s["uplink_flows"].items()) if k.startswith("leaf1:"))


def test_the_seed_decides_ecmp_placement_and_each_flow_stays_on_one_uplink():
    placements = set()
    for seed in range(1, 6):
        s = run(small(seed))
        ups = leaf1(s)
        assert sum(ups) == N  # per flow: every flow on exactly one uplink
        used = sum(1 for v in ups if v)
        assert s["aggregate_goodput_gbps"] == pytest.approx(used * LINE, rel=0.05)
        placements.add(ups)
    assert len(placements) > 1  # QP numbers, so UDP source ports, so paths, come from the seed


def test_the_same_seed_gives_the_same_run():
    a, b = run(small(7)), run(small(7))
    assert leaf1(a) == leaf1(b) and a["aggregate_goodput_gbps"] == b["aggregate_goodput_gbps"]


def test_adaptive_routing_uses_every_uplink():
    for seed in (1, 2):
        s = run(small(seed, "adaptive"))
        assert s["aggregate_goodput_gbps"] >= 0.9 * N * LINE
        assert s["totals"]["retransmitted_packets"] == 0


def test_flowlets_settle_on_one_flow_per_uplink():
    # colliding flows are paused by PFC, and a pause longer than the gap ends a flowlet: they move until each has
    # an uplink of its own (about a millisecond; goodput is measured after it)
    s = run(small(1, "flowlet", duration="1200us", workload__warmup="1000us", switch__routing__flowlet_gap="5us"))
    assert s["aggregate_goodput_gbps"] >= 0.9 * N * LINE
    assert sorted(leaf1(s)) == [1] * N


def test_spraying_reorders_so_roce_nics_go_back_n_unless_they_place_out_of_order():
    lossy_order = run(small(1, "spray"))
    assert lossy_order["totals"]["retransmitted_packets"] > 0  # NAK on the first out-of-order packet
    placed = run(small(1, "spray", nic__ooo_placement=True))
    assert placed["totals"]["retransmitted_packets"] == 0
    assert placed["aggregate_goodput_gbps"] > lossy_order["aggregate_goodput_gbps"]
    assert min(leaf1(placed)) == N  # every flow on every uplink


def test_ecmp_qp_hashes_the_destination_qp_too():
    built = build_scenario(small(1, "ecmp_qp"))
    fab = built.fabrics["leaf1"]
    default = fab.api.table("FabricIngress.lb_config").default_args
    assert default[0] == 1  # LB_ECMP_QP


def test_a_user_entry_replaces_the_route_installed_for_the_same_prefix():
    entry = {"table": "FabricIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.5", 32]},
             "action": "FabricIngress.drop"}
    built = build_scenario(small(1, switch_overrides={"leaf1": {"entries": [entry]}}))
    api = built.fabrics["leaf1"].api
    h = api.table_find("FabricIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.0.5", 32)})
    assert api.table("FabricIngress.ipv4_lpm").entry(h).action.endswith("drop")
    plain = build_scenario(small(1)).fabrics["leaf1"].api
    assert api.table_num_entries("FabricIngress.ipv4_lpm") == plain.table_num_entries("FabricIngress.ipv4_lpm")


def test_routes_cover_runs_of_hosts_with_one_prefix_and_a_user_host_route_still_wins():
    # leaf1 reaches leaf2's hosts 10.0.0.5-8 through one group: 10.0.0.5/32, 10.0.0.6/31, 10.0.0.8/32
    api = build_scenario(small(1)).fabrics["leaf1"].api
    lpm = "FabricIngress.ipv4_lpm"
    assert api.table_find(lpm, {"hdr.ipv4.dstAddr": ("10.0.0.6", 31)}) is not None
    assert api.table_num_entries(lpm) == N + 3
    entry = {"table": lpm, "match": {"hdr.ipv4.dstAddr": ["10.0.0.7", 32]}, "action": "FabricIngress.drop"}
    s = run(small(1, switch_overrides={"leaf1": {"entries": [entry]}}))
    to_h7 = [f["goodput_gbps"] or 0 for f in s["flows"] if f["dst"] == "h7"]
    others = [f["goodput_gbps"] or 0 for f in s["flows"] if f["dst"] != "h7"]
    assert to_h7 == [0] and min(others) > 0  # dropped by the /32; h6, in the same /31, still reached


@pytest.mark.parametrize("routing, message", [
    ({"hash": "crc32", "polynomial": 0x1EDC6F41}, "polynomial: needs hash crc32_custom"),
    ({"hash": "crc16_custom", "polynomial": 0x1EDC6F41}, "does not fit crc16_custom"),
    ({"mode": "ecmp", "flowlet_gap": "1500ns"}, "flowlet_gap: 1,500 ns is not whole microseconds"),
    ({"mode": "zigzag"}, "mode"),
])
def test_bad_routing_settings_are_named(routing, message):
    with pytest.raises(ValueError, match=message):
        Scenario.model_validate({"topology": {"star": {"hosts": 2}}, "switch": {"routing": routing}})


def test_more_members_than_the_program_scans_is_refused():
    sc = small(topology={"two_level": {"spines": 17, "leaves": 2, "hosts_per_leaf": 1}},
               workload={"flows": [{"src": "h1", "dst": "h2", "bytes": "4KiB"}]})
    with pytest.raises(ConfigError, match="at most 16"):
        build_scenario(sc, program_cache=CACHE)
