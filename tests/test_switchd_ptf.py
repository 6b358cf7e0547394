"""Unmodified PTF (its nn platform, over pynng) drives rocelab-switch through `--packet-in ipc://...`, the way
p4c's PTF runner drives simple_switch_grpc: no interfaces, no root."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from netns_util import in_netns, netns_available, wait_listening_in
from p4runtime_util import RT_P4, compile_program
from test_switchd import SWITCH, start_listening, stop

pytest.importorskip("ptf", reason="PTF is not installed (scripts/setup.sh installs it: pip install ptf)")
pytest.importorskip("pynng", reason="pynng is not installed (pip install pynng)")


PROGRAMS = {"l2_forwarding": RT_P4, "basic_ipv4": RT_P4.parent / "basic_ipv4.p4",
            "fabric_routing": RT_P4.parents[1].parent / "p4src" / "fabric.p4", "unarbitrated": RT_P4}
TARGET_OPTIONS = {"unarbitrated": ["--cpu-port", "255"]}  # its PacketIn / PacketOut go through the CPU port
# how long PTF waits for an expected packet (its default is 2 s): generous, as an expected packet ends the wait as
# soon as it comes and a busy machine can take longer than 2 s; waits for no packet keep PTF's negative timeout
PTF_WAIT = ("--default-timeout", "30")


@pytest.mark.parametrize("test", sorted(PROGRAMS))
def test_ptf_nn_platform_against_rocelab_switch(tmp_path, test):
    """tests/ptf/TEST.py (fabric_routing programs with p4runtime-shell, the others with raw stubs; unarbitrated
    without election ids, as p4-guide's base test) against the program it was written for."""
    if test == "fabric_routing":
        pytest.importorskip("p4runtime_sh", reason="p4runtime-shell is not installed (scripts/setup.sh installs it)")
    ptf_bin = shutil.which("ptf", path=str(Path(sys.executable).parent))
    if ptf_bin is None:
        pytest.skip("the ptf command is not in this environment")
    info, cfg = compile_program(PROGRAMS[test], tmp_path)
    sock = f"ipc://{tmp_path}/bmv2_packets_1.ipc"
    proc, address, _ = start_listening(SWITCH + ["--device-id", "0", "--packet-in", sock, "--no-p4", "--",
                                                 *TARGET_OPTIONS.get(test, [])])
    try:
        params = f"grpcaddr='{address}';p4info='{info}';config='{cfg}'"
        r = subprocess.run([ptf_bin, "--platform", "nn", "--device-socket", f"0-{{0-7}}@{sock}", *PTF_WAIT,
                            "--test-params", params, "--test-dir", str(Path(__file__).parent / "ptf"),
                            "--log-dir", str(tmp_path / "ptf-log"), test],
                           capture_output=True, text=True, timeout=180, cwd=tmp_path)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        assert "Ran 1 test" in r.stdout + r.stderr and "OK" in r.stdout + r.stderr, r.stdout + r.stderr
    finally:
        assert stop(proc) == 0


def test_p4guide_compile_and_p4runtime_shell_idle_options(tmp_path):
    """tests/ptf/idle_options.py: the program compiled with p4-guide's runptf.sh flags (p4c driver form, no -o,
    so the config is ./rt.json), the switch started with simple_switch_grpc's options, and a p4runtime-shell test
    that compares PI's messages for refused idle-timeout writes and waits for an idle-timeout notification."""
    pytest.importorskip("p4runtime_sh", reason="p4runtime-shell is not installed (scripts/setup.sh installs it)")
    ptf_bin = shutil.which("ptf", path=str(Path(sys.executable).parent))
    if ptf_bin is None:
        pytest.skip("the ptf command is not in this environment")
    compiled = subprocess.run([sys.executable, "-m", "emulator.cli", "compile", "--target", "bmv2", "--arch",
                               "v1model", "--p4runtime-files", "rt.p4info.txt", str(RT_P4)],
                              cwd=tmp_path, capture_output=True, text=True)
    assert compiled.returncode == 0 and (tmp_path / "rt.json").is_file(), compiled.stderr
    sock = f"ipc://{tmp_path}/bmv2_packets_1.ipc"
    proc, address, _ = start_listening(SWITCH + ["--log-file", "ss-log", "--log-flush", "--dump-packet-data",
                                                 "10000", "--packet-in", sock, "--no-p4", "--", "--cpu-port", "255"],
                                       cwd=tmp_path)
    try:
        params = f"grpcaddr='{address}';p4info='rt.p4info.txt';config='rt.json'"
        r = subprocess.run([ptf_bin, "--platform", "nn", "--device-socket", f"0-{{0-7}}@{sock}", *PTF_WAIT,
                            f"--test-params={params}", "--test-dir", str(Path(__file__).parent / "ptf"),
                            "--log-dir", str(tmp_path / "ptf-log"), "idle_options"],
                           capture_output=True, text=True, timeout=180, cwd=tmp_path)
        assert r.returncode == 0 and "Ran 1 test" in r.stdout + r.stderr, r.stdout[-3000:] + r.stderr[-3000:]
    finally:
        assert stop(proc) == 0
    assert "ingress" in (tmp_path / "ss-log.txt").read_text()  # BMv2's file for --log-file ss-log (runptf.sh)



@pytest.mark.skipif(netns_available() is not None, reason=str(netns_available()))
def test_ptf_over_veths_as_the_tutorials_run_it(tmp_path):
    """The tutorials' runptf.sh, inside a namespace of our own: eight veth pairs, the switch on the even ends with
    simple_switch_grpc's command line of that script (default gRPC port 9559), PTF on the odd ends."""
    switch_bin = shutil.which("rocelab-switch", path=str(Path(sys.executable).parent))
    ptf_bin = shutil.which("ptf", path=str(Path(sys.executable).parent))
    if switch_bin is None or ptf_bin is None:
        pytest.skip("rocelab-switch or ptf is not installed in this environment")
    info, cfg = compile_program(PROGRAMS["basic_ipv4"], tmp_path)
    ns = f"rl{os.getpid() % 100000}ptf"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    proc = None
    try:
        for cmd in (["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"],
                    ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"], ["ip", "link", "set", "lo", "up"]):
            subprocess.run(in_netns(ns, *cmd), check=True)
        for i in range(8):
            subprocess.run(in_netns(ns, "ip", "link", "add", f"veth{2 * i}", "type", "veth", "peer", "name",
                                    f"veth{2 * i + 1}"), check=True)
            for end in (2 * i, 2 * i + 1):
                subprocess.run(in_netns(ns, "ip", "link", "set", f"veth{end}", "up"), check=True)
        ports = [a for i in range(8) for a in ("-i", f"{i}@veth{2 * i}")]
        proc = subprocess.Popen(in_netns(ns, switch_bin, "--log-file", "ss-log", "--log-flush",
                                         "--dump-packet-data", "10000", *ports, "--no-p4"),
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_listening_in(ns, 9559, proc)
        params = f"grpcaddr='localhost:9559';p4info='{info}';config='{cfg}'"
        r = subprocess.run(in_netns(ns, ptf_bin, *PTF_WAIT,
                                    *[a for i in range(8) for a in ("-i", f"{i}@veth{2 * i + 1}")],
                                    f"--test-params={params}", "--test-dir", str(Path(__file__).parent / "ptf"),
                                    "--log-dir", str(tmp_path / "ptf-log"), "basic_ipv4"),
                           capture_output=True, text=True, timeout=180, cwd=tmp_path)
        assert r.returncode == 0 and "Ran 1 test" in r.stdout + r.stderr, r.stdout[-3000:] + r.stderr[-3000:]
        assert "packet in on port 3" in (tmp_path / "ss-log.txt").read_text()  # BMv2's name for --log-file ss-log
    finally:
        if proc is not None:
            assert stop(proc) == 0
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)

