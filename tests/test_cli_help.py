"""`rocelab --help` and `rocelab bench --help` name every benchmark there is (the one-line help listed two of four)."""
from __future__ import annotations

from emulator.cli import COMMANDS
from emulator.commands.bench import BENCHMARKS


def test_bench_help_names_every_benchmark():
    help_text = COMMANDS["bench"][1]
    missing = [name for name in BENCHMARKS if name not in help_text]
    assert not missing, f"`rocelab bench` help leaves out {missing}: {help_text!r}"


def test_an_unknown_option_is_named_with_its_commands_usage():
    """argparse hands a command's unknown options up to the top parser, whose usage line (`rocelab [-h] COMMAND`)
    shows none of the command's options; the command's own parser reports it."""
    import subprocess
    import sys
    from pathlib import Path

    r = subprocess.run([sys.executable, "-m", "emulator.cli", "compile", "--bogus", "x.p4"],
                       cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "usage: rocelab compile" in r.stderr and "rocelab compile: error: unrecognized arguments: --bogus" in r.stderr


def test_version_prints_the_installed_version(capsys):
    from importlib.metadata import version

    import pytest

    from emulator.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"rocelab {version('rocelab')}"
