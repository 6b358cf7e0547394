"""`rocelab bench sim` / `bench mininet`: a bad command line exits 2 with what is wrong (it exited 1, or ran an
incast of nothing and printed zeros), and `--scenario` takes a bundled scenario's name as `rocelab run` does (it
was read as a file name: "incast_pfc: error: cannot read scenario")."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "emulator.cli", "bench", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (("sim", "--sweep", "abc"), "--sweep: expected sender counts like 8,32,128, got 'abc'"),
    (("sim", "--sweep", "8"), "--sweep: give at least two different sender counts"),
    (("sim", "--fabrics", "3"), "--fabrics: give two or more host counts"),
    (("sim", "--builtin", "--senders", "0"), "--senders must be 1 or more, got 0"),
    (("sim", "--builtin", "--bytes", "0"), "--bytes must be 1 or more, got 0"),
    (("sim", "--seconds", "nan"), "--seconds must be a finite number of seconds above 0, got nan"),
    (("sim", "--fabrics", "16,32", "--fabric-bytes", "-5"), "--fabric-bytes must be 1 or more, got -5"),
    # options of one kind of run given to another were dropped without a word
    (("sim", "--bytes", "5"), "--bytes is for the built-in incast (--builtin or --switch fake) or --sweep; this "
                              "runs a scenario file (the default), which would ignore it"),
    (("sim", "--no-pfc"), "--no-pfc is for the built-in incast"),
    (("sim", "--builtin", "--scenario", "incast_dcqcn"), "--scenario is for a scenario file (the default); this "
                                                         "runs the built-in incast"),
    (("sim", "--sweep", "2,4", "--senders", "3"), "--senders is for the built-in incast (--builtin or --switch "
                                                  "fake); this runs --sweep"),
    (("sim", "--fabric-bytes", "100"), "--fabric-bytes is for --fabrics; this runs a scenario file"),
    (("sim", "--fabrics", "16,32", "--builtin"), "--builtin is for the built-in incast"),
    # --switch fake was dropped by --fabrics (fabric.p4 leaf-spines ran) and by a scenario run (its own program)
    (("sim", "--fabrics", "16,32", "--switch", "fake"), "--switch is for the built-in incast (--builtin or "
                                                        "--switch fake) or --sweep; this runs --fabrics"),
    (("pipeline", "--packets", "0"), "--packets must be 1 or more, got 0"),
    (("startup", "--runs", "0"), "--runs must be 1 or more, got 0"),
])
def test_bad_bench_sim_arguments_exit_2_naming_the_option(args, message):
    r = _bench(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("extra", [(), ("--fabrics", "16,32")])
def test_switch_fabric_is_accepted_where_fabric_p4_runs_anyway(extra):
    # --switch fabric names what a scenario run and --fabrics run use: nothing is ignored, so nothing is refused
    # (the option's default, before it moved into the run)
    import argparse

    from emulator.bench.sim import check_options

    args = argparse.Namespace(switch="fabric", fabrics=[16, 32] if extra else None, sweep=None, builtin=False,
                              seconds=1.0)
    check_options(args)
    assert args.switch == "fabric"


@pytest.mark.parametrize("module", ["emulator.bench.sim", "emulator.bench.mininet"])
def test_scenario_option_takes_a_bundled_name(module, monkeypatch):
    import argparse
    import importlib

    import emulator.scenario.load as load

    read: list[str] = []

    class Stop(Exception):
        pass

    def fake_load(path, overrides=()):
        read.append(str(path))
        raise Stop

    monkeypatch.setattr(load, "load_scenario", fake_load)
    bench = importlib.import_module(module)
    args = argparse.Namespace(scenario="incast_dcqcn", overrides=[], seed=1, builtin=False, switch=None,
                              sweep=None, fabrics=None, record=False)  # switch=None: argparse's, not given
    with pytest.raises(Stop):
        bench.run(args)
    assert read == [str(ROOT / "scenarios" / "incast_dcqcn.yaml")]
