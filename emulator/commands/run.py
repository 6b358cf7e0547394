"""`rocelab run SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--no-plots] [--quiet]`

Loads and checks the scenario (errors name the file, line and field path), runs it on the virtual-time engine with
a progress bar, prints a summary table and writes summary.json, CSV series, PNG plots and pcaps into DIR
(default runs/<scenario name>). Ctrl-C stops the run cleanly: what was simulated so far is written and
summary.json says `"status": "interrupted"`. Exit status: 0 the run completed, 1 flows failed or did not complete
(summary.json's `problems` say why), 2 a bad scenario, command line or output folder (nothing ran), 3 interrupted.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from emulator.commands.scenario_arg import out_folder, scenario_path
from emulator.errors import ConfigError, UsageError
from emulator.scenario.bundled import bundled_names

EXIT_COMPLETE = 0
EXIT_INCOMPLETE = 1  # flows failed or did not complete (max_duration); summary.json says why
EXIT_INTERRUPTED = 3  # Ctrl-C, SIGTERM or SIGHUP
EXIT_FOR_STATUS = {"complete": EXIT_COMPLETE, "incomplete": EXIT_INCOMPLETE, "interrupted": EXIT_INTERRUPTED}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.yaml",
                   help=f"the scenario file, or the name of a bundled one ({', '.join(bundled_names())})")
    p.add_argument("--out", metavar="DIR", type=out_folder, help="output folder (default runs/<scenario name>)")
    p.add_argument("--seed", type=int, help="override the scenario's seed")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override a field, e.g. --set switch.pfc.enabled=false (repeatable; value is YAML)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    p.add_argument("--engine", choices=("sim", "mininet"), default="sim",
                   help="sim: virtual time (default); mininet: real time on Mininet (root; Mb/s rates)")
    p.add_argument("--cli", action="store_true", help="mininet engine: open the Mininet CLI on the running network")
    p.add_argument("--switch-binary", metavar="PATH",
                   help="mininet engine: run this switch (e.g. simple_switch_grpc) instead of rocelab-switch")
    from emulator.target.plugins import add_plugin_argument

    add_plugin_argument(p)  # the scenario's switch.extern_plugins are loaded too


def main(args: argparse.Namespace) -> int:
    from emulator.signals import stop_on_signals

    with stop_on_signals(restore_after_signal=False):  # the process ends: a late signal must not kill it
        try:
            return _main(args)
        except KeyboardInterrupt:  # before the engine ran (it ends cleanly on its own) or while writing
            print("interrupted: no outputs written", file=sys.stderr)
            return EXIT_INTERRUPTED


def _main(args: argparse.Namespace) -> int:
    from rich.console import Console

    from emulator.report.output import OutputDir, check_folder
    from emulator.scenario.load import load_scenario

    args.scenario = str(scenario_path(args.scenario))
    overrides = list(args.overrides) + ([f"seed={args.seed}"] if args.seed is not None else [])
    sc = load_scenario(args.scenario, overrides, given=args.overrides)
    from emulator.target.plugins import load_plugins

    load_plugins(args.extern_plugins)
    out_dir = Path(args.out) if args.out else Path("runs") / sc.name
    check_folder(out_dir, "--out" if args.out else "output folder")
    console = Console(stderr=True, quiet=args.quiet)
    until = sc.duration if sc.duration is not None else None
    if args.engine == "mininet":
        return _run_mininet(args, sc, out_dir)
    if args.cli or args.switch_binary:
        raise UsageError("--cli and --switch-binary need --engine mininet")
    from emulator.sim.runner import run_scenario  # the engine (and scapy) only once the scenario is good

    with _scenario_errors(args.scenario, args.overrides):
        with _progress(console, until) as progress:
            outcome = run_scenario(sc, out_dir=OutputDir(out_dir).begin(), base_dir=Path(args.scenario).parent,
                                   progress=progress, plots=False if args.no_plots else None)
    return _report(args, outcome.summary, out_dir)


class _scenario_errors:
    """A ConfigError raised while building names the scenario file and the line of its field, and the --set that
    gave the value if one did."""

    def __init__(self, scenario: str, overrides: list[str] = ()):
        self.scenario = scenario
        self.overrides = list(overrides)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, exc: BaseException | None, _tb: object) -> bool:
        if isinstance(exc, ConfigError) and exc.file is None:
            from emulator.scenario.load import locate, override_note

            exc.file = locate(self.scenario, exc.path)
            exc.message += override_note(exc.path, self.overrides)
        return False


def _report(args: argparse.Namespace, summary: dict[str, Any], out_dir: Path, last_line: Any = None) -> int:
    """Print the summary table (unless --quiet), why the run is incomplete and `last_line(summary)`; the exit
    status. The outputs are written by now, so a signal while printing says so (main's "no outputs written" was
    false here)."""
    try:
        code = _print_report(args, summary, out_dir)
        if last_line is not None and not args.quiet:
            last_line(summary)
        return code
    except KeyboardInterrupt:
        print(f"interrupted while printing: the run's outputs are complete in {out_dir}/", file=sys.stderr)
        return EXIT_INTERRUPTED


def _print_report(args: argparse.Namespace, summary: dict[str, Any], out_dir: Path) -> int:
    from emulator.commands.console import stdout_console

    if not args.quiet:
        print_summary(stdout_console(110), summary, out_dir)
    problems = summary.get("problems") or [] if summary["status"] == "incomplete" else []
    for line in problems[:10]:
        print(f"{args.scenario}: {line}", file=sys.stderr)
    if len(problems) > 10:
        print(f"{args.scenario}: ... and {len(problems) - 10} more (summary.json lists them)", file=sys.stderr)
    if summary["status"] == "interrupted":
        print(f"interrupted: what was simulated is in {out_dir}/ (status interrupted)", file=sys.stderr)
    return EXIT_FOR_STATUS[summary["status"]]


def _run_mininet(args: argparse.Namespace, sc: Any, out_dir: Path) -> int:
    from rich.console import Console

    from emulator.commands.console import stdout_console
    from emulator.mininet.runner import MininetOptions, run_scenario_mininet

    err = Console(stderr=True)
    # "running" is said once the scenario passed the engine's checks (it was said before a refusal too)
    starting = None if args.quiet else (lambda: err.print(f"[bold]{sc.name}[/]: running on Mininet in real time ..."))
    opts = MininetOptions(switch_binary=args.switch_binary, cli=args.cli, starting=starting, warn=warner(err))
    with _scenario_errors(args.scenario, args.overrides):
        outcome = run_scenario_mininet(sc, out_dir, base_dir=Path(args.scenario).parent, opts=opts,
                                       plots=False if args.no_plots else None)
    return _report(args, outcome.summary, out_dir, lambda summary: print_realtime(stdout_console(), summary))


# One message, one line: rich wraps at the console's width (80 columns when the output is a file or a pipe), which
# split the real-time line and the lateness warning in run logs ("... NOT kept" / "up") and broke a grep for them.
def warner(console: Any) -> Any:
    """A MininetOptions.warn that prints each warning on one line."""
    return lambda text: console.print(f"[bold yellow]warning:[/] {text}", soft_wrap=True)


def print_realtime(console: Any, summary: dict[str, Any]) -> None:
    """The Mininet run's last line: its worst scheduling lateness against the limit, and whether it kept up."""
    rt = summary["realtime"]
    w = rt["worst"]
    if rt["kept_up"] is None:  # it printed "None/None/None us ...: kept up" of a run stopped before its traffic
        console.print("real time: no lateness measured (the run stopped before its traffic)", soft_wrap=True)
        return
    console.print(f"real time: lateness p50/p99/max {w['p50_us']}/{w['p99_us']}/{w['max_us']} us "
                  f"(limit {rt['lateness_limit_us']} us): "
                  + ("kept up" if rt["kept_up"] else "[bold red]NOT kept up[/]"), soft_wrap=True)


