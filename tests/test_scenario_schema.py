"""Scenario files: shorthand topologies, workload patterns, --set overrides, and errors that name the field."""
from __future__ import annotations

import pytest

from emulator.errors import ConfigError
from emulator.scenario.load import apply_override, load_scenario
from emulator.scenario.schema import Scenario
from emulator.sim.build import build_scenario, workload_flows


def scenario(**kw) -> Scenario:
    return Scenario.model_validate(kw)


def test_star_shorthand_names_hosts_and_links():
    sc = scenario(topology={"star": {"switch": "tor", "hosts": 3}}, workload={"flows": [
        {"src": "h1", "dst": "h3", "bytes": "1KiB"}]})
    t = sc.topology
    assert t.switches == ["tor"] and t.hosts == ["h1", "h2", "h3"]
    assert [(lk.a, lk.b) for lk in t.links] == [("h1", "tor"), ("h2", "tor"), ("h3", "tor")]


def test_two_level_shorthand_is_a_full_leaf_spine_mesh():
    t = scenario(topology={"two_level": {"spines": 2, "leaves": 3, "hosts_per_leaf": 2,
                                         "uplink_rate": "400Gbps"}}).topology
    assert t.switches == ["leaf1", "leaf2", "leaf3", "spine1", "spine2"] and len(t.hosts) == 6
    ups = [(lk.a, lk.b) for lk in t.links if lk.b.startswith("spine")]
    assert len(ups) == 6 and all(lk.rate == 400 * 10**9 for lk in t.links if lk.b.startswith("spine"))
    assert [(lk.a, lk.b) for lk in t.links][:2] == [("h1", "leaf1"), ("h2", "leaf1")]


def test_two_level_builds_with_ecmp_over_both_spines():
    sc = scenario(topology={"two_level": {"spines": 2, "leaves": 2, "hosts_per_leaf": 2}},
                  workload={"permutation": {"hosts": ["h1", "h2", "h3", "h4"], "bytes": "64KiB"}})
    built = build_scenario(sc)
    res = built.net.run(stop_when=built.done, until_ns=10_000_000)
    assert built.done() and res.switches["leaf1"]["tm"]["ports"]
    # leaf1's uplinks are ports 3 (spine1) and 4 (spine2)
    assert built.ports[("leaf1", "spine1")] == 3 and built.ports[("leaf1", "spine2")] == 4


def test_shorthand_and_explicit_lists_do_not_mix():
    with pytest.raises(ValueError, match="give one of star, two_level"):
        scenario(topology={"star": {"hosts": 2}, "hosts": ["x"]})
    with pytest.raises(ValueError, match="no hosts"):
        scenario(topology={"switches": ["s1"]})


def test_patterns_expand_deterministically_from_the_seed():
    wl = {"many_to_many": {"hosts": ["h1", "h2", "h3"], "bytes": 1000},
          "permutation": {"hosts": ["h1", "h2", "h3", "h4"], "bytes": 2000, "jitter": "1us"},
          "incast": {"senders": ["h1", "h2"], "receiver": "h4", "bytes": 10, "jitter": "2us"}}
    sc = scenario(seed=7, topology={"star": {"hosts": 4}}, workload=wl)
    flows = workload_flows(sc.workload, sc.seed)
    assert len(flows) == 6 + 4 + 2
    perm = [f for f in flows if f.name.startswith("perm")]
    assert sorted(f.src for f in perm) == sorted(f.dst for f in perm) == ["h1", "h2", "h3", "h4"]
    assert all(f.src != f.dst for f in perm) and all(0 <= f.start_ns <= 2000 for f in flows)
    assert [f.start_ns for f in flows] == sorted(f.start_ns for f in flows)
    assert workload_flows(sc.workload, sc.seed) == flows  # same seed, same flows
    other = workload_flows(sc.workload, 8)
    assert [(f.src, f.dst, f.start_ns) for f in other] != [(f.src, f.dst, f.start_ns) for f in flows]


@pytest.mark.parametrize("workload, path", [
    ({"many_to_many": {"hosts": ["h1", "zz"], "bytes": 1}}, "workload.many_to_many.hosts[1]"),
    ({"permutation": {"hosts": ["h1"], "bytes": 1}}, "workload.permutation.hosts"),
    ({"incast": {"senders": ["h1", "h2"], "receiver": "h2", "bytes": 1}}, "workload.incast.receiver"),
])
def test_pattern_errors_name_the_field(tmp_path, workload, path):
    import yaml

    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump({"topology": {"star": {"hosts": 3}}, "workload": workload}))
    with pytest.raises(ConfigError) as err:
        load_scenario(f)
    assert f"error: {path}:" in str(err.value) and str(err.value).startswith(f"{f}:")


