"""The hostile-input corpus (tests/hostile/): every case ends with its documented exit code and a clear message,
never a traceback, and writes only into its own output folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
P4_CASES = sorted((ROOT / "tests" / "hostile" / "p4").glob("*.p4"))


def _expectations(path: Path) -> tuple[int, str | None]:
    head = path.read_bytes()[:2000].decode("ascii", errors="replace")
    code = re.search(r"^// expect-exit: (\d+)$", head, re.M)
    msg = re.search(r"^// expect-message: (.+)$", head, re.M)
    assert code is not None, f"{path.name}: no '// expect-exit:' line"
    return int(code.group(1)), msg.group(1).strip() if msg else None


def test_corpus_is_there():
    assert len(P4_CASES) >= 10


@pytest.mark.parametrize("case", P4_CASES, ids=[p.stem for p in P4_CASES])
def test_hostile_p4_compile(case: Path, tmp_path: Path):
    code, message = _expectations(case)
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, "-m", "emulator.cli", "compile", str(case), "--p4info",
                        str(out / "p.txtpb"), "--device-config", str(out / "p.json")],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    text = r.stdout + r.stderr
    assert "Traceback" not in text, text[-3000:]
    assert r.returncode == code, f"exit {r.returncode}, expected {code}:\n{text[-3000:]}"
    written = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    if code == 0:
        assert written == ["p.json", "p.txtpb"], written
    else:
        assert message is not None, f"{case.name}: an error case needs '// expect-message:'"
        assert message in text, text[-3000:]
        first = text.splitlines()[0]
        assert re.match(rf"{re.escape(str(case))}:\d+:\d+: error: ", first), first  # file:line:col
        assert written == [], written  # nothing is written for a program that fails
