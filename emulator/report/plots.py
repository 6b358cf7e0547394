"""PNG plots of a run, from the recorder's series and the summary: what a person looks at first.

- queues.png: egress queue depth (KB) over time, one line per busy (switch, port, priority);
- throughput.png: each flow's delivered rate (Gb/s) over time (a collective: each NIC's transmit rate);
- pauses.png: PFC pause timeline — for each (switch, port, priority) that sent XOFF, the intervals it held its
  peer paused;
- fct.png: flow completion times (or goodput of backlogged flows), one bar per flow (none for a collective).
matplotlib with the Agg backend: no display needed.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from emulator.report.natural import natural_key
from emulator.report.output import OutputDir

MAX_LINES = 16  # more series than this and a plot shows the busiest ones


def _figure(title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return plt, fig, ax


def _save(out: OutputDir, name: str, plt: Any, fig: Any) -> Path:
    fig.tight_layout()
    tmp = out.stage(name)
    fig.savefig(tmp, format="png")
    plt.close(fig)
    return out.commit(name)


def _busiest(series: dict[Any, tuple[list, list]], key=max) -> list[Any]:
    return sorted(series, key=lambda k: -key(series[k][1]) if series[k][1] else 0)[:MAX_LINES]


def plot_queues(out: OutputDir, rows: list[tuple], title: str) -> Path:
    series: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for t, sw, port, prio, _pkts, nbytes in rows:
        xs, ys = series[f"{sw}:{port} prio {prio}"]
        xs.append(t / 1000)
        ys.append(nbytes / 1000)
    plt, fig, ax = _figure(f"{title}: egress queue depth")
    for k in _busiest(series):
        ax.plot(*series[k], label=k, linewidth=1)
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("queue (KB)")
    if series:
        ax.legend(fontsize=7, loc="upper right")
    return _save(out, "queues.png", plt, fig)


def plot_flow_rates(out: OutputDir, rows: list[tuple], title: str, interval_ns: int, end_ns: int,
                    what: tuple[str, str] = ("per-flow throughput", "delivered data")) -> Path:
    """Two panels: throughput averaged over bins of about 1/30 of the run (PFC on/off cycles of tens of µs make
    per-sample rates flicker between 0 and line rate), and cumulative delivered data, whose slope is the rate.
    `what` names the two panels' series (a collective's are its NICs' transmit rates)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = max(1, max(end_ns // 30, 20_000) // interval_ns)  # samples per bin
    series: dict[str, list[tuple[int, float, int]]] = defaultdict(list)
    for t, name, gbps, nbytes in rows:
        series[name].append((t, gbps, nbytes))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), dpi=110, sharex=True)
    top.set_title(f"{title}: {what[0]} ({k * interval_ns / 1000:g} µs bins)")
    bottom.set_title(f"{what[1]} (slope = throughput)")
    for name in sorted(series, key=natural_key)[:MAX_LINES]:  # incast-2 before incast-10
        pts = series[name]
        bins = [pts[i:i + k] for i in range(0, len(pts), k)]
        top.step([b[0][0] / 1000 for b in bins] + [bins[-1][-1][0] / 1000],
                 [sum(g for _, g, _ in b) / len(b) for b in bins] + [sum(g for _, g, _ in bins[-1]) / len(bins[-1])],
                 where="post", label=name, linewidth=1)
        total, xs, ys = 0.0, [], []
        for t, _, nbytes in pts:
            total += nbytes / 1e6
            xs.append(t / 1000)
            ys.append(total)
        bottom.plot(xs, ys, label=name, linewidth=1)
    top.set_ylabel("Gb/s")
    top.set_ylim(bottom=0)
    bottom.set_ylabel("MB")
    bottom.set_xlabel("time (µs)")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    if series:
        top.legend(fontsize=7, loc="upper right")
    return _save(out, "throughput.png", plt, fig)


def pause_intervals(rows: list[tuple], end_ns: int) -> dict[str, list[tuple[int, int]]]:
    """(switch:port prio p) -> [(start, duration)] during which the switch held its peer paused (XOFF..XON)."""
    since: dict[str, int] = {}
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for t, sw, port, prio, paused, direction in rows:
        if direction != "tx":
            continue
        key = f"{sw}:{port} prio {prio}"
        if paused and key not in since:
            since[key] = t
        elif not paused and key in since:
            t0 = since.pop(key)
            out[key].append((t0, t - t0))
    for key, t0 in since.items():
        out[key].append((t0, end_ns - t0))
    return out


