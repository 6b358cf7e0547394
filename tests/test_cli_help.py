"""`rocelab --help` and `rocelab bench --help` name every benchmark there is (the one-line help listed two of four)."""
from __future__ import annotations

from emulator.cli import COMMANDS
from emulator.commands.bench import BENCHMARKS


def test_bench_help_names_every_benchmark():
    help_text = COMMANDS["bench"][1]
    missing = [name for name in BENCHMARKS if name not in help_text]
    assert not missing, f"`rocelab bench` help leaves out {missing}: {help_text!r}"
