"""Every tests/stf/<name>.p4 + <name>.stf pair must pass through the STF runner."""
from __future__ import annotations

import sys
from pathlib import Path

# the repository root, so `.venv/bin/pytest tests/...` finds `emulator` without an installed package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pytest

STF_DIR = Path(__file__).parent / "stf"
PAIRS = sorted(p.stem for p in STF_DIR.glob("*.stf") if (STF_DIR / f"{p.stem}.p4").exists())

# Corpus cases that fail because of a known bug in the front end or the target (not in the test itself):
# name -> reason. Kept visible here so their owners can find them.
KNOWN_FAILURES: dict[str, str] = {}

# programs whose own externs are implemented by extern plugins (`rocelab stf --extern-plugin ...`)
PLUGINS: dict[str, list[str]] = {"extern_plugin": ["plugins/demo_externs.py"]}


def load_case_plugins(name: str) -> None:
    """Load the extern plugins corpus case `name` needs into the process's registry (as --extern-plugin would)."""
    from emulator.target.plugins import load_plugins

    load_plugins(str(STF_DIR.parent / p) for p in PLUGINS.get(name, ()))


def _target_missing() -> str | None:
    try:
        import emulator.p4.checker  # noqa: F401
        import emulator.target.switch  # noqa: F401
    except ImportError as exc:
        return f"front end / v1model target not available yet ({exc})"
    return None


def test_corpus_is_large_enough():
    assert len(PAIRS) >= 70


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=KNOWN_FAILURES[n])) if n in KNOWN_FAILURES else n
    for n in PAIRS])
def test_stf(name: str, extern_plugins_restored):
    from emulator.target.stf import run_stf

    missing = _target_missing()
    if missing:
        pytest.skip(missing)
    load_case_plugins(name)
    result = run_stf(STF_DIR / f"{name}.p4", STF_DIR / f"{name}.stf")
    assert result.passed, "\n" + result.diff
    assert result.packets_sent > 0
    # stricter than p4c's runner: every packet out must land on a port the test names (and so is compared)
    assert result.ignored == 0, {p: v for p, v in result.outputs.items()}


# The fabric program's own STF tests (p4src/tests/*.stf run against p4src/fabric.p4) go through the same runner.
FABRIC = Path(__file__).parents[1] / "p4src" / "fabric.p4"
FABRIC_STFS = sorted((FABRIC.parent / "tests").glob("*.stf")) if FABRIC.exists() else []


@pytest.mark.parametrize("stf", FABRIC_STFS, ids=[p.stem for p in FABRIC_STFS])
def test_fabric_stf(stf: Path):
    from emulator.target.stf import run_stf

    missing = _target_missing()
    if missing:
        pytest.skip(missing)
    result = run_stf(FABRIC, stf)
    assert result.passed, "\n" + result.diff
