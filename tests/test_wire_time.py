"""Wire time is exact: a backlogged port delivers its nominal rate at 100 and 800 Gb/s, whatever the frame sizes
(per-frame rounding to whole ns used to lose 1.1 % at 100 Gb/s and 11 % at 800 Gb/s)."""
from __future__ import annotations

import random

import pytest

from emulator.sim import Network
from emulator.sim.fakes import FakeNic, FakeSwitch, fake_frame
from emulator.tm.wire import WIRE_OVERHEAD_BYTES, WireClock, serialization_ns

G100, G800 = 100_000_000_000, 800_000_000_000
MAX_WIRE = 1500 + WIRE_OVERHEAD_BYTES  # one frame, the tolerance


def backlog(n: int = 5000, seed: int = 4) -> list[tuple[int, bytes]]:
    """n frames of 60 to 1,500 bytes, all ready at t = 0, to port 2 of a FakeSwitch."""
    rng = random.Random(seed)
    return [(0, fake_frame(2, 0, rng.choice((60, 64, 99, 512, 1000, 1024, 1106, 1500)), seq=i)) for i in range(n)]


def ideal_ns(wire_bytes: int, rate: int) -> float:
    return wire_bytes * 8e9 / rate


@pytest.mark.parametrize("rate", [G100, G800])
def test_a_backlogged_host_port_delivers_its_nominal_rate(rate):
    net = Network()
    tx, rx = FakeNic(rate, backlog()), FakeNic(rate)
    net.add_host("a", tx)
    net.add_host("b", rx)
    net.add_link("a", 0, "b", 0, rate, 0)
    net.run()
    assert len(rx.received) == 5000
    wire = 0
    for t, frame in rx.received:  # at every arrival: what came in is rate x time, to within one frame
        wire += len(frame) + WIRE_OVERHEAD_BYTES
        assert abs(t - ideal_ns(wire, rate)) < 1  # the exact end of this frame, rounded up to whole ns
    assert wire * 8 / (rx.received[-1][0] * 1e-9) == pytest.approx(rate, rel=1e-4)  # 5,000 frames in ~50-400 µs


@pytest.mark.parametrize("rate", [G100, G800])
def test_a_backlogged_switch_port_delivers_its_nominal_rate(rate):
    net = Network()
    net.add_switch("s1", FakeSwitch())
    src, dst = FakeNic(rate, backlog()), FakeNic(rate)
    net.add_host("h1", src)
    net.add_host("h2", dst)
    net.add_link("h1", 0, "s1", 1, rate, 700)
    net.add_link("s1", 2, "h2", 0, rate, 300)
    net.run()
    assert len(dst.received) == 5000
    first_t, first = dst.received[0]
    start = first_t - 300 - ideal_ns(len(first) + WIRE_OVERHEAD_BYTES, rate)  # the first bit out of s1's port 2
    wire = 0
    for t, frame in dst.received:
        wire += len(frame) + WIRE_OVERHEAD_BYTES
        assert abs((t - 300 - start) - ideal_ns(wire, rate)) <= ideal_ns(MAX_WIRE, rate) + 1
    busy = net.links[1].stats()["a_to_b"]["busy_ns"]
    assert busy == int(ideal_ns(wire, rate))  # the port's busy time is the exact wire time


def test_wire_clock_carries_the_fraction_of_a_ns():
    clock = WireClock(G800)  # 60 bytes: 84 x 8 / 800 = 0.84 ns
    ends = []
    t = 0
    for _ in range(100):
        t = clock.send(60, t)
        ends.append(t)
    assert ends[:5] == [1, 2, 3, 4, 5] and ends[-1] == 84  # 100 x 0.84 = 84 ns, not 100
    assert clock.send(60, 200) == 201  # after an idle gap the next frame starts when it is sent
    assert serialization_ns(60, G800) == 1  # one frame alone still waits for its last bit: 0.84 -> 1 ns
    with pytest.raises(ValueError):
        WireClock(0)
