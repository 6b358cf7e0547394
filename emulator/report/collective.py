"""A collective's outputs: `collective.csv` (one row per transfer) and `collective.png`, two panels over the steps:
when each rank was done with each step (µs since the collective started, with the step tail, the slowest rank)
and how long each rank's step took (its done time minus its previous step's: a straggling hop stands out)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from emulator.report.output import OutputDir
from emulator.report.plots import _save

MAX_RANK_LINES = 32  # more ranks than this and the plot shows the spread over ranks instead of a line each


def write_collective_csv(out: OutputDir, rows: list[dict[str, Any]]) -> Path:
    with open(out.stage("collective.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["step"])
        w.writeheader()
        w.writerows(rows)
    return out.commit("collective.csv")


def _step_times(row: list[float | None], start: float) -> list[float | None]:
    """Per step: done minus the previous step's done (the first step: minus the start)."""
    out, prev = [], start
    for t in row:
        out.append(None if t is None or prev is None else t - prev)
        prev = t
    return out


def _lines(ax: Any, per_rank: list[list[float | None]], ranks: list[str], steps: list[int]) -> None:
    if len(per_rank) <= MAX_RANK_LINES:
        for r, row in enumerate(per_rank):
            pts = [(s, y) for s, y in zip(steps, row) if y is not None]
            if pts:
                ax.plot(*zip(*pts), marker=".", linewidth=0.8, alpha=0.6, label=f"rank {r} ({ranks[r]})")
        return
    cols = [sorted(row[s] for row in per_rank if row[s] is not None) for s in steps]
    pts = [(s, c[0], c[len(c) // 2], c[-1]) for s, c in zip(steps, cols) if c]
    if pts:
        xs, lo, mid, hi = zip(*pts)
        ax.fill_between(xs, lo, hi, alpha=0.25, label="ranks: min to max")
        ax.plot(xs, mid, linewidth=1, label="median rank")


def plot_collective(out: OutputDir, report: dict[str, Any], title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = report["start_ns"] or 0
    steps = list(range(len(report["steps"])))
    done = [[(t - start) / 1000 if t is not None else None for t in row] for row in report["rank_step_done_ns"]]
    took = [_step_times(row, 0.0) for row in done]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), dpi=110, sharex=True)
    top.set_title(f"{title}: {report['op']} over {report['n']} ranks, {report['channels']} channel(s)")
    _lines(top, done, report["ranks"], steps)
    tail = [(st["step"], (st["tail_ns"] - start) / 1000) for st in report["steps"] if st["tail_ns"] is not None]
    if tail:
        top.plot(*zip(*tail), color="black", linewidth=2, label="step tail (slowest rank)")
    top.set_ylabel("rank done with step (µs)")
    bottom.set_title("time each rank took for each step")
    _lines(bottom, took, report["ranks"], steps)
    bottom.set_ylabel("step time (µs)")
    bottom.set_xlabel("step")
    bottom.set_ylim(bottom=0)
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    if top.get_legend_handles_labels()[0]:  # no rank finished a step (the run failed or stopped early): no legend,
        top.legend(fontsize=6, loc="upper left", ncol=2)  # and no matplotlib warning on stderr about it
    else:
        top.text(0.5, 0.5, "no rank finished a step", transform=top.transAxes, ha="center")
    return _save(out, "collective.png", plt, fig)
