"""What a sweep runs: a scenario, fixed `--set` overrides, `--grid` axes and seeds, expanded into run tasks.

Every grid point is checked against the scenario schema before anything runs, so a grid over an unknown
parameter (or a value the schema refuses) is an error naming the option, the file and the field path.

A run's id is a hash of what decides its result: the scenario's text, the fixed overrides, the grid point and the
seed. An interrupted sweep resumed in the same folder finds the finished runs by id; a changed scenario file or
override gives new ids, so stale results are never reused.
"""
from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

from emulator import options
from emulator.errors import ConfigError, UsageError
from emulator.files import SCENARIO_LIMIT, read_text
from emulator.scenario.load import parse_scenario


@dataclass(frozen=True)
class GridAxis:
    path: str
    values: tuple[str, ...]  # as written (YAML), so sweep.csv shows what the user typed


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs, with no file access: the scenario's text travels with the task."""

    run_id: str
    seed: int
    point: tuple[tuple[str, str], ...]  # (grid path, value) per axis
    overrides: tuple[str, ...]  # fixed sets, then the point, then the seed
    scenario_text: str
    scenario_path: str
    base_dir: str


@dataclass
class SweepPlan:
    scenario_path: str
    scenario_name: str
    sets: list[str]
    axes: list[GridAxis]
    seeds: list[int]
    tasks: list[RunTask] = field(default_factory=list)

    def describe(self) -> dict:
        """sweep.json's description of the plan."""
        return {"scenario": self.scenario_path, "name": self.scenario_name, "sets": self.sets,
                "grid": {a.path: list(a.values) for a in self.axes}, "seeds": self.seeds, "runs": len(self.tasks)}


def split_assignment(item: str, option: str) -> tuple[str, str]:
    path, eq, value = item.partition("=")
    if not eq or not path.strip():
        raise UsageError(f"{option} expects PATH=VALUE, got {item!r}")
    if path.strip() == "seed":
        raise UsageError(f"{option} seed=...: seeds come from --seeds N (runs use seeds 1..N)")
    return path.strip(), value


def split_values(text: str) -> list[str]:
    """v1,v2,... split at top-level commas (a value may be a YAML list or mapping: [1, 2], {a: 1})."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def parse_grid(item: str) -> GridAxis:
    path, values = split_assignment(item, "--grid")
    vals = split_values(values)
    if not values.strip() or any(v == "" for v in vals):
        raise UsageError(f"--grid {path}: give one or more values, comma-separated (--grid {path}=v1,v2)")
    if len(set(vals)) != len(vals):
        raise UsageError(f"--grid {path}: a value is listed twice")
    return GridAxis(path, tuple(vals))


MAX_RUNS = 100_000  # runs in one sweep: each is a process's scenario run and a row of the results


def run_id(text: str, sets: list[str], point: tuple[tuple[str, str], ...], seed: int) -> str:
    h = hashlib.sha256()
    for part in (text, *sets, *(f"{p}={v}" for p, v in point), f"seed={seed}"):
        h.update(part.encode())
        h.update(b"\0")
    return f"s{seed}-{h.hexdigest()[:12]}"


def _check_nesting(paths: list[tuple[str, str]]) -> None:
    """Overrides are applied in this order (every --set, then each --grid axis): one whose path holds an earlier
    one's (`--grid switch.pfc={...}` after `--set switch.pfc.enabled=true`) replaced it whole, and the earlier
    value was silently lost from every run. A later path inside an earlier one refines it and is fine."""
    from emulator.scenario.load import _split_path

    split = [(opt, path, _split_path(path)) for opt, path in paths]
    for i, (opt, path, keys) in enumerate(split):
        for earlier_opt, earlier, earlier_keys in split[:i]:
            if len(keys) < len(earlier_keys) and earlier_keys[:len(keys)] == keys:
                raise UsageError(f"{opt} {path} would replace {earlier_opt} {earlier} in every run (it is applied "
                                 f"after it and holds it): set {earlier} inside the {opt} value instead")


def make_plan(scenario: str | Path, seeds: int, sets: list[str] = (), grids: list[str] = ()) -> SweepPlan:
    """Expand and check the sweep; raises before anything runs."""
    path = Path(scenario)
    # as `rocelab run` reads it: bounded (/dev/zero), UTF-8 or a located error (not a UnicodeDecodeError)
    text = read_text(path, "scenario", SCENARIO_LIMIT, lambda msg: ConfigError(msg, file=str(path)))
    options.count("--seeds", seeds)
    sets = [f"{p}={v}" for p, v in (split_assignment(s, "--set") for s in sets)]
    axes = [parse_grid(g) for g in grids]
    runs = seeds * math.prod(len(a.values) for a in axes)
    if runs > MAX_RUNS:  # counted before the plan is made: --seeds 100000000000 was a MemoryError
        raise UsageError(f"the sweep would be {runs:,} runs ({seeds:,} seeds x {runs // seeds:,} grid points), more "
                         f"than the {MAX_RUNS:,} one sweep may have")
    paths = [a.path for a in axes] + [s.partition("=")[0] for s in sets]
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise UsageError(f"{', '.join(dup)}: set more than once (by --set and --grid, or two --grid options)")
    _check_nesting([("--set", s.partition("=")[0]) for s in sets] + [("--grid", a.path) for a in axes])
    points = list(itertools.product(*[[(a.path, v) for v in a.values] for a in axes]))
    name = ""
    for point in points:  # a bad point is an error now, not in a worker hours later
        overrides = sets + [f"{p}={v}" for p, v in point]
        try:
            name = parse_scenario(text, path, overrides, given=sets).name
        except ConfigError as exc:
            if not point:
                raise
            opt = " ".join(f"--grid {p}={v}" for p, v in point)
            raise ConfigError(f"{exc.message} (with {opt})", exc.path, exc.file) from None
    plan = SweepPlan(str(path), name, sets, axes, list(range(1, seeds + 1)))
    for point in points:
        for seed in plan.seeds:
            overrides = (*sets, *(f"{p}={v}" for p, v in point), f"seed={seed}")
            plan.tasks.append(RunTask(run_id(text, sets, point, seed), seed, point, overrides, text, str(path),
                                      str(path.parent)))
    return plan
