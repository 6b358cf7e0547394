"""Two NICs wired back to back: a tiny integer-ns event loop for tests and examples.

It models each direction as a link of the sender's rate (serialization of frame + preamble/IFG/FCS) plus a
propagation delay, and lets a test drop or rewrite frames in flight (`fault`) or inject frames (e.g. PFC).
The real engine (emulator/sim) does the same with switches in between.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from traffic.nic import WIRE_OVERHEAD, Nic

# fault(sender, frame, now_ns) -> frame to deliver (possibly rewritten) or None to drop it
Fault = Callable[[Nic, bytes, int], "bytes | None"]


@dataclass
class Delivery:
    time_ns: int
    src: str
    dst: str
    frame: bytes


@dataclass
class Loopback:
    a: Nic
    b: Nic
    delay_ns: int = 1000
    fault: Fault | None = None
    now_ns: int = 0
    log: list[Delivery] = field(default_factory=list)
    keep_log: bool = True

    def __post_init__(self) -> None:
        self._free = {id(self.a): 0, id(self.b): 0}
        self._heap: list[tuple[int, int, Nic, bytes]] = []
        self._seq = 0

    def peer(self, nic: Nic) -> Nic:
        return self.b if nic is self.a else self.a

    def inject(self, dst: Nic, frame: bytes, at_ns: int) -> None:
        """Deliver `frame` to dst at at_ns (as if it arrived on its link)."""
        self._seq += 1
        heapq.heappush(self._heap, (at_ns, self._seq, dst, frame))

    def run(self, until_ns: int | None = None, max_steps: int = 10_000_000) -> int:
        """Run until both NICs are idle and nothing is in flight (or until_ns); returns the final time."""
        heap = self._heap
        nics = (self.a, self.b)
        for _ in range(max_steps):
            now = self.now_ns
            while heap and heap[0][0] <= now:
                _, _, dst, frame = heapq.heappop(heap)
                dst.receive(frame, now)
            for nic in nics:
                if self._free[id(nic)] <= now:
                    frame = nic.poll(now)
                    if frame is not None:
                        ser = -(-(len(frame) + WIRE_OVERHEAD) * 8 * 10**9 // int(nic.link_rate_bps))
                        self._free[id(nic)] = now + ser
                        out = frame if self.fault is None else self.fault(nic, frame, now)
                        if out is not None:
                            dst = self.peer(nic)
                            arrive = now + ser + self.delay_ns
                            if self.keep_log:
                                self.log.append(Delivery(arrive, nic.name, dst.name, out))
                            self._seq += 1
                            heapq.heappush(heap, (arrive, self._seq, dst, out))
            nxt = heap[0][0] if heap else None
            for nic in nics:
                free = self._free[id(nic)]
                t = free if free > now else nic.next_wakeup(now)
                if t is not None:
                    t = max(t, now + 1)
                    if nxt is None or t < nxt:
                        nxt = t
            if nxt is None:
                return now
            if until_ns is not None and nxt > until_ns:
                self.now_ns = until_ns
                return until_ns
            self.now_ns = nxt
        raise RuntimeError("loopback did not settle within max_steps")
