"""`rocelab bench startup` runs every command it times and prints figures (not a timed test: no bound on them)."""
from __future__ import annotations

import argparse
import json

from emulator.commands import bench


def test_bench_startup_runs_and_prints_figures(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.main(parser.parse_args(["startup", "--runs", "1", "--json-only"])) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"compile_cpu_ms", "stf_cpu_ms", "help_cpu_ms", "run_help_cpu_ms"}
    assert all(isinstance(v, float) and v > 0 for v in result.values())


def test_version_is_looked_up_only_when_asked():
    """--help and every command build the parser; the version (importlib.metadata) is read for --version only."""
    import subprocess
    import sys
    from pathlib import Path

    code = "import sys; from emulator.cli import build_parser; build_parser(); print('importlib.metadata' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1], capture_output=True,
                       text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr
