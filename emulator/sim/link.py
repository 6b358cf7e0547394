"""Full-duplex point-to-point links and the per-direction transmitter state.

Serialization time of a frame of L bytes (as handed over, without FCS) at R bits/s is
`ceil((L + 4 FCS + 8 preamble/SFD + 12 inter-frame gap) * 8 * 1e9 / R)` ns: the wire occupancy of one frame,
rounded up per frame to whole ns (at 100 Gb/s a 1,000-byte frame takes 1,024 x 8 / 100 = 81.92 -> 82 ns). A frame
arrives at the far end `serialization + propagation delay` after its first bit left (store and forward).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.tm.wire import WIRE_OVERHEAD_BYTES, serialization_ns  # noqa: F401  (re-exported for the engine)

Tap = Callable[[int, bytes, str], None]  # (time_ns, frame, "rx" | "tx")


class Tx:
    """One direction of a link as seen by its sending node's port."""

    __slots__ = ("port", "_rate", "ser_ns", "delay", "busy_until", "done_at", "peer", "peer_port", "frames", "bytes", "busy_ns", "taps",
                 "rx_taps", "rx_frames", "rx_bytes", "link", "done_cb", "peer_arrive", "peer_tx", "loss", "loss_rng",
                 "lost")

    def __init__(self, port: int, rate_bps: int, delay_ns: int):
        self.port = port
        self._rate = rate_bps
        # frame length -> serialization_ns(length, rate): a dict hit instead of big-int arithmetic per frame
        self.ser_ns: dict[int, int] = {}
        self.delay = delay_ns
        self.busy_until = 0  # the transmitter is free from this time on
        self.done_at = -1  # time of the pending tx-done event, -1 if none (switches skip it when idle)
        self.peer: Any = None  # the receiving node
        self.peer_port = 0
        self.frames = 0
        self.bytes = 0
        self.busy_ns = 0
        self.taps: list[Tap] = []  # frames sent out of this port
        self.rx_taps: list[Tap] = []  # frames received on this port
        self.rx_frames = 0
        self.rx_bytes = 0
        self.link: Link | None = None
        # bound once by Node.attach so the per-frame path allocates no method objects
        self.done_cb: Any = None
        self.peer_arrive: Any = None
        self.peer_tx: Tx | None = None
        self.loss = 0.0  # probability that a frame sent here never arrives (drawn from loss_rng)
        self.loss_rng: Any = None
        self.lost = 0

    @property
    def rate(self) -> int:
        return self._rate

    @rate.setter
    def rate(self, rate_bps: int) -> None:
        self._rate = rate_bps
        self.ser_ns = {}


@dataclass
class Link:
    a: str
    port_a: int
    b: str
    port_b: int
    rate_bps: int
    delay_ns: int
    tx_a: Tx = field(repr=False, default=None)  # a -> b
    tx_b: Tx = field(repr=False, default=None)  # b -> a

    def stats(self) -> dict[str, Any]:
        def side(tx: Tx) -> dict[str, int]:
            return {"frames": tx.frames, "bytes": tx.bytes, "busy_ns": tx.busy_ns, "lost": tx.lost}
        return {"a": f"{self.a}:{self.port_a}", "b": f"{self.b}:{self.port_b}", "rate_bps": self.rate_bps,
                "delay_ns": self.delay_ns, "a_to_b": side(self.tx_a), "b_to_a": side(self.tx_b)}
