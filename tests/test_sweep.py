"""`rocelab sweep`: grid x seeds expanded and checked before anything runs, sweep.csv a row per run, resuming
without re-running finished runs, and the same sweep.csv from local processes and from a (local) Dask cluster."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from emulator.cli import main as cli
from emulator.errors import ConfigError, UsageError
from emulator.sweep.execute import connect_dask, run_sweep
from emulator.sweep.plan import make_plan, split_values

SCENARIO = """\
name: tiny_incast
topology:
  star: {switch: s1, hosts: 3}
switch:
  pfc: {enabled: true, xoff: 32KB}
workload:
  incast: {senders: [h1, h2], receiver: h3, bytes: 64KiB, jitter: 3us}
outputs:
  plots: false
"""
GRID = ["workload.incast.bytes=32KiB,64KiB"]


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(SCENARIO)
    return path


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(open(path)))


def test_plan_is_the_product_of_the_grid_and_the_seeds(scenario):
    plan = make_plan(scenario, 3, ["switch.pfc.xoff=40KB"], GRID + ["nic.mtu=1024,2048"])
    assert len(plan.tasks) == 2 * 2 * 3
    assert len({t.run_id for t in plan.tasks}) == len(plan.tasks)
    again = make_plan(scenario, 3, ["switch.pfc.xoff=40KB"], GRID + ["nic.mtu=1024,2048"])
    assert [t.run_id for t in again.tasks] == [t.run_id for t in plan.tasks]  # what resuming relies on
    other = make_plan(scenario, 3, ["switch.pfc.xoff=48KB"], GRID + ["nic.mtu=1024,2048"])
    assert not {t.run_id for t in other.tasks} & {t.run_id for t in plan.tasks}  # a changed setting reruns
    assert all("seed=" in t.overrides[-1] for t in plan.tasks)
    assert split_values("[1, 2],{a: 1, b: 2}, 3") == ["[1, 2]", "{a: 1, b: 2}", "3"]


@pytest.mark.parametrize("grid, sets, error, message", [
    (["workload.incast.bites=1KiB,2KiB"], [], ConfigError,
     "workload.incast.bites: unknown field (with --grid workload.incast.bites=1KiB)"),
    (["nic.mtu=1024,2048"], ["workload.incast.bites=1KiB"], ConfigError,
     "workload.incast.bites: unknown field (from --set workload.incast.bites=1KiB) (with --grid nic.mtu=1024)"),
    (["nic.mtu=1024,1000"], [], ConfigError, "nic.mtu"),
    (["seed=1,2"], [], UsageError, "--seeds"),
    (["nic.mtu=1024,2048"], ["nic.mtu=1024"], UsageError, "set more than once"),
    (["nic.mtu="], [], UsageError, "one or more values"),
])
def test_bad_grids_are_refused_before_anything_runs(scenario, tmp_path, capsys, grid, sets, error, message):
    with pytest.raises(error) as exc:
        make_plan(scenario, 2, sets, grid)
    assert message in str(exc.value)
    out = tmp_path / "sweep"
    args = ["sweep", str(scenario), "--seeds", "2", "--out", str(out), "--quiet"]
    args += [x for g in grid for x in ("--grid", g)] + [x for s in sets for x in ("--set", s)]
    assert cli(args) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_a_dask_address_that_does_not_answer_is_refused_before_anything_runs(scenario, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "sweep"
    assert cli(["sweep", str(scenario), "--out", str(out), "--dask", "tcp://127.0.0.1:9", "--dask-timeout", "1",
                "--quiet"]) == 2
    assert "--dask tcp://127.0.0.1:9: no Dask scheduler answered" in capsys.readouterr().err
    assert not out.exists()


def test_an_output_folder_that_is_a_file_is_refused(scenario, tmp_path, capsys):
    out = tmp_path / "taken"
    out.write_text("not a folder")
    assert cli(["sweep", str(scenario), "--out", str(out), "--quiet"]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err and out.read_text() == "not a folder"


def test_sweep_writes_a_row_per_run_and_resumes_without_rerunning(scenario, tmp_path):
    out = tmp_path / "sweep"
    plan = make_plan(scenario, 2, [], GRID)
    first = run_sweep(plan, out)
    assert (first.ran, first.reused, first.complete) == (4, 0, True)
    rows = _rows(out / "sweep.csv")
    assert [(r["workload.incast.bytes"], r["seed"]) for r in rows] == [
        ("32KiB", "1"), ("32KiB", "2"), ("64KiB", "1"), ("64KiB", "2")]
    for r in rows:  # a row is the run's own summary
        s = json.loads((out / "runs" / r["run"] / "summary.json").read_text())
        assert s["seed"] == int(r["seed"]) and int(r["sim_time_ns"]) == s["sim_time_ns"]
        assert r["complete"] == "True" and float(r["goodput_gbps"]) <= 100
    small = [float(r["fairness.last_fct_ns"]) for r in rows[:2]]
    big = [float(r["fairness.last_fct_ns"]) for r in rows[2:]]
    assert max(small) < min(big)  # twice the bytes take longer
    stats = _rows(out / "sweep_summary.csv")
    fct = [s for s in stats if s["metric"] == "fairness.last_fct_ns"]
    assert len(fct) == 2 and all(s["runs"] == "2" for s in fct)
    assert float(fct[0]["min"]) <= float(fct[0]["mean"]) <= float(fct[0]["max"])
    assert list(out.glob("sweep-*.png"))

    # an interrupted sweep: one run's summary never got written; resume with a third seed
    victim = out / "runs" / rows[1]["run"] / "summary.json"
    victim.unlink()
    kept = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/summary.json")}
    again = run_sweep(make_plan(scenario, 3, [], GRID), out)
    assert (again.ran, again.reused) == (1 + 2, 3)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # finished runs were not run (or written) again
    assert victim.exists() and len(_rows(out / "sweep.csv")) == 6


def test_dask_gives_the_same_sweep_csv_as_local_processes(scenario, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local = tmp_path / "local"
    assert cli(["sweep", str(scenario), "--seeds", "2", "--grid", GRID[0], "--out", str(local), "--jobs", "2",
                "--quiet"]) == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        client = connect_dask(cluster.scheduler_address, 10)
        try:
            outcome = run_sweep(make_plan(scenario, 2, [], GRID), tmp_path / "dask", client=client)
        finally:
            client.close()
    assert outcome.ran == 4
    assert (tmp_path / "dask" / "sweep.csv").read_text() == (local / "sweep.csv").read_text()
    assert json.loads((tmp_path / "dask" / "sweep.json").read_text())["executor"] == "dask"


def test_interrupted_and_failed_runs_are_not_kept_and_run_again(scenario, tmp_path, monkeypatch):
    import emulator.sweep.execute as execute

    plan = make_plan(scenario, 3, [], [])
    real = execute.run_task
    bad = {plan.tasks[1].run_id: "interrupted", plan.tasks[2].run_id: "error"}

    def flaky(task):
        what = bad.get(task.run_id)
        if what == "error":
            raise ConfigError("a fault only this run has", "workload")
        summary = real(task)
        return summary | {"stop_reason": "interrupted", "complete": False} if what else summary

    monkeypatch.setattr(execute, "run_task", flaky)
    out = tmp_path / "sweep"
    first = run_sweep(plan, out)
    assert first.interrupted and [r for r, _ in first.failed] == [plan.tasks[2].run_id] and first.ran == 1
    assert "a fault only this run has" in first.failed[0][1]
    assert [r["run"] for r in _rows(out / "sweep.csv")] == [plan.tasks[0].run_id]
    monkeypatch.setattr(execute, "run_task", real)
    again = run_sweep(plan, out)
    assert (again.ran, again.reused, again.complete) == (2, 1, True)


def test_an_unknown_metric_is_named_and_gets_no_empty_plot(scenario, tmp_path, capsys):
    """`--metric goodput_gpbs` (a typo) used to write an empty sweep-goodput_gpbs.png and say nothing."""
    out = tmp_path / "sweep"
    assert cli(["sweep", str(scenario), "--seeds", "1", "--jobs", "1", "--out", str(out), "--quiet",
                "--metric", "goodput_gpbs", "--metric", "goodput_gbps"]) == 0
    err = capsys.readouterr().err
    assert "--metric goodput_gpbs: not a figure of sweep.csv" in err and "goodput_gbps" in err
    assert not (out / "sweep-goodput_gpbs.png").exists()
    assert (out / "sweep-goodput_gbps.png").exists()


@pytest.mark.parametrize("metric", [None, "fairness.last_fct_ns"])
def test_a_plot_name_that_is_not_a_regular_file_is_refused_before_any_run(scenario, tmp_path, capsys, metric):
    """A sweep-*.png that is a symbolic link (or a folder) was found only when the plots were written, after every
    run: the whole sweep cost, then exit 2 with runs/ and sweep.csv left behind. The default plots are checked
    too, since which of them have figures is known only after the runs."""
    out = tmp_path / "sweep"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_text("not ours")
    name = "sweep-fairness_last_fct_ns.png"
    (out / name).symlink_to(elsewhere)
    asked = ["--metric", metric] if metric else []
    assert cli(["sweep", str(scenario), "--seeds", "1", "--jobs", "1", "--out", str(out), "--quiet", *asked]) == 2
    assert f"will not replace {out / name}: it is not a regular file" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [".rocelab.lock", name] and elsewhere.read_text() == "not ours"


def test_a_list_valued_grid_point_is_printed_as_written(scenario, tmp_path, capsys):
    """`--grid 'workload.incast.senders=[h1],[h1,h2]'` (a sweep over N): the table's grid column was empty, as Rich
    took `[h1,h2]` for markup."""
    out = tmp_path / "sweep"
    assert cli(["sweep", str(scenario), "--seeds", "1", "--jobs", "1", "--out", str(out),
                "--grid", "workload.incast.senders=[h1],[h1,h2]"]) == 0
    text = capsys.readouterr().out
    assert "[h1]" in text and "[h1,h2]" in text


def test_a_run_that_ended_incomplete_makes_the_sweep_exit_1_and_is_named(scenario, tmp_path, capsys):
    """A run whose flows did not complete is in sweep.csv (complete False) and in its means; the sweep exited 0
    and said nothing. Now it is named on stderr (even with --quiet) and in sweep.json, and the sweep exits 1."""
    out = tmp_path / "sweep"
    assert cli(["sweep", str(scenario), "--seeds", "1", "--jobs", "1", "--out", str(out), "--quiet",
                "--set", "duration=30us", "--grid", "workload.incast.bytes=4KiB,1MiB"]) == 1
    err = capsys.readouterr().err
    plan = json.loads((out / "sweep.json").read_text())
    assert len(plan["incomplete"]) == 1 and "had not completed when the run stopped (duration)" in err
    assert f"run {plan['incomplete'][0]['run']} incomplete" in err
    assert [r["complete"] for r in _rows(out / "sweep.csv")] == ["True", "False"]
