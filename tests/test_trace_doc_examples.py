"""The example trace lines in `rocelab stf --help` and docs/architecture.md cite fabric.p4 by `file:line`; each
must be a line a real trace of fabric.p4 prints (they went stale when fabric.p4 grew: `:170` for a state now
at `:220`)."""
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
