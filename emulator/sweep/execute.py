"""Run a sweep's tasks in this process, in a pool of local processes, or on a Dask cluster, storing each finished
run's summary.json under OUT/runs/<run id>/ as it comes back, and sweep.csv after every run.

Resume: a task whose runs/<id>/summary.json exists is not run again (its row is read back). A run cut short by
Ctrl-C is not stored, so it runs again next time; a run that failed with an error is reported and not stored.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator import options
from emulator.errors import UsageError
from emulator.report.output import OutputDir
from emulator.sweep import results
from emulator.sweep.plan import RunTask, SweepPlan
from emulator.sweep.worker import run_task

Progress = Callable[[int, int, str], None]  # (runs finished, runs in the sweep, what just finished)


@dataclass
class SweepOutcome:
    rows: list[dict[str, Any]]
    ran: int = 0  # runs executed now
    reused: int = 0  # finished runs found in the folder
    failed: list[tuple[str, str]] = field(default_factory=list)  # (run id, error)
    # (run id, its first problem): runs that ended with a flow or the collective unfinished or failed. They are in
    # sweep.csv (`complete` False) and its means, so the sweep says so and exits 1, as `rocelab run` does
    incomplete: list[tuple[str, str]] = field(default_factory=list)
    interrupted: bool = False
    files: list[Path] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.interrupted and not self.failed


DASK_TIMEOUT_S = 10.0  # --dask-timeout's default


def connect_dask(address: str, timeout_s: float = DASK_TIMEOUT_S) -> Any:
    """A client of the Dask scheduler at `address`; a clear error when nothing answers there."""
    options.seconds("--dask-timeout", timeout_s)  # nan and inf reached dask as 'nans': a KeyError traceback
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--dask needs the dask[distributed] package (pip install 'dask[distributed]')") from None
    from distributed.comm.addressing import parse_address, parse_host_port

    try:  # before the Client: one made of a bad address failed again when collected at exit, with a traceback
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as exc:
        raise UsageError(f"--dask {address}: not a scheduler address such as tcp://HOST:8786 ({exc})") from None
    try:
        return Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--dask {address}: no Dask scheduler answered within {timeout_s:g} s ({exc})") from None


def stored_summary(out: Path, task: RunTask) -> dict[str, Any] | None:
    try:
        s = json.loads((out / "runs" / task.run_id / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    return s if isinstance(s, dict) and s.get("stop_reason") != "interrupted" else None


def _local(tasks: list[RunTask], jobs: int) -> Iterator[tuple[RunTask, Any]]:
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield t, _call(t)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
        futures = {pool.submit(run_task, t): t for t in tasks}
        try:
            for fut in as_completed(futures):
                exc = fut.exception()
                yield futures[fut], exc if exc is not None else fut.result()
        finally:  # Ctrl-C or an abandoned generator: drop what has not started
            for fut in futures:
                fut.cancel()


def _call(task: RunTask) -> Any:
    try:
        return run_task(task)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # reported as the run's error; the sweep goes on
        return exc


def _dask(tasks: list[RunTask], client: Any) -> Iterator[tuple[RunTask, Any]]:
    from dask.distributed import as_completed

    futures = {client.submit(run_task, t, pure=False, key=f"rocelab-{t.run_id}"): t for t in tasks}
    try:
        for fut in as_completed(list(futures), loop=client.loop):
            exc = fut.exception()
            yield futures[fut], exc if exc is not None else fut.result()
    finally:
        client.cancel(list(futures))


def run_sweep(plan: SweepPlan, out_dir: str | Path, jobs: int = 1, client: Any = None,
              progress: Progress | None = None, metrics: list[str] | None = None) -> SweepOutcome:
    """Run what is not finished yet, then write sweep.csv, sweep_summary.csv, the plots and sweep.json."""
    out = OutputDir(out_dir).begin()  # one sweep per folder at a time; the previous sweep's own files go
    try:
        return _run(plan, out, jobs, client, progress, metrics)
    finally:
        out.end()


def _run(plan: SweepPlan, out: OutputDir, jobs: int, client: Any, progress: Progress | None,
         metrics: list[str] | None) -> SweepOutcome:
    out.check_replaceable(results.output_names(metrics))  # before any run, not after the first
    summaries: dict[str, dict[str, Any]] = {}
    for t in plan.tasks:
        s = stored_summary(out.path, t)
        if s is not None:
            summaries[t.run_id] = s
    todo = [t for t in plan.tasks if t.run_id not in summaries]
    outcome = SweepOutcome(rows=[], reused=len(summaries))
    total, wall0 = len(plan.tasks), time.monotonic()
    out.write_json("sweep.json", plan.describe() | {"finished": len(summaries)})
    if progress:
        progress(len(summaries), total, f"{len(summaries)} finished runs found" if summaries else "")
    stream = _dask(todo, client) if client is not None else _local(todo, jobs)
    try:
        for task, result in stream:
            if isinstance(result, BaseException):
                outcome.failed.append((task.run_id, f"{type(result).__name__}: {result}"))
                message = f"{task.run_id} failed: {result}"
            elif result.get("stop_reason") == "interrupted":
                outcome.interrupted = True
                message = f"{task.run_id} interrupted"
            else:
                OutputDir(out.path / "runs" / task.run_id).write_json("summary.json", result)
                summaries[task.run_id] = result
                outcome.ran += 1
                message = f"{task.run_id} ({', '.join(f'{p}={v}' for p, v in task.point) or 'seed'} {task.seed})"
                _write_rows(out, plan, summaries)
            if progress:
                progress(len(summaries), total, message)
    except KeyboardInterrupt:
        outcome.interrupted = True
    outcome.rows = _write_rows(out, plan, summaries)
    outcome.incomplete = [(t.run_id, (summaries[t.run_id].get("problems") or [summaries[t.run_id].get("stop_reason")])[0])
                          for t in plan.tasks if t.run_id in summaries and summaries[t.run_id].get("complete") is False]
    if outcome.rows:
        outcome.files += results.write_summary(out, outcome.rows, plan.axes, plan.scenario_name, metrics)
    outcome.files.append(out.write_json("sweep.json", plan.describe() | {
        "finished": len(summaries), "ran_now": outcome.ran, "reused": outcome.reused,
        "failed": [{"run": r, "error": e} for r, e in outcome.failed], "interrupted": outcome.interrupted,
        "incomplete": [{"run": r, "problem": p} for r, p in outcome.incomplete],
        "wall_time_s": round(time.monotonic() - wall0, 2), "executor": "dask" if client is not None else
        f"local ({jobs} process{'es' if jobs > 1 else ''})"}))
    return outcome


def _write_rows(out: OutputDir, plan: SweepPlan, summaries: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """sweep.csv: the finished runs in plan order (grid point, then seed)."""
    rows = [results.row(t, summaries[t.run_id]) for t in plan.tasks if t.run_id in summaries]
    if rows:
        results.write_csv(out, "sweep.csv", rows)
    return rows
