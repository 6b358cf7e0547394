"""`rocelab clean [--all] [--state-dir DIR]`: remove what real-time runs left behind.

Only what a run recorded (emulator.mininet.state: namespaces, interfaces, processes, temporary files, by exact
name and pid + start time) is removed, never anything found by a name pattern. By default only runs whose owner
process is gone are cleaned (a live run cleans up itself); `--all` cleans live runs too.
"""
from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true", help="also clean up runs that are still running")
    p.add_argument("--state-dir", metavar="DIR", help="the run registry (default $ROCELAB_STATE_DIR or /run/rocelab)")


def main(args: argparse.Namespace) -> int:
    from emulator.mininet.state import clean, runs, state_root
    from emulator.report.output import refuse_non_folder

    root = Path(args.state_dir) if args.state_dir else state_root()
    # a file there read as an empty registry: "0 run(s) cleaned", exit 0, whatever the runs had left
    refuse_non_folder(root, "--state-dir" if args.state_dir else "state folder")
    before = runs(root)
    removed = clean(root, include_live=args.all)
    live = len(runs(root))
    for what in removed:
        print(f"removed {what}")
    print(f"rocelab clean: {len(before) - live} run(s) cleaned, {len(removed)} item(s) removed"
          + (f"; {live} live run(s) left alone (--all cleans them too)" if live else ""))
    return 0
