"""A collective's outputs: `collective.csv` (one row per transfer) and `collective.png` (per-step completion per
rank: when each rank was done with each step, relative to the collective's start, with the step tails)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from emulator.report.output import OutputDir
from emulator.report.plots import _figure, _save

MAX_RANK_LINES = 32  # more ranks than this and the plot shows the tail and a spread band only


def write_collective_csv(out: OutputDir, rows: list[dict[str, Any]]) -> Path:
    with open(out.stage("collective.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["step"])
        w.writeheader()
        w.writerows(rows)
    return out.commit("collective.csv")


def plot_collective(out: OutputDir, report: dict[str, Any], title: str) -> Path:
    """x: step, y: µs since the collective started; a line per rank (or the spread over ranks) and the tail."""
    start = report["start_ns"] or 0
    per_rank = report["rank_step_done_ns"]
    steps = list(range(len(report["steps"])))
    plt, fig, ax = _figure(f"{title}: {report['op']} over {report['n']} ranks, {report['channels']} channel(s)")
    us = [[(t - start) / 1000 if t is not None else None for t in row] for row in per_rank]
    if len(us) <= MAX_RANK_LINES:
        for r, row in enumerate(us):
            pts = [(s, y) for s, y in zip(steps, row) if y is not None]
            if pts:
                ax.plot(*zip(*pts), marker=".", linewidth=0.8, alpha=0.6, label=f"rank {r} ({report['ranks'][r]})")
    else:
        lo = [min((row[s] for row in us if row[s] is not None), default=None) for s in steps]
        pts = [(s, v) for s, v in zip(steps, lo) if v is not None]
        if pts:
            ax.plot(*zip(*pts), linewidth=1, label="first rank done")
    tail = [(st["step"], (st["tail_ns"] - start) / 1000) for st in report["steps"] if st["tail_ns"] is not None]
    if tail:
        ax.plot(*zip(*tail), color="black", linewidth=2, label="step tail (slowest rank)")
    ax.set_xlabel("step")
    ax.set_ylabel("rank done with the step (µs since start)")
    ax.legend(fontsize=6, loc="upper left", ncol=2)
    return _save(out, "collective.png", plt, fig)
