"""A sweep's results: a row per run (parameters and summary figures), statistics per grid point, and plots.

Row columns: `run` (its folder under runs/), `seed`, one column per grid path (the value as written), then the
run's figures: `complete`, `stop_reason`, every top-level number of summary.json (`sim_time_ns`,
`packets_transmitted`, ...), `totals.*`, `fairness.*`, `goodput_gbps` (every flow's payload over the span from
the first start to the last completion; backlogged flows: the sum of their goodputs) and, with a collective,
`collective.time_ns`, `collective.algbw_gbps`, `collective.busbw_gbps`, `collective.time_over_bound`,
`collective.max_step_ns`. Wall-clock time is left out so that the same sweep gives the same sweep.csv wherever it
ran (each run's summary.json keeps its `wall_time_s`).
"""
from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from emulator.report.output import OutputDir
from emulator.sweep.plan import GridAxis, RunTask

DEFAULT_METRICS = ("aggregate_goodput_gbps", "goodput_gbps", "collective.time_ns", "collective.busbw_gbps",
                   "fairness.last_fct_ns", "totals.retransmitted_packets")
MAX_PLOTS = 4
_SKIP = {"wall_time_s", "seed"}


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def figures(s: dict[str, Any]) -> dict[str, Any]:
    """The scalar figures of one summary.json (see the module docstring)."""
    out: dict[str, Any] = {"complete": s.get("complete"), "stop_reason": s.get("stop_reason")}
    out.update({k: v for k, v in s.items() if _number(v) and k not in _SKIP})
    for section in ("totals", "fairness"):
        out.update({f"{section}.{k}": v for k, v in (s.get(section) or {}).items() if v is None or _number(v)})
    out["goodput_gbps"] = aggregate_goodput(s.get("flows") or [])
    coll = s.get("collective")
    if coll:
        for k in ("time_ns", "algbw_gbps", "busbw_gbps", "time_over_bound"):
            out[f"collective.{k}"] = coll.get(k)
        durations = [st["duration_ns"] for st in coll.get("steps", []) if st.get("duration_ns") is not None]
        out["collective.max_step_ns"] = max(durations) if durations else None
    return out


def aggregate_goodput(flows: list[dict[str, Any]]) -> float | None:
    if flows and all(f.get("backlogged") for f in flows):
        return round(sum(f["goodput_gbps"] or 0 for f in flows), 4)
    done = [f for f in flows if f.get("completed")]
    if not done or len(done) != len(flows):
        return None
    span = max(f["end_ns"] for f in done) - min(f["start_ns"] for f in done)
    return round(sum(f["bytes"] for f in done) * 8 / span, 4) if span > 0 else None


def row(task: RunTask, summary: dict[str, Any]) -> dict[str, Any]:
    return {"run": task.run_id, "seed": task.seed, **dict(task.point), **figures(summary)}


def columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    cols: dict[str, None] = {}
    for r in rows:
        cols.update(dict.fromkeys(r))
    return list(cols)


def _cell(v: Any) -> Any:
    return "" if v is None else v


def write_csv(out: OutputDir, name: str, rows: Sequence[dict[str, Any]]) -> Path:
    cols = columns(rows)
    with open(out.stage(name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows([[_cell(r.get(c)) for c in cols] for r in rows])
    return out.commit(name)


def metrics_of(rows: Sequence[dict[str, Any]], axes: Sequence[GridAxis]) -> list[str]:
    """Columns that hold a number in some row (the figures a plot can show)."""
    fixed = {"run", "seed", *(a.path for a in axes)}
    return [c for c in columns(rows) if c not in fixed and any(_number(r.get(c)) for r in rows)]


def point_stats(rows: Sequence[dict[str, Any]], axes: Sequence[GridAxis], metrics: Sequence[str]) -> list[dict]:
    """Per grid point and metric: runs with a value, mean, sample standard deviation, min and max."""
    out = []
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r.get(a.path) for a in axes), []).append(r)
    for key, members in groups.items():
        for m in metrics:
            xs = [float(r[m]) for r in members if _number(r.get(m))]
            mean = sum(xs) / len(xs) if xs else None
            std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else (0.0 if xs else None)
            out.append({**{a.path: v for a, v in zip(axes, key)}, "metric": m, "runs": len(xs),
                        "mean": None if mean is None else round(mean, 6), "std": None if std is None else round(std, 6),
                        "min": min(xs) if xs else None, "max": max(xs) if xs else None})
    return out


