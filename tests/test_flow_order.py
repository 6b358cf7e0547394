"""Flow names in natural order where a run reports them (the flow table, summary.json, the throughput legend):
incast-2 before incast-10. A plain string sort put incast-10 between incast-1 and incast-2. The simulator's own
flow order (start time, then name as text) is left alone, so events and figures are what they were."""
from __future__ import annotations

import json

from emulator.report.natural import by_name, natural_key
from emulator.scenario.schema import Scenario
from emulator.sim.build import workload_flows
from emulator.sim.runner import run_scenario

NAMES = [f"incast-{i}-h{i + 1}-h12" for i in range(11)]


def test_natural_key_orders_numbers_by_value():
    assert sorted(["incast-10", "incast-2", "incast-1"], key=natural_key) == ["incast-1", "incast-2", "incast-10"]
    assert sorted(["m2m-h1-h10", "m2m-h10-h1", "m2m-h1-h2", "m2m-h2-h1"], key=natural_key) == \
        ["m2m-h1-h2", "m2m-h1-h10", "m2m-h2-h1", "m2m-h10-h1"]
    assert sorted(["x", "1", "a1", "a", "h01", "h1"], key=natural_key) == ["1", "a", "a1", "h01", "h1", "x"]
    assert [r["name"] for r in by_name([{"name": n} for n in reversed(NAMES)])] == NAMES


def _incast() -> Scenario:
    return Scenario.model_validate({
        "name": "incast11", "topology": {"star": {"hosts": 12}},
        "workload": {"incast": {"senders": [f"h{i}" for i in range(1, 12)], "receiver": "h12", "bytes": 4096}},
        "outputs": {"plots": False}})


def test_the_report_names_flows_naturally_and_the_run_keeps_its_order(tmp_path, capsys):
    sc = _incast()
    # the simulator's order: start time, then name as text (what decides which flow's events come first)
    assert [f.name for f in workload_flows(sc.workload, sc.seed)] == sorted(NAMES)
    run_scenario(sc, out_dir=tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [f["name"] for f in summary["flows"]] == NAMES
    from emulator.commands.console import stdout_console
    from emulator.commands.run import _flow_table

    stdout_console(200).print(_flow_table(summary["flows"]))
    rows = [line for line in capsys.readouterr().out.splitlines() if "incast-" in line]
    assert [r.split()[1] for r in rows] == NAMES
