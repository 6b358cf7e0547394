"""Full-duplex point-to-point links and the per-direction transmitter state.

A frame's wire time is exact (emulator/tm/wire.WireClock): a busy port's frames follow each other at the exact end
of the previous one, and each frame's end reaches the event list rounded up to whole ns (at 100 Gb/s a 1,000-byte
frame takes 1,024 x 8 / 100 = 81.92 ns; 100 of them back to back take 8,192 ns, not 8,200). A frame arrives at the
far end `serialization + propagation delay` after its first bit left (store and forward).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.tm.wire import WireClock, serialization_ns  # noqa: F401  (re-exported for the engine)

Tap = Callable[[int, bytes, str], None]  # (time_ns, frame, "rx" | "tx")


class Tx(WireClock):
    """One direction of a link as seen by its sending node's port (its WireClock keeps the wire time exact)."""

    __slots__ = ("port", "delay", "busy_until", "done_at", "peer", "peer_port", "frames", "bytes", "taps",
                 "rx_taps", "rx_frames", "rx_bytes", "link", "done_cb", "peer_arrive", "peer_tx", "node", "sent",
                 "sent_log", "loss", "loss_rng", "lost", "last_start", "last_len", "inflight")

    def __init__(self, port: int, rate_bps: int, delay_ns: int):
        super().__init__(rate_bps)
        self.port = port
        self.delay = delay_ns
        self.busy_until = 0  # the transmitter is free from this time on (the last frame's end, rounded up)
        self.last_start = 0  # when the last frame began serializing, and its length: how much of it is on the
        self.last_len = 0  # wire at a given time (throughput samples count a frame as it is serialized)
        self.done_at = -1  # time of the pending tx-done event, -1 if none (switches skip it when idle)
        self.peer: Any = None  # the receiving node
        self.peer_port = 0
        self.frames = 0
        self.bytes = 0
        self.taps: list[Tap] = []  # frames sent out of this port
        self.rx_taps: list[Tap] = []  # frames received on this port
        self.rx_frames = 0
        self.rx_bytes = 0
        self.link: Link | None = None
        # bound once by Node.attach so the per-frame path allocates no method objects
        self.done_cb: Any = None
        self.peer_arrive: Any = None
        self.peer_tx: Tx | None = None
        self.node = ""  # name of the sending node
        # set by the first frame after an observer emptied `sent_log` (the network's list of transmitters that
        # sent since its last port sample), so sampling costs the busy ports, not all of them
        self.sent = False
        self.sent_log: list[Tx] = []
        self.loss = 0.0  # probability that a frame sent here never arrives (drawn from loss_rng)
        self.loss_rng: Any = None
        self.lost = 0
        # frames on their way to the far end, (arrival ns, event seq, frame), in order: the delay is the link's
        # and a frame ends after the previous one, so only the first is on the event heap (see Node.transmit)
        self.inflight: deque[tuple[int, int, bytes]] = deque()


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
