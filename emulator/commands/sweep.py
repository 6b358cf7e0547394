"""`rocelab sweep SCENARIO.yaml --seeds N [--set path=value]... [--grid path=v1,v2,...]... [--out DIR] [--jobs J]
[--dask ADDRESS] [--metric NAME]...`

Runs the scenario for seeds 1..N at every grid point (the product of the --grid axes) in parallel processes (or on
the Dask cluster whose scheduler is at ADDRESS), with a progress bar. Writes into DIR (default
runs/sweep-<scenario name>): runs/<id>/summary.json per run, sweep.csv (a row per run), sweep_summary.csv (mean,
spread, min and max per grid point and figure), sweep-<figure>.png and sweep.json. Running it again in the same
folder resumes: finished runs are not run again. Exit 0 when every run finished, 1 when a run failed, 3 when
interrupted (Ctrl-C), 2 on bad input (nothing runs).
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

EXIT_FAILED = 1
EXIT_INCOMPLETE = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    from emulator.commands.scenario_arg import out_folder
    from emulator.scenario.bundled import bundled_names

    p.add_argument("scenario", metavar="SCENARIO.yaml",
                   help=f"the scenario file, or the name of a bundled one ({', '.join(bundled_names())})")
    p.add_argument("--seeds", type=int, default=1, metavar="N", help="run seeds 1..N at every grid point")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="a fixed override for every run (repeatable; value is YAML)")
    p.add_argument("--grid", action="append", default=[], metavar="PATH=V1,V2,...",
                   help="sweep PATH over these values (repeatable: the product of the axes)")
    p.add_argument("--out", metavar="DIR", type=out_folder,
                   help="output folder (default runs/sweep-<scenario name>)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                   help="parallel local processes (default: the number of CPUs)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS "
                   "(e.g. tcp://10.0.0.5:8786) instead of local processes")
    p.add_argument("--dask-timeout", type=float, metavar="S",
                   help="seconds to wait for the Dask scheduler to answer (default 10)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME", type=metric_name,
                   help="a sweep.csv column to plot (repeatable; default: goodput, collective time, ...)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no table")


def metric_name(arg: str) -> str:
    """argparse type of --metric: a sweep.csv column, which is never empty, blank or a path. `--metric ''` (an unset
    shell variable) ran the whole sweep, then warned and plotted nothing; a '/' would put the plot, named after the
    metric, in another folder."""
    if not arg.strip() or "/" in arg:
        raise argparse.ArgumentTypeError(f"{arg!r} is not a sweep.csv column name (e.g. goodput_gbps, "
                                         "collective.time_ns)")
    return arg


def main(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from emulator import options
    from emulator.commands.scenario_arg import scenario_path
    from emulator.errors import UsageError
    from emulator.report.output import check_folder
    from emulator.sweep.execute import DASK_TIMEOUT_S, connect_dask, run_sweep
    from emulator.sweep.plan import make_plan

    options.count("--jobs", args.jobs)
    if args.dask_timeout is not None and not args.dask:  # it was ignored without a word
        raise UsageError("--dask-timeout needs --dask (local processes wait for no scheduler)")
    plan = make_plan(scenario_path(args.scenario), args.seeds, args.overrides, args.grid)
    out_dir = Path(args.out) if args.out else Path("runs") / f"sweep-{plan.scenario_name}"
    check_folder(out_dir)
    client = connect_dask(args.dask, DASK_TIMEOUT_S if args.dask_timeout is None else args.dask_timeout) if args.dask else None
    console = Console(stderr=True, quiet=args.quiet)
    try:
        with _bar(console) as progress:
            outcome = run_sweep(plan, out_dir, jobs=args.jobs, client=client, progress=progress,
                                metrics=args.metric or None)
    finally:
        if client is not None:
            client.close()
    if not args.quiet:
        from emulator.commands.console import stdout_console

        _print(stdout_console(120), outcome, plan, out_dir)
    _warn_unknown_metrics(args.metric, outcome, plan)
    # on stderr even with --quiet, as `rocelab run` says its problems: the reason for exit status 1
    loud = Console(stderr=True)
    for run, error in outcome.failed:
        loud.print(f"[bold red]run {run} failed:[/] {escape(str(error))}", soft_wrap=True)
    for run, problem in outcome.incomplete[:10]:
        loud.print(f"[bold red]run {run} incomplete:[/] {escape(str(problem))}", soft_wrap=True)
    if len(outcome.incomplete) > 10:
        loud.print(f"... and {len(outcome.incomplete) - 10} more incomplete runs (sweep.csv: complete False)")
    if outcome.interrupted:
        return EXIT_INCOMPLETE
    return EXIT_FAILED if outcome.failed or outcome.incomplete else 0


def _warn_unknown_metrics(asked: list[str], outcome, plan) -> None:
    """A --metric that is not a sweep.csv figure (a typo) is named, with the figures there are; it gets no plot
    (it got an empty one). On stderr even with --quiet: the user asked for that plot."""
    import sys

    from emulator.sweep import results

    if not outcome.rows:
        return
    known = results.metrics_of(outcome.rows, plan.axes)
    for m in asked:
        if m not in known:
            print(f"warning: --metric {m}: not a figure of sweep.csv, so no plot (figures: {', '.join(known)})",
                  file=sys.stderr)


class _bar:
    """A rich progress bar over the sweep's runs (finished / total, elapsed, time left, the last run)."""

    def __init__(self, console):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TimeRemainingColumn(), TextColumn("{task.description}"), console=console,
                            transient=True, disable=console.quiet)
        self.task = self.bar.add_task("", total=None)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __call__(self, done: int, total: int, message: str) -> None:
        self.bar.update(self.task, completed=done, total=total, description=message)

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)


def _print(console, outcome, plan, out_dir: Path) -> None:
    from rich.markup import escape
    from rich.table import Table

    console.print(f"[bold]{plan.scenario_name}[/]: {len(outcome.rows)} of {len(plan.tasks)} runs finished "
                  f"({outcome.ran} now, {outcome.reused} from before)" + (", INTERRUPTED" if outcome.interrupted else ""))
    stats = [s for s in _stats(outcome, plan) if s["runs"]]
    if stats:
        table = Table(title="mean ± std per grid point")
        for col in [a.path for a in plan.axes] + ["figure", "runs", "mean", "std", "min", "max"]:
            table.add_column(col, justify="left" if col == "figure" else "right")
        for s in stats:
            # escaped: a grid value such as [h1,h2] (a list of senders) is Rich markup and printed as nothing
            table.add_row(*[escape(str(s[a.path])) for a in plan.axes], s["metric"], str(s["runs"]),
                          *(f"{s[k]:.4g}" for k in ("mean", "std", "min", "max")))
        console.print(table)
    console.print(f"outputs in {escape(str(out_dir))}/: sweep.csv, sweep_summary.csv, sweep-*.png, runs/*/summary.json")


def _stats(outcome, plan) -> list[dict]:
    from emulator.sweep import results

    metrics = [m for m in results.DEFAULT_METRICS if m in results.metrics_of(outcome.rows, plan.axes)]
    return results.point_stats(outcome.rows, plan.axes, metrics)
