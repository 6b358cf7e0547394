"""Unmodified PTF (its nn platform, over pynng) drives rocelab-switch through `--packet-in ipc://...`, the way
p4c's PTF runner drives simple_switch_grpc: no interfaces, no root."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from p4runtime_util import RT_P4, compile_program
from test_switchd import SWITCH, free_port, stop, wait_listening

pytest.importorskip("ptf", reason="PTF is not installed (scripts/setup.sh installs it: pip install ptf)")
pytest.importorskip("pynng", reason="pynng is not installed (pip install pynng)")


def test_ptf_nn_platform_against_rocelab_switch(tmp_path):
    ptf_bin = shutil.which("ptf", path=str(Path(sys.executable).parent))
    if ptf_bin is None:
        pytest.skip("the ptf command is not in this environment")
    info, cfg = compile_program(RT_P4, tmp_path)
    sock = f"ipc://{tmp_path}/bmv2_packets_1.ipc"
    port = free_port()
    proc = subprocess.Popen(SWITCH + ["--device-id", "0", "--packet-in", sock, "--no-p4", "--",
                                      "--grpc-server-addr", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(port, proc)
        params = f"grpcaddr='127.0.0.1:{port}';p4info='{info}';config='{cfg}'"
        r = subprocess.run([ptf_bin, "--platform", "nn", "--device-socket", f"0-{{0-7}}@{sock}",
                            "--test-params", params, "--test-dir", str(Path(__file__).parent / "ptf"),
                            "--log-dir", str(tmp_path / "ptf-log")],
                           capture_output=True, text=True, timeout=180, cwd=tmp_path)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        assert "OK" in r.stdout + r.stderr
    finally:
        assert stop(proc) == 0
