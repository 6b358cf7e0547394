"""README's "Scenario files" example is what a new user copies first: it must load as written (it named a switch s2
and a port 9 that its one-switch, three-port topology does not have)."""
from __future__ import annotations

import re
from pathlib import Path

from emulator.scenario.load import load_scenario
from emulator.sim.build import build_scenario

ROOT = Path(__file__).resolve().parents[1]


def test_readme_scenario_example_loads_and_builds(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Scenario files"):]
    example = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    path = tmp_path / "my.yaml"
    path.write_text(example)
    monkeypatch.chdir(ROOT)  # the example names p4src/fabric.p4 as a user in the checkout would
    sc = load_scenario(path)
    build_scenario(sc, base_dir=ROOT)