def pause_rows(intervals: dict[str, list]) -> list[str]:
    """The pause timeline's rows, top to bottom: ports in natural order (`s1:2` before `s1:10`; a string sort
    put port 10 between 1 and 2), as many as the figure can show."""
    return sorted(intervals, key=natural_key)[:MAX_LINES * 2]


def plot_pauses(out: OutputDir, rows: list[tuple], end_ns: int, title: str) -> Path:
    intervals = pause_intervals(rows, end_ns)
    plt, fig, ax = _figure(f"{title}: PFC pause timeline (XOFF sent until XON)")
    keys = pause_rows(intervals)
    for i, k in enumerate(keys):
        ax.broken_barh([(t / 1000, d / 1000) for t, d in intervals[k]], (i - 0.4, 0.8), color="tab:red",
                       linewidth=0)
    # the share of the run each peer was held paused: the bars alone are too dense to read off at µs cycles
    labels = [f"{k}  ({sum(d for _, d in intervals[k]) / max(end_ns, 1):.0%})" for k in keys]
    ax.set_yticks(range(len(keys)), labels, fontsize=7)
    ax.set_xlim(0, max(end_ns / 1000, 1))
    ax.set_xlabel("time (µs)")
    if not keys:
        ax.text(0.5, 0.5, "no PFC pause", transform=ax.transAxes, ha="center")
    return _save(out, "pauses.png", plt, fig)


def time_unit(largest_ns: int) -> tuple[float, str]:
    """(divisor, unit) for times up to `largest_ns`: µs for a simulated run's microseconds, ms and s for a Mininet
    run's (its completion axis read 0 to 800000 µs for 900 ms flows)."""
    if largest_ns >= 10_000_000_000:
        return 1e9, "s"
    if largest_ns >= 10_000_000:
        return 1e6, "ms"
    return 1e3, "µs"


def plot_completions(out: OutputDir, flows: list[dict], title: str) -> Path:
    plt, fig, ax = _figure(title)
    names = [f["name"] for f in flows]
    if flows and all(f["backlogged"] for f in flows):
        ax.set_title(f"{title}: goodput per flow (steady state)")
        ax.barh(names, [f["goodput_gbps"] or 0 for f in flows], color="tab:blue")
        ax.set_xlabel("goodput (Gb/s)")
    else:
        ax.set_title(f"{title}: flow completion times")
        div, unit = time_unit(max((f["fct_ns"] or 0) for f in flows) if flows else 0)
        ax.barh(names, [(f["fct_ns"] or 0) / div for f in flows],
                color=["tab:blue" if f["completed"] else "tab:gray" for f in flows])
        ax.set_xlabel(f"completion time ({unit})")
    ax.tick_params(axis="y", labelsize=7)
    ax.invert_yaxis()
    return _save(out, "fct.png", plt, fig)


def host_rows(rec: Any, hosts: Any) -> list[tuple]:
    """The NICs' transmit rates as flow-rate rows (time, host, Gb/s, bytes): a collective's transfers are no flows,
    so this is what its throughput plot shows (it drew empty axes, as did an empty completion-time plot)."""
    return [(t, node, gbps, round(gbps * rec.interval_ns / 8)) for t, node, _, gbps in rec.throughput_rows
            if node in hosts]


def write_plots(out: OutputDir, rec: Any, summary: dict[str, Any]) -> list[Path]:
    title, end_ns, flows = summary.get("scenario", "run"), summary["sim_time_ns"], summary["flows"]
    if flows:
        rates = plot_flow_rates(out, rec.flow_rows, title, rec.flow_interval_ns, end_ns)
    else:  # a collective: its own plot (collective.png) shows its transfers' completions
        rates = plot_flow_rates(out, host_rows(rec, summary["hosts"]), title, rec.interval_ns, end_ns,
                                ("NIC transmit throughput", "data sent, frame bytes"))
    return ([plot_queues(out, rec.queue_rows, title), rates, plot_pauses(out, rec.pause_rows, end_ns, title)]
            + ([plot_completions(out, flows, title)] if flows else []))
