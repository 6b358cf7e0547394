"""Egress schedulers: pick which of a port's 8 priority queues sends next, skipping PFC-paused ones.

Both work on the port's `queues` (8 deques of entries whose [1] is the length in bytes) and `paused_until`
(ns per priority; a queue is eligible when paused_until <= now).
"""
from __future__ import annotations

from collections import deque

from emulator.tm.config import NUM_PRIOS, SchedulerConfig

HIGH_FIRST = tuple(range(NUM_PRIOS - 1, -1, -1))  # strict priority order (TrafficManager.dequeue inlines it)


class StrictScheduler:
    """Strict priority, highest priority value first (BMv2 simple_switch with priority queues)."""

    kind = "strict"

    def pick(self, queues: list[deque], paused_until: list[int], now: int) -> int:
        for p in HIGH_FIRST:
            if queues[p] and paused_until[p] <= now:
                return p
        return -1


class DwrrScheduler:
    """Deficit weighted round robin (Shreedhar & Varghese 1995) with quantum weights[p] x quantum_bytes.

    An empty or paused queue loses its deficit and its turn, so a paused priority does not bank credit.
    """

    kind = "dwrr"

    def __init__(self, weights: tuple[int, ...], quantum_bytes: int):
        self.quanta = [w * quantum_bytes for w in weights]
        self.deficit = [0] * NUM_PRIOS
        self.current = 0
        self.fresh = True  # the current queue has not yet received its quantum this turn

    def pick(self, queues: list[deque], paused_until: list[int], now: int) -> int:
        deficit, quanta = self.deficit, self.quanta
        p = self.current
        fresh = self.fresh
        idle_visits = 0
        while True:
            q = queues[p]
            if q and paused_until[p] <= now:
                idle_visits = 0
                if fresh:
                    deficit[p] += quanta[p]
                    fresh = False
                size = q[0][1]
                if size <= deficit[p]:
                    deficit[p] -= size
                    if len(q) == 1:
                        # the queue empties: its turn ends and it keeps no credit (DRR)
                        deficit[p] = 0
                        self.current = (p + 1) % NUM_PRIOS
                        self.fresh = True
                    else:
                        self.current = p
                        self.fresh = False
                    return p
            else:
                deficit[p] = 0
                idle_visits += 1
                if idle_visits > NUM_PRIOS:
                    self.current = p
                    self.fresh = True
                    return -1
            p = (p + 1) % NUM_PRIOS
            fresh = True


def make_scheduler(cfg: SchedulerConfig) -> StrictScheduler | DwrrScheduler:
    if cfg.kind == "dwrr":
        return DwrrScheduler(cfg.weights, cfg.quantum_bytes)
    return StrictScheduler()
