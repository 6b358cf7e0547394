"""routes: auto as planned by emulator/sim/routes.py: prefixes that cover exactly runs of hosts, and a longest-
prefix match over a switch's routes that gives, for every host, the next hops of every shortest path."""
from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.scenario.schema import Topology
from emulator.sim.build import HOST_ADDR0, _wire
from emulator.sim.routes import RoutePlan, cidr_blocks


@given(st.integers(0, (1 << 32) - 1), st.integers(0, 5000))
def test_cidr_blocks_cover_exactly_the_range_with_aligned_blocks(lo, span):
    hi = min(lo + span, (1 << 32) - 1)
    blocks = cidr_blocks(lo, hi)
    covered = 0
    expect = lo
    for addr, plen in blocks:
        size = 1 << (32 - plen)
        assert addr == expect and addr % size == 0  # in order, adjacent, aligned
        expect += size
        covered += size
    assert covered == hi - lo + 1
    assert len(blocks) <= 64


def _lpm(routes, addr):
    best = max((r for r in routes if r.addr <= addr < r.addr + (1 << (32 - r.plen))), key=lambda r: r.plen,
               default=None)
    return best.hops if best is not None else ()


@pytest.mark.parametrize("shape", [{"fat_tree": {"k": 4}}, {"dual_plane": {"tors": 3, "hosts_per_tor": 3, "aggs": 2}},
                                   {"two_level": {"spines": 2, "leaves": 3, "hosts_per_leaf": 5, "parallel_links": 2}}])
def test_every_switch_reaches_every_host_over_every_shortest_path(shape):
    topo = Topology.model_validate(shape)
    w = _wire(topo)
    plan = RoutePlan(topo.switches, w.host_index, w.graph, w.parallel, HOST_ADDR0)
    for sw in topo.switches:
        routes = plan.routes(sw)
        assert len(routes) < len(topo.hosts)  # runs of hosts share prefixes
        for h, i in w.host_index.items():
            got = sorted(nb for nb, _, _ in _lpm(routes, HOST_ADDR0 + i))
            if not nx.has_path(w.graph, sw, h):
                assert got == []  # the other plane
                continue
            nexts = {p[1] for p in nx.all_shortest_paths(w.graph, sw, h)}
            assert got == sorted(nb for nb in nexts for _ in w.parallel[(sw, nb)]), (sw, h)  # every parallel link