class _progress:
    """A rich progress bar over virtual time (towards `duration` when set; otherwise it shows time and speed)."""

    def __init__(self, console: Any, until_ns: int | None):
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.until = until_ns
        self.bar = Progress(TextColumn("[bold]simulating"), BarColumn(), TextColumn("{task.description}"),
                            TimeElapsedColumn(), console=console, transient=True, disable=console.quiet)
        self.task = self.bar.add_task("", total=until_ns)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __call__(self, now_ns: int, events: int) -> None:
        self.bar.update(self.task, completed=now_ns if self.until else None,
                        description=f"{now_ns / 1000:,.1f} µs simulated, {events:,} events")

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)


def print_summary(console: Any, s: dict[str, Any], out_dir: Path) -> None:
    from rich.markup import escape
    from rich.table import Table

    status = "complete" if s["complete"] else f"INCOMPLETE ({s['stop_reason']})"
    how = "simulated" if s.get("engine", "sim") == "sim" else "in real time"  # the Mininet engine runs on the wall clock
    console.print(f"[bold]{s['scenario']}[/]: {status}; {s['sim_time_ns'] / 1000:,.1f} µs {how}, "
                  f"{s['wall_time_s']:.1f} s of wall time, {s['packets_transmitted']:,} frames")
    if s["flows"] or "collective" not in s:  # a collective's transfers are no flows: it printed an empty table
        console.print(_flow_table(s["flows"]))
    if "collective" in s:
        console.print(_collective_table(s["collective"]))
    t, fair = s["totals"], s["fairness"]
    totals = Table(title="totals", show_header=False)
    for label, value in (("drops", t["drops"]), ("ECN-marked packets", t["ecn_marked"]),
                         ("PFC pause frames (XOFF / XON)", f"{t['pfc_pause_frames']} / {t['pfc_resume_frames']}"),
                         ("CNPs", t["cnps"]), ("retransmitted packets", t["retransmitted_packets"]),
                         ("max queue (bytes)", f"{t['max_queue_bytes']:,}"),
                         ("goodput Jain index", f"{fair['goodput_jain']:.4f}" if fair["goodput_jain"] else "-")):
        totals.add_row(label, str(value))
    console.print(totals)
    # escaped, as every text a user chose: Rich reads `[h1]` or `[bold]` in a name as markup and drops it
    console.print(f"outputs in {escape(str(out_dir))}/: {written_files(out_dir)}")


