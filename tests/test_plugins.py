"""Extern plugins: Python implementations of externs a program declares itself (emulator/target/plugins.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from emulator.errors import P4Error, UsageError
from emulator.p4.frontend import load_program_text
from emulator.target.plugins import ExternPlugins
from emulator.target.switch import V1Switch

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "tests" / "plugins" / "demo_externs.py"
PROGRAM = ROOT / "tests" / "stf" / "extern_plugin.p4"


def demo() -> ExternPlugins:
    r = ExternPlugins()
    r.load(str(DEMO))
    return r


def checked():
    return load_program_text(PROGRAM.read_text(), str(PROGRAM))


def test_plugin_function_and_object_run_per_packet():
    sw = V1Switch(checked(), plugins=demo())
    out = sw.process(0, bytes.fromhex("031234000010000000"))
    assert out == [(1, bytes.fromhex("031234340013110067"))]
    out = sw.process(0, bytes.fromhex("030000000000000000"))
    assert out[0][1][-2:] == bytes.fromhex("006a")  # the object's state lasts: 103 + 3


def test_an_extern_nobody_registered_is_a_clear_error():
    with pytest.raises(P4Error) as ei:
        V1Switch(checked(), plugins=ExternPlugins())
    s = str(ei.value)
    assert "extern function mix is not implemented" in s and "--extern-plugin" in s
    assert s.startswith(f"{PROGRAM}:25:19: error:"), s
    only_fn = ExternPlugins()
    only_fn.function("mix", lambda *a: 0)
    with pytest.raises(P4Error) as ei:
        V1Switch(checked(), plugins=only_fn)
    assert "extern Accumulator is not implemented" in str(ei.value)


def test_an_exception_in_plugin_code_abandons_the_packet_naming_the_extern():
    r = demo()
    r.functions["mix"] = lambda *a: 1 // 0
    sw = V1Switch(checked(), plugins=r)
    assert sw.process(0, bytes(9)) == []
    assert any("extern mix" in e and "ZeroDivisionError" in e for e in sw.fatal_errors), sw.fatal_errors


@pytest.mark.parametrize("source, message", [
    (None, "no such file"),
    ("X = 1\n", "has no register(registry) function"),
    ("def register(r):\n    raise RuntimeError('boom')\n", "register() failed: RuntimeError: boom"),
    ("import no_such_module_here\n", "importing it failed: ModuleNotFoundError"),
    ("def register(r):\n    r.function('f', 3)\n", "the implementation of f is not callable"),
])
def test_plugin_loading_errors(tmp_path, source, message):
    path = tmp_path / "plug.py"
    if source is not None:
        path.write_text(source)
    with pytest.raises(UsageError) as ei:
        ExternPlugins().load(str(path))
    assert message in str(ei.value)


def test_two_plugins_cannot_implement_one_extern(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def register(r):\n    r.function('f', print)\n")
    b.write_text("def register(r):\n    r.function('f', print)\n")
    r = ExternPlugins()
    r.load(str(a))
    with pytest.raises(UsageError, match="extern f is implemented by two plugins"):
        r.load(str(b))


def test_unknown_module_name_is_named():
    with pytest.raises(UsageError, match="no module named 'no_such_plugin_mod'"):
        ExternPlugins().load("no_such_plugin_mod")


def _compile(*extra: str, cwd: Path):
    return subprocess.run([sys.executable, "-m", "emulator.cli", "compile", str(PROGRAM), "--p4info",
                           str(cwd / "p.txtpb"), *extra], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_compile_cli_takes_extern_plugins(tmp_path):
    r = _compile("--extern-plugin", str(DEMO), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _compile(cwd=tmp_path)
    assert r.returncode == 2 and "extern function mix is not implemented" in r.stderr
    assert "Traceback" not in r.stderr
    r = _compile("--extern-plugin", str(tmp_path / "missing.py"), cwd=tmp_path)
    assert r.returncode == 2 and "extern plugin" in r.stderr and "no such file" in r.stderr
    assert "Traceback" not in r.stderr


def test_switch_command_line_takes_plugins_like_bmv2_load_modules():
    from emulator.switchd.options import parse_args

    opts = parse_args(["--no-p4", "--extern-plugin", "a.py", "--load-modules", "b.py,c.py"])
    assert opts.extern_plugins == ["a.py", "b.py", "c.py"]


def test_scenario_extern_plugins_are_loaded_and_errors_name_the_field(tmp_path):
    from emulator.errors import ConfigError
    from emulator.scenario.schema import Scenario
    from emulator.sim.build import build_scenario

    sc = Scenario.model_validate({"topology": {"star": {"switch": "tor", "hosts": 2}},
                                  "switch": {"extern_plugins": ["missing_plugin.py"]},
                                  "workload": {"flows": [{"src": "h1", "dst": "h2", "bytes": "1KiB"}]}})
    with pytest.raises(ConfigError) as ei:
        build_scenario(sc, base_dir=tmp_path)
    assert "switch.extern_plugins[0]" in str(ei.value) and "no such file" in str(ei.value)
