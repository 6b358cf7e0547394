"""What the docs show a user, held to what the code does. The example trace lines in `rocelab stf --help` and
docs/architecture.md cite fabric.p4 by `file:line`; each must be a line a real trace of fabric.p4 prints (they
went stale when fabric.p4 grew: `:170` for a state now at `:220`)."""
from __future__ import annotations

import re
from pathlib import Path

from emulator.commands.stf import EPILOG
from emulator.target.stf import run_stf

ROOT = Path(__file__).resolve().parents[1]
LOC = re.compile(r"\[(\w+)\] ([^`\n]*?) \((?:[^()\s]*/)?p4src/fabric\.p4:(\d+)\)")


def _traced_lines() -> str:
    result = run_stf(ROOT / "p4src/fabric.p4", ROOT / "p4src/tests/fabric_routing.stf", trace=True)
    return "\n".join(result.log)


def _cited(text: str) -> list[tuple[str, str, str]]:
    return [(stage, what.strip(), line) for stage, what, line in LOC.findall(text)]


def _shape(what: str) -> str:
    """The event without its values (an example's nexthop_id or hex form differs from the test's)."""
    return re.sub(r" \(0x[0-9a-f]+\)|=\d+", "", what)


def test_documented_trace_locations_are_what_a_trace_prints():
    doc = re.sub(r"\s*\n\s*", " ", (ROOT / "docs/architecture.md").read_text(encoding="utf-8"))  # lines wrap in prose
    cited = _cited(EPILOG) + _cited(doc)
    assert len(cited) >= 5
    trace = _traced_lines()
    seen = {(stage, _shape(what), line) for stage, what, line in _cited(trace)}
    for stage, what, line in cited:
        assert (stage, _shape(what), line) in seen, f"[{stage}] {what} (fabric.p4:{line}) is not in a trace of it"


def test_a_bmv2_json_given_to_the_switch_names_rocelab_compile_once(tmp_path):
    """The message for a p4c-made BMv2 JSON (README: "A p4c-made BMv2 JSON gets a clear message") said how to make
    a device config twice."""
    import pytest

    from emulator.errors import RocelabError
    from emulator.switchd.main import _load_program

    bmv2 = tmp_path / "basic.json"
    bmv2.write_text('{"header_types": [], "pipelines": []}', encoding="utf-8")
    with pytest.raises(RocelabError) as err:
        _load_program(str(bmv2))
    assert "BMv2 JSON" in str(err.value) and str(err.value).count("rocelab compile") == 1