def _flow_table(flows: list[dict]) -> Any:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="flows")
    for col in ("flow", "src→dst", "bytes", "FCT (µs)", "goodput (Gb/s)", "paused", "retx", "done"):
        table.add_column(col, justify="left" if col in ("flow", "src→dst") else "right", no_wrap=col == "flow")
    for f in flows:
        span = f["fct_ns"] if f["fct_ns"] else (f["end_ns"] or 0) - (f["start_ns"] or 0)
        paused = f"{f['paused_ns'] / span:.0%}" if span else "-"
        table.add_row(escape(f["name"]), f"{f['src']}→{f['dst']}", f"{f['bytes']:,}",
                      f"{f['fct_ns'] / 1000:,.1f}" if f["fct_ns"] else "-",
                      _gbps(f["goodput_gbps"]) if f["goodput_gbps"] else "-", paused,
                      str(f["retransmitted_packets"]), "yes" if f["completed"] else ("backlog" if f["backlogged"] else "no"))
    return table


def _collective_table(c: dict[str, Any]) -> Any:
    """The collective's figures (summary.json's `collective`): what a run of one is for."""
    from rich.table import Table

    table = Table(title="collective", show_header=False)
    steps = f"{c['steps_run']} of {c['steps_whole']}" if c["steps_run"] != c["steps_whole"] else str(c["steps_run"])
    rows = [("operation", f"{c['op']}, {c['n']} ranks, {c['channels']} channel(s)"),
            ("bytes per rank", f"{c['bytes']:,}"), ("steps", steps),
            ("completed", "yes" if c["completed"] else ("FAILED" if c["failed"] else "no")),
            ("time (µs)", f"{c['time_ns'] / 1000:,.1f}" if c["time_ns"] is not None else "-"),
            ("bandwidth bound (µs)", f"{c['bound_ns'] / 1000:,.1f} (by {c['bound_by']})" if c.get("bound_ns") else "-"),
            ("time / bound", f"{c['time_over_bound']:.3f}" if c.get("time_over_bound") else "-"),
            ("algbw (Gb/s)", _gbps(c["algbw_gbps"]) if c.get("algbw_gbps") else "-"),
            ("busbw (Gb/s)", _gbps(c["busbw_gbps"]) if c.get("busbw_gbps") else "-")]
    for label, value in rows:
        table.add_row(label, value)
    return table


def _gbps(value: float) -> str:
    """Two decimals, as summary.json's figures read at 100 Gb/s; below 1 Gb/s (the Mininet engine's Mb/s links)
    three significant digits, so that 2.3 Mb/s does not print as 0.00."""
    return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def written_files(out_dir: Path) -> str:
    """What this run wrote, by kind, from the output folder's manifest: only the kinds that are there (the Mininet
    engine writes no CSV, `outputs.plots: false` no PNG, no `outputs.pcap` no pcap)."""
    from emulator.report.output import listed_files

    names = listed_files(out_dir)
    kinds = [pattern for pattern in ("*.csv", "*.png", "*.pcap", "trace-*.txt")
             if any(n.endswith(pattern.split("*")[1]) for n in names)]
    return ", ".join(["summary.json", *kinds])
