"""Network.run sets the objects that exist before it aside from the cyclic collector for its length (gc.freeze)
and hands them back after, unless its caller froze some itself (then it leaves the freeze alone)."""
from __future__ import annotations

import gc

from emulator.sim import Network
from emulator.sim.fakes import FakeNic

G100 = 100_000_000_000


def _net() -> tuple[Network, list[int]]:
    net = Network(seed=1)
    net.add_host("h1", FakeNic(G100))
    net.add_host("h2", FakeNic(G100))
    net.add_link("h1", 0, "h2", 0, G100, 1000)
    seen: list[int] = []
    net.call_at(10, lambda now: seen.append(gc.get_freeze_count()))
    return net, seen


def test_run_freezes_the_built_network_and_unfreezes_after():
    gc.unfreeze()
    net, seen = _net()
    net.run()
    assert seen and seen[0] > 0  # during the run: the network (and all else alive) is not scanned
    assert gc.get_freeze_count() == 0  # handed back to the collector


def test_run_leaves_a_callers_freeze_alone():
    gc.unfreeze()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        net, seen = _net()
        net.run()
        assert gc.get_freeze_count() >= frozen  # not undone by the run
    finally:
        gc.unfreeze()


def test_run_with_the_collector_off_freezes_nothing():
    gc.unfreeze()
    gc.disable()
    try:
        net, seen = _net()
        net.run()
        assert seen == [0]
    finally:
        gc.enable()