def test_set_overrides_nested_fields_and_list_items():
    data = {"workload": {"flows": [{"src": "a"}]}}
    apply_override(data, "workload.flows[0].bytes=2MiB")
    apply_override(data, "switch.pfc.enabled=true")
    assert data["workload"]["flows"][0]["bytes"] == "2MiB" and data["switch"]["pfc"]["enabled"] is True
    with pytest.raises(ConfigError, match="index 3 out of range"):
        apply_override(data, "workload.flows[3].bytes=1")
    with pytest.raises(ConfigError, match="path=value"):
        apply_override(data, "seed")


def test_host_nics_override_fields_of_nic_per_host():
    sc = scenario(topology={"star": {"hosts": 3}}, nic={"mtu": 2048, "dcqcn": {"enabled": True}},
                  host_nics={"h2": {"dcqcn": {"rate_ai": "1Gbps"}}, "h3": {"mtu": 4096}})
    assert sc.nic_of("h1") == sc.nic
    h2, h3 = sc.nic_of("h2"), sc.nic_of("h3")
    assert h2.mtu == 2048 and h2.dcqcn.enabled and h2.dcqcn.rate_ai == 10**9
    assert h3.mtu == 4096 and h3.dcqcn.enabled
    built = build_scenario(sc)
    assert built.nics["h3"].config.mtu == 4096 and built.nics["h1"].config.mtu == 2048
    with pytest.raises(ValueError, match="host_nics.zz: unknown host"):
        scenario(topology={"star": {"hosts": 1}}, host_nics={"zz": {}})


def test_switch_overrides_and_port_scheduling_reach_each_switch():
    sc = scenario(topology={"two_level": {"spines": 1, "leaves": 2, "hosts_per_leaf": 1}},
                  switch={"pfc": {"enabled": True, "xoff": "40KB"}, "port_scheduling": {2: {"dwrr_weights": [2] * 8}}},
                  switch_overrides={"spine1": {"pfc": {"enabled": False}, "buffer": {"size": "2MiB"}}})
    spine, where = sc.switch_of("spine1")
    assert where == "switch_overrides.spine1" and not spine.pfc.enabled and spine.pfc.xoff == 40_000
    built = build_scenario(sc)
    leaf_tm, spine_tm = built.net.switches["leaf1"].tm, built.net.switches["spine1"].tm
    assert leaf_tm.config.pfc.enabled and not spine_tm.config.pfc.enabled
    assert spine_tm.config.buffer_bytes == 2 * 2**20 and leaf_tm.config.buffer_bytes == 12 * 2**20
    assert leaf_tm.config.port_schedulers[2].kind == "dwrr" and leaf_tm.config.port_schedulers[2].weights == (2,) * 8
    with pytest.raises(ValueError, match="switch_overrides.zz: unknown switch"):
        scenario(topology={"star": {"hosts": 1}}, switch_overrides={"zz": {}})
    with pytest.raises(ValueError, match="8 positive weights"):
        scenario(topology={"star": {"hosts": 1}}, switch={"port_scheduling": {1: {"dwrr_weights": [1]}}})


def test_a_missing_program_names_the_field(tmp_path):
    sc = scenario(topology={"star": {"hosts": 2}}, switch_overrides={"s1": {"program": "nope.p4"}})
    with pytest.raises(ConfigError, match="error: switch_overrides.s1.program: P4 program not found"):
        build_scenario(sc, base_dir=tmp_path)


@pytest.mark.parametrize("topology, message", [
    ({"fat_tree": {"k": 48}}, "topology.hosts: 27,648 hosts, more than the 16,384"),
    ({"fat_tree": {"k": 64}}, "topology.hosts: 65,536 hosts"),
    ({"two_level": {"spines": 20, "leaves": 2, "hosts_per_leaf": 256, "parallel_links": 16}},
     "topology.links: switch leaf1 has 576 links, more than the 510 ports"),
    ({"switches": [f"s{i}" for i in range(2049)], "hosts": ["h1"], "links": [["h1", "s0"]]},
     "topology.switches: 2,049 switches, more than the 2,048"),
])
def test_limits_on_hosts_switches_and_ports_name_the_field(tmp_path, topology, message):
    import yaml

    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump({"topology": topology}))
    with pytest.raises(ConfigError, match=message):
        load_scenario(f)
