"""Scheduling lateness: how long after its due time a real-time loop did what it had planned.

A switch or host agent on a loaded machine wakes late; a run whose lateness is a large fraction of a frame's
serialization time does not emulate the rates it claims. Loops record every planned action's lateness here and the
runner reports p50 / p99 / max per process.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field


@dataclass
class Lateness:
    """Lateness samples in nanoseconds (an array of 64-bit ints: cheap to append on the hot path)."""

    samples: array = field(default_factory=lambda: array("q"))

    def add(self, late_ns: int) -> None:
        self.samples.append(late_ns if late_ns > 0 else 0)

    def summary(self) -> dict:
        return summarize(self.samples)


def summarize(samples_ns: object) -> dict:
    """{"samples", "p50_us", "p99_us", "max_us"} of lateness samples in ns (None figures without samples)."""
    xs = sorted(samples_ns)
    n = len(xs)
    if not n:
        return {"samples": 0, "p50_us": None, "p99_us": None, "max_us": None}

    def pct(q: float) -> float:
        return round(max(0, xs[min(n - 1, int(q * n))]) / 1000, 1)
    return {"samples": n, "p50_us": pct(0.5), "p99_us": pct(0.99), "max_us": pct(1.0)}


def merge(summaries: list[dict]) -> dict:
    """The worst of several processes' summaries (the figure a run is judged by)."""
    got = [s for s in summaries if s.get("samples")]
    if not got:
        return {"samples": 0, "p50_us": None, "p99_us": None, "max_us": None}
    return {"samples": sum(s["samples"] for s in got), "p50_us": max(s["p50_us"] for s in got),
            "p99_us": max(s["p99_us"] for s in got), "max_us": max(s["max_us"] for s in got)}
