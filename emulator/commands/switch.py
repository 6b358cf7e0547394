"""`rocelab switch ...` is `rocelab-switch ...` (emulator/switchd): simple_switch_grpc's command line."""
from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("args", nargs=argparse.REMAINDER, help="rocelab-switch's options (see rocelab-switch --help)")


def main(args: argparse.Namespace) -> int:
    from emulator.switchd.main import main as switch_main

    return switch_main(args.args)