def plot_metric(out: OutputDir, stats: list[dict], rows: Sequence[dict[str, Any]], axes: Sequence[GridAxis],
                metric: str, title: str) -> Path:
    """Mean with a standard-deviation bar and a min-max band per grid point: x is the first grid axis, one line
    per combination of the others (no grid: the runs' values by seed, with their mean)."""
    from emulator.report.plots import _figure, _save

    plt, fig, ax = _figure(f"{title}: {metric}")
    mine = [s for s in stats if s["metric"] == metric and s["mean"] is not None]
    if axes:
        x_axis, rest = axes[0], axes[1:]
        xs = _positions(x_axis.values)
        lines: dict[tuple, list[dict]] = {}
        for s in mine:
            lines.setdefault(tuple(s[a.path] for a in rest), []).append(s)
        for key, pts in lines.items():
            pts.sort(key=lambda s: x_axis.values.index(s[x_axis.path]))
            px = [xs[x_axis.values.index(s[x_axis.path])] for s in pts]
            label = ", ".join(f"{a.path}={v}" for a, v in zip(rest, key)) or "mean ± std"
            bar = ax.errorbar(px, [s["mean"] for s in pts], yerr=[s["std"] for s in pts], marker="o", capsize=3,
                              label=label)
            ax.fill_between(px, [s["min"] for s in pts], [s["max"] for s in pts], alpha=0.15,
                            color=bar[0].get_color())
        if not all(isinstance(x, float) for x in _numeric(x_axis.values)):
            ax.set_xticks(xs, x_axis.values)
        ax.set_xlabel(x_axis.path)
        ax.legend(fontsize=7)
    elif mine:
        s = mine[0]
        runs = [r for r in rows if _number(r.get(metric))]
        ax.plot([r["seed"] for r in runs], [r[metric] for r in runs], "o", alpha=0.6, label="runs")
        ax.axhline(s["mean"], color="black", label=f"mean {s['mean']:.4g} ± {s['std']:.3g} ({s['runs']} runs)")
        ax.axhspan(s["min"], s["max"], alpha=0.15)
        ax.set_xlabel("seed")
        ax.legend(fontsize=7)
    ax.set_ylabel(metric)
    return _save(out, plot_name(metric), plt, fig)


def plot_name(metric: str) -> str:
    return f"sweep-{metric.replace('.', '_')}.png"


def output_names(metrics: Sequence[str] | None) -> list[str]:
    """Every file a sweep may write in its folder, checked before the first run (a plot name that is a symlink or
    a folder was found after the whole sweep had run): the plot of each asked metric, or of each default one
    (which defaults have figures is known only once runs finished)."""
    return ["sweep.json", "sweep.csv", "sweep_summary.csv", *(plot_name(m) for m in metrics or DEFAULT_METRICS)]


def _numeric(values: Sequence[str]) -> list[float | str]:
    out: list[float | str] = []
    for v in values:
        try:
            out.append(float(v))
        except ValueError:
            out.append(v)
    return out


def _positions(values: Sequence[str]) -> list[float]:
    """Numbers stand where they are; anything else (units, names) at 0, 1, 2, ..."""
    nums = _numeric(values)
    return [float(x) for x in nums] if all(isinstance(x, float) for x in nums) else [float(i) for i in range(len(values))]


def write_summary(out: OutputDir, rows: Sequence[dict[str, Any]], axes: Sequence[GridAxis], title: str,
                  metrics: Sequence[str] | None = None) -> list[Path]:
    """sweep_summary.csv (every metric per grid point) and a plot per chosen metric (the defaults present)."""
    all_metrics = metrics_of(rows, axes)
    stats = point_stats(rows, axes, all_metrics)
    files = [write_csv(out, "sweep_summary.csv", stats)] if stats else []
    chosen = list(metrics) if metrics else [m for m in DEFAULT_METRICS if m in all_metrics][:MAX_PLOTS]
    for m in (m for m in chosen if m in all_metrics):  # a --metric no run has (a typo) gets no empty plot
        files.append(plot_metric(out, stats, rows, axes, m, title))
    return files
