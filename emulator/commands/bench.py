"""`rocelab bench <name>`: run a benchmark, print its results as a table and, on the last line, as JSON.

Each benchmark is a module `emulator.bench.<name>` with `run(args) -> dict` (flat: name -> number or text) and,
optionally, `add_arguments(parser)`. Benchmarks not built yet are listed but report that they are missing.
"""
from __future__ import annotations

import argparse
import importlib
import json

from emulator.errors import RocelabError

# name -> one-line help. `sim` is provided by the simulator as emulator/bench/sim.py.
BENCHMARKS = {
    "pipeline": "packets/s of the P4 pipeline (fabric.p4) vs a bare Python parse+copy loop",
    "sim": "events/s and simulated-time speed of the virtual-time simulator",
    "mininet": "goodput and scheduling lateness of the PFC incast on the Mininet engine (root)",
    "startup": "wall and CPU ms of rocelab compile, stf, --help and run --help, each a fresh process",
    "switch": "frames/s of rocelab-switch between two namespaces vs a bare AF_PACKET loop; P4Runtime writes/s",
}


def _module(name: str):
    """The benchmark's module, or None when it does not exist yet (an error inside it still propagates)."""
    try:
        return importlib.import_module(f"emulator.bench.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"emulator.bench.{name}":
            return None
        raise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for name, help_text in BENCHMARKS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod = _module(name)
        if mod is not None and hasattr(mod, "add_arguments"):
            mod.add_arguments(p)
        p.add_argument("--json-only", action="store_true", help="print only the JSON result line")


def main(args: argparse.Namespace) -> int:
    mod = _module(args.benchmark)
    if mod is None:
        raise RocelabError(f"the '{args.benchmark}' benchmark is not built yet (no emulator/bench/{args.benchmark}.py)")
    result = mod.run(args)
    if not getattr(args, "json_only", False):
        print_table(args.benchmark, result, getattr(mod, "DESCRIPTIONS", {}))
    keys = getattr(mod, "JSON_KEYS", None)  # the machine-readable summary, when a benchmark narrows it
    print(json.dumps({k: result[k] for k in keys if k in result} if keys else result))
    return 0


def print_table(title: str, result: dict, descriptions: dict[str, str]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"rocelab bench {title}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("meaning")
    for key, value in result.items():
        text = f"{value:,.0f}" if isinstance(value, int | float) and abs(value) >= 100 else (
            f"{value:.3g}" if isinstance(value, float) else str(value))
        table.add_row(key, text, descriptions.get(key, ""))
    Console().print(table)
