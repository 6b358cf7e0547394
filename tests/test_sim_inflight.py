"""Frames in flight on a link wait in its FIFO (Tx.inflight); the event heap holds only each link's first
arrival, and they arrive at the same times and in the same order as if each had its own event."""
from __future__ import annotations

from emulator.sim import Network
from emulator.sim.fakes import FakeNic, FakeSwitch, fake_frame

G100 = 100_000_000_000


def test_a_long_link_full_of_frames_keeps_one_arrival_on_the_heap():
    net = Network()
    net.add_switch("s1", FakeSwitch())
    frames = [fake_frame(2, 0, 1000, seq=i) for i in range(50)]
    h1, h2 = FakeNic(G100, [(0, f) for f in frames]), FakeNic(G100)
    net.add_host("h1", h1)
    net.add_host("h2", h2)
    net.add_link("h1", 0, "s1", 1, G100, 100_000)  # 100 us: all 50 frames are on the wire at once
    net.add_link("s1", 2, "h2", 0, G100, 0)
    tx = net.hosts["h1"].tx[0]
    seen = []
    net.call_at(4_100, lambda now: seen.append((len(tx.inflight), len(net.engine.heap))))
    net.run()
    inflight, heap = seen[0]
    assert inflight == 50 and heap < 5  # one arrival event for the 50 frames (and no more than a few others)
    # each frame is 81.92 ns on the wire: ends at ceil(81.92 k) ns, arrives 100 us later, out at once on s1:2
    assert [t for t, _ in h2.received] == [100_000 + -(-8192 * k // 100) + -(-8192 // 100) for k in range(1, 51)]
    assert [f for _, f in h2.received] == frames
    assert not tx.inflight
