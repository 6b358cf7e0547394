"""What a frame costs on the wire: the bytes the MAC adds around it, and its serialization time kept exact.

A frame of L bytes (as handed over, without FCS) occupies the wire for (L + 4 FCS + 8 preamble/SFD + 12 IFG) x 8
bit times. At 100 Gb/s that is 81.92 ns for 1,000 bytes: rounding each frame up to whole nanoseconds would lose
1.1 % of the capacity at 100 Gb/s and 11 % at 800 Gb/s (a 60-byte frame: 0.84 -> 1 ns). `WireClock` keeps the
transmitter's time exactly, in units of 1/den ns in which a byte takes a whole number of units, and hands the
engine each frame's end rounded up to the next whole ns; the next frame of a busy port starts at the exact end,
so back-to-back frames add up to the nominal rate and the rounding never accumulates.
"""
from __future__ import annotations

from math import gcd

WIRE_OVERHEAD_BYTES = 4 + 8 + 12  # FCS + preamble/SFD + IFG
NS_BITS = 8_000_000_000  # bit times of one byte, in ns x bits/s


def serialization_ns(length: int, rate_bps: int) -> int:
    """Wire time of one frame of `length` bytes (no FCS) at `rate_bps`, rounded up to whole ns (the wait before
    a lone frame's last bit is out; a busy port's frames follow each other exactly, see WireClock)."""
    return -(-(length + WIRE_OVERHEAD_BYTES) * NS_BITS // rate_bps)


class WireClock:
    """The exact time line of one transmitter.

    `send(length, start_ns)` puts a frame on the wire at whole-ns time `start_ns` and returns the whole ns at
    which its last bit is out (rounded up). When the previous frame's exact end is less than 1 ns before
    `start_ns`, the port never went idle (`start_ns` is that end rounded up) and the frame starts at the exact end.
    """

    __slots__ = ("rate", "den", "per_byte", "end", "busy")

    def __init__(self, rate_bps: int):
        if rate_bps <= 0:
            raise ValueError(f"link rate must be positive, got {rate_bps}")
        self.rate = int(rate_bps)
        g = gcd(NS_BITS, self.rate)
        self.den = self.rate // g  # time unit: 1/den ns (100 Gb/s: 1/25 ns; 800 Gb/s: 1/100 ns; 10 Mb/s: 1 ns)
        self.per_byte = NS_BITS // g  # units per byte on the wire (100 Gb/s: 2; 800 Gb/s: 1; 10 Mb/s: 800)
        self.end = 0  # exact end of the last frame, in units
        self.busy = 0  # exact time spent sending, in units

    def send(self, length: int, start_ns: int) -> int:
        den = self.den
        start = start_ns * den
        if start - self.end < den:
            start = self.end  # back to back: the port was busy until less than 1 ns ago
        units = (length + WIRE_OVERHEAD_BYTES) * self.per_byte
        self.busy += units
        self.end = end = start + units
        return -(-end // den)

    @property
    def busy_ns(self) -> int:
        """Time spent sending, in whole ns (rounded down)."""
        return self.busy // self.den
