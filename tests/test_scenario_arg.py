"""`rocelab run NAME` / `rocelab sweep NAME` with a name that is neither a file nor a bundled scenario: the message
lists the bundled names, nothing runs, exit 2."""
from __future__ import annotations

import pytest

from emulator.cli import main as cli
from emulator.scenario.bundled import bundled_names


@pytest.mark.parametrize("argv", [["run", "incast_pfcc"], ["run", "incast_pfcc.yaml"],
                                  ["sweep", "incast_pfcc", "--seeds", "1"]])
def test_a_mistyped_bundled_name_is_answered_with_the_bundled_names(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert cli(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{argv[1]}: error: no such file here, and no bundled scenario of that name (bundled: ")
    assert all(name in err for name in bundled_names()) and "cannot read scenario" not in err
    assert list(tmp_path.iterdir()) == []  # no runs/ folder


def test_a_bundled_name_and_a_missing_path_are_as_before(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli(["run", str(tmp_path / "x" / "nope.yaml")]) == 2
    assert "cannot read scenario: No such file or directory" in capsys.readouterr().err
    assert cli(["run", "incast_pfc", "--set", "switch.pfc.xoff=zz"]) == 2  # found, then refused for the value
    assert "switch.pfc.xoff" in capsys.readouterr().err
