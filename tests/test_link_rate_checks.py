"""Every link rate of a scenario carries a frame within the run and the ACK timeout, refused by its field path.

Only topology.rate was checked: a shorthand's uplink_rate, the uplink rate two_level's oversubscription derives and
an explicit link's rate were taken as written, and a frame that outlasted the run or the timeout only ended it with
every flow unfinished. The hostile corpus has the YAML cases (tests/hostile/scenarios/rate_*.yaml)."""
from __future__ import annotations

import pytest

from emulator.errors import ConfigError
from emulator.scenario.schema import Scenario
from emulator.sim.checks import check_rate, link_rates

FLOW = {"flows": [{"src": "h1", "dst": "h2", "bytes": 4096}]}
SLOW = {"max_duration": "1ms", "nic": {"timeout": 0}}  # a 1,098-byte frame at 1 Mb/s takes 8.8 ms


def _scenario(topology: dict, **extra) -> Scenario:
    return Scenario.model_validate({"name": "t", "topology": topology, "workload": FLOW, **SLOW, **extra})


@pytest.mark.parametrize("topology, path", [
    ({"two_level": {"spines": 1, "leaves": 2, "hosts_per_leaf": 1, "uplink_rate": "1Mbps"}},
     "topology.two_level.uplink_rate"),
    # 1 host x 100 Gb/s over 1 spine x 100,000: 1 Mb/s uplinks
    ({"two_level": {"spines": 1, "leaves": 2, "hosts_per_leaf": 1, "oversubscription": 100_000}},
     "topology.two_level.oversubscription"),
    ({"fat_tree": {"k": 4, "uplink_rate": "1Mbps"}}, "topology.fat_tree.uplink_rate"),
    ({"switches": ["s1"], "hosts": ["h1", "h2"], "links": [["h1", "s1"], {"a": "h2", "b": "s1", "rate": "1Mbps"}]},
     "topology.links[1].rate"),
])
def test_a_slow_link_is_refused_by_its_field_path(topology, path):
    with pytest.raises(ConfigError) as err:
        check_rate(_scenario(topology))
    assert err.value.path == path and "1,000,000 bit/s puts a 1,098-byte frame on the wire" in err.value.message


def test_a_fast_scenario_passes_and_topology_rate_counts_only_when_a_link_uses_it():
    check_rate(_scenario({"two_level": {"spines": 1, "leaves": 2, "hosts_per_leaf": 1, "uplink_rate": "40Gbps"}}))
    every_link_set = {"rate": "1Mbps", "switches": ["s1"], "hosts": ["h1", "h2"],
                      "links": [{"a": "h1", "b": "s1", "rate": "100Gbps"}, {"a": "h2", "b": "s1", "rate": "100Gbps"}]}
    sc = _scenario(every_link_set)
    assert [p for p, _, _ in link_rates(sc)] == ["topology.links[0].rate", "topology.links[1].rate"]
    check_rate(sc)  # topology.rate is no link's rate here: nothing runs at 1 Mb/s
