"""One run of a sweep, as a worker process (local pool or Dask worker) executes it: scenario text in, summary out.

The worker writes nothing: the sweep's own process stores each summary it gets back, so a Dask cluster needs no
shared file system, only the same rocelab installed (bundled P4 programs are found through the project; a
scenario's own program must exist at the same path on the workers).
"""
from __future__ import annotations

from typing import Any

from emulator.sweep.plan import RunTask

_PROGRAMS: dict = {}  # compiled P4 programs, kept for the worker's life (compiling is most of a small run)


def run_task(task: RunTask) -> dict[str, Any]:
    from emulator.scenario.load import parse_scenario
    from emulator.sim.runner import run_scenario

    sc = parse_scenario(task.scenario_text, task.scenario_path, list(task.overrides))
    return run_scenario(sc, out_dir=None, base_dir=task.base_dir, plots=False, program_cache=_PROGRAMS).summary
