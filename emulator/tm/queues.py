"""Egress port state: 8 priority queues, their depth in packets and bytes, pause state and counters.

A queue entry is a tuple `(job, length, enq_ns, pool, in_port, enq_pkts, enq_bytes)`: tuples are the cheapest
record in CPython and the entry is created once per packet.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from emulator.tm.config import NUM_PRIOS
from emulator.tm.scheduler import StrictScheduler

# entry fields
E_JOB, E_LEN, E_ENQ_NS, E_POOL, E_IN_PORT, E_ENQ_PKTS, E_ENQ_BYTES = range(7)
# buffer pools an entry is charged to: the (port, prio) reserve, the shared pool (lossy), or PFC ingress
# accounting (lossless: shared pool or headroom, released headroom-first)
POOL_RESERVED, POOL_SHARED, POOL_LOSSLESS = 0, 1, 2


@dataclass(slots=True)
class _QueueInfoFallback:
    """Same fields and order as emulator.target.switch.QueueInfo (used until/unless that exists)."""

    enq_timestamp_us: int = 0
    enq_qdepth: int = 0
    deq_timedelta_us: int = 0
    deq_qdepth: int = 0
    enq_qdepth_bytes: int = 0
    deq_qdepth_bytes: int = 0


def queue_info_class() -> type:
    """The target's QueueInfo class if the target is importable, else a field-compatible stand-in."""
    try:
        from emulator.target.switch import QueueInfo  # noqa: PLC0415 - optional, resolved once per TM
    except Exception:  # the target may be absent or mid-development; the contract is positional
        return _QueueInfoFallback
    return QueueInfo


def _zeros() -> list[int]:
    return [0] * NUM_PRIOS


@dataclass
class PortStats:
    """Counters per priority of one switch port (egress side unless noted)."""

    enq_pkts: list[int] = field(default_factory=_zeros)
    enq_bytes: list[int] = field(default_factory=_zeros)
    tx_pkts: list[int] = field(default_factory=_zeros)
    tx_bytes: list[int] = field(default_factory=_zeros)
    drops: list[int] = field(default_factory=_zeros)  # tail drops (lossy) at this egress queue
    headroom_drops: list[int] = field(default_factory=_zeros)  # lossless overflow, counted on the INGRESS port
    max_queue_bytes: list[int] = field(default_factory=_zeros)
    max_queue_pkts: list[int] = field(default_factory=_zeros)
    max_headroom_bytes: list[int] = field(default_factory=_zeros)  # ingress side
    pause_sent: list[int] = field(default_factory=_zeros)  # PFC frames with this class paused (XOFF/refresh)
    resume_sent: list[int] = field(default_factory=_zeros)  # PFC frames with pause time 0 (XON)
    pause_recv: list[int] = field(default_factory=_zeros)  # received PFC frames naming this class (incl. XON)
    paused_ns: list[int] = field(default_factory=_zeros)  # filled by snapshot(): egress time paused
    xoff_ns: list[int] = field(default_factory=_zeros)  # ingress side: time this port held its peer in XOFF

    def passed(self, prio: int, length: int, packets: int = 1) -> None:
        """`packets` packets of `length` bytes each went through an empty queue of `prio` at once: enqueued and
        sent, one at a time (TrafficManager.pass_through; rocelab-switch's flow cache folds its hits in here)."""
        nbytes = packets * length
        self.enq_pkts[prio] += packets
        self.enq_bytes[prio] += nbytes
        self.tx_pkts[prio] += packets
        self.tx_bytes[prio] += nbytes
        if length > self.max_queue_bytes[prio]:
            self.max_queue_bytes[prio] = length
        if not self.max_queue_pkts[prio]:
            self.max_queue_pkts[prio] = 1

    def as_dict(self) -> dict[str, list[int]]:
        return {k: list(v) for k, v in self.__dict__.items()}


class EgressPort:
    """One switch port: its queues and transmit-side pause state. `rate_bps` converts pause quanta to time."""

    __slots__ = ("id", "rate_bps", "delay_ns", "queues", "qbytes", "res_used", "shared_used", "paused_until",
                 "pause_start", "paused_total", "ctrl", "backlog", "_sched", "strict", "stats")

    def __init__(self, port_id: int, rate_bps: int, delay_ns: int, sched: Any):
        self.id = port_id
        self.rate_bps = rate_bps
        self.delay_ns = delay_ns
        self.queues: list[deque] = [deque() for _ in range(NUM_PRIOS)]
        self.qbytes = _zeros()
        self.res_used = _zeros()  # bytes charged to this (port, prio)'s reserve
        self.shared_used = _zeros()  # bytes of this queue in the shared pool
        self.paused_until = _zeros()
        self.pause_start = _zeros()
        self.paused_total = _zeros()
        self.ctrl: deque[bytes] = deque()  # MAC control frames (PFC), sent ahead of all data
        self.backlog = 0  # packets in all queues
        self.sched = sched  # also sets `strict`
        self.stats = PortStats()

    @property
    def sched(self) -> Any:
        return self._sched

    @sched.setter
    def sched(self, sched: Any) -> None:
        self._sched = sched
        # TrafficManager.dequeue inlines StrictScheduler.pick (stateless) instead of calling it per packet
        self.strict = type(sched) is StrictScheduler

    def paused_ns(self, prio: int, now: int) -> int:
        """Total time priority `prio` has been paused by received PFC frames, up to `now`."""
        end = min(now, self.paused_until[prio])
        return self.paused_total[prio] + max(end - self.pause_start[prio], 0)

    def is_paused(self, prio: int, now: int) -> bool:
        return self.paused_until[prio] > now
