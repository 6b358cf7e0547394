"""`rocelab bench startup`: how long the short-lived commands take from exec to exit (wall and CPU time).

Users run `rocelab compile` and `rocelab stf` in loops (p4c's test-runner style), so their start-up is most of
their cost. Each command runs `--runs` times as a fresh `python -m emulator.cli` process, after one untimed run
that leaves the bytecode cache warm (PYTHONDONTWRITEBYTECODE is dropped for the children: with it set every run
would compile the sources again and the figure would measure that instead). CPU time is the children's user +
system time (getrusage), which the machine's other load disturbs less than the wall time.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROGRAM = Path(__file__).resolve().parents[2] / "p4src" / "basic_ipv4.p4"
# one non-IPv4 frame on port 1, nothing expected: the STF run is parse + one packet through the pipeline
STF_TEXT = "packet 1 " + "ff" * 6 + "02" * 6 + "88b5" + "00" * 46 + "\n"

JSON_KEYS = ("compile_cpu_ms", "stf_cpu_ms", "help_cpu_ms", "run_help_cpu_ms")
DESCRIPTIONS = {
    "compile_cpu_ms": "rocelab compile basic_ipv4.p4 --p4info ...: CPU ms, mean",
    "compile_wall_ms": "the same: wall ms, mean",
    "stf_cpu_ms": "rocelab stf basic_ipv4.p4 (one packet): CPU ms, mean",
    "stf_wall_ms": "the same: wall ms, mean",
    "help_cpu_ms": "rocelab --help: CPU ms, mean",
    "help_wall_ms": "the same: wall ms, mean",
    "run_help_cpu_ms": "rocelab run --help: CPU ms, mean",
    "run_help_wall_ms": "the same: wall ms, mean",
    "runs": "timed runs per command",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=int, default=7, help="timed runs per command (default 7)")
    p.add_argument("--program", default=str(PROGRAM), help="the program compiled and run (default p4src/basic_ipv4.p4)")


@dataclass
class Timing:
    wall_ms: float
    cpu_ms: float


def child_env() -> dict[str, str]:
    """The environment of the timed runs: this tree's emulator first on the path (installed or not), bytecode
    written and read."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH", "")]))
    return env


def time_command(argv: list[str], runs: int, cwd: str, env: dict[str, str]) -> Timing:
    """Mean wall and CPU time of `python -m emulator.cli ARGV`, after one untimed run that warms the caches."""
    cmd = [sys.executable, "-m", "emulator.cli", *argv]
    subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=False)
    wall = cpu = 0.0
    for _ in range(runs):
        before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=False)
        t1, after = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"rocelab {' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
        wall += t1 - t0
        cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(1000 * wall / runs, 1000 * cpu / runs)


def run(args: argparse.Namespace) -> dict:
    from emulator import options
    from emulator.errors import UsageError

    options.count("--runs", args.runs)
    program = str(Path(args.program).resolve())
    if not Path(program).is_file():
        raise UsageError(f"--program {args.program}: no such file")
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="rocelab-startup-") as tmp:
        stf = Path(tmp, "one.stf")
        stf.write_text(STF_TEXT, encoding="utf-8")
        commands = {
            "compile": ["compile", program, "--p4info", str(Path(tmp, "out.txtpb"))],
            "stf": ["stf", program, str(stf)],
            "help": ["--help"],
            "run_help": ["run", "--help"],
        }
        result: dict = {}
        for name, argv in commands.items():
            t = time_command(argv, args.runs, tmp, env)
            result[f"{name}_cpu_ms"] = round(t.cpu_ms, 1)
            result[f"{name}_wall_ms"] = round(t.wall_ms, 1)
    result["runs"] = args.runs
    return result
