"""The virtual-time event loop: integer nanoseconds, a heap of (time, seq, fn, arg), seq breaking ties.

Callbacks are `fn(arg, now_ns)`. Events at the same time run in the order they were scheduled, so a run is a
pure function of its inputs and seed. The loop is the hot path of every simulation: one heap pop and one call
per event, with cheap stop checks.
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Callback = Callable[[Any, int], None]


@dataclass
class LoopOutcome:
    reason: str  # "idle" (no events left), "until", "stop_when", "stopped", "interrupted"
    end_ns: int
    events: int
    wall_s: float

    @property
    def complete(self) -> bool:
        return self.reason != "interrupted"


class Engine:
    __slots__ = ("heap", "seq", "now", "events", "_stop")

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, Callback, Any]] = []
        self.seq = 0
        self.now = 0
        self.events = 0
        self._stop = False

    def at(self, t: int, fn: Callback, arg: Any = None) -> None:
        """Run fn(arg, t) at virtual time t (ns). Scheduling in the past is a bug in the caller."""
        if t < self.now:
            raise ValueError(f"event scheduled in the past: {t} < now {self.now}")
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, fn, arg))

    def after(self, dt: int, fn: Callback, arg: Any = None) -> None:
        self.at(self.now + dt, fn, arg)

    def stop(self) -> None:
        """Ask run() to return after the current event."""
        self._stop = True

    def pending(self) -> int:
        return len(self.heap)

    def run(self, until_ns: int | None = None, stop_when: Callable[[], bool] | None = None,
            progress: Callable[[int, int], None] | None = None, check_every: int = 64,
            progress_interval_s: float = 0.25, check_ns: int = 10_000) -> LoopOutcome:
        """Run events in time order until none are left, `until_ns` is passed, stop_when() is true, stop() is
        called, or Ctrl-C. `stop_when` is checked every `check_every` events; `progress(now_ns, events)` at most
        every `progress_interval_s` wall seconds (looked at every `check_every` events). stop_when is also checked before any event `check_ns` or more
        after the last check, so a finished run does not run on to a far timer. A KeyboardInterrupt ends the
        loop cleanly (reason "interrupted")."""
        if until_ns is not None and until_ns < self.now:
            raise ValueError(f"until_ns {until_ns} is before the current time {self.now}")
        heap = self.heap
        pop = heapq.heappop
        inf = float("inf")
        limit = until_ns if until_ns is not None else inf
        next_check = self.now + check_ns if stop_when is not None else inf
        bound = min(next_check, limit)  # one comparison per event covers both time checks
        mask = max(1, check_every)
        count = 0
        reason = "idle"
        self._stop = False
        wall0 = time.perf_counter()
        next_progress = wall0 + progress_interval_s
        try:
            while heap:
                if heap[0][0] >= bound:
                    t = heap[0][0]
                    if t >= next_check:
                        if stop_when():
                            reason = "stop_when"
                            break
                        next_check = t + check_ns
                    if t > limit:
                        reason = "until"
                        self.now = until_ns  # time has passed up to the limit
                        break
                    bound = min(next_check, limit)
                t, _, fn, arg = pop(heap)
                self.now = t
                fn(arg, t)
                count += 1
                if self._stop:
                    reason = "stopped"
                    break
                if not count % mask:
                    if stop_when is not None and stop_when():
                        reason = "stop_when"
                        break
                    if progress is not None:
                        w = time.perf_counter()
                        if w >= next_progress:
                            next_progress = w + progress_interval_s
                            progress(t, self.events + count)
            if reason == "idle" and stop_when is not None and stop_when():
                reason = "stop_when"
        except KeyboardInterrupt:
            reason = "interrupted"
        self.events += count
        return LoopOutcome(reason, self.now, count, time.perf_counter() - wall0)
