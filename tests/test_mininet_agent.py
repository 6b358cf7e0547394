"""Host agents back to back: two network namespaces joined by a veth pair, one agent in each, no switch.

Needs root and iproute2 (skips saying so otherwise). Names carry the test's pid; everything is recorded in a
RunState and removed, and the test checks that nothing is left.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator.mininet.agentproc import AgentGroup, agent_argv
from emulator.mininet.agentspec import agent_specs
from emulator.mininet.netns import Namespace, add_address, veth
from emulator.mininet.state import RunState, link_exists, netns_exists
from traffic.flows import open_flows
from traffic.nic import Nic, NicConfig
from traffic.workloads import FlowSpec

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2 (network namespaces)")

RATE = 20e6  # 20 Mb/s: a rate one Python agent sustains with room to spare


def _icmp_unreachables(ns: Namespace) -> int:
    out = subprocess.run(ns.argv(["cat", "/proc/net/snmp"]), capture_output=True, text=True, check=True).stdout
    lines = [ln.split() for ln in out.splitlines() if ln.startswith("Icmp:")]
    return int(lines[1][lines[0].index("OutDestUnreachs")])


def _run_pair(tmp_path: Path, nbytes: int, cfg: NicConfig) -> tuple[dict, dict, list[str], RunState]:
    tag = f"rl{os.getpid() % 100000}"
    names = {"h1": (f"{tag}a", f"{tag}a0"), "h2": (f"{tag}b", f"{tag}b0")}
    nics = {"h1": Nic("h1", "02:00:00:01:00:00", "10.0.0.1", RATE, cfg),
            "h2": Nic("h2", "02:00:00:01:00:01", "10.0.0.2", RATE, cfg)}
    flows = open_flows(nics, [FlowSpec("h1", "h2", nbytes, 1_000_000, None, "f1")])
    specs = agent_specs(nics, flows, {h: n[1] for h, n in names.items()},
                        pcaps={h: str(tmp_path / f"{h}.pcap") for h in nics})
    st = RunState.create(label="test-agent")
    with st:
        ns = {h: Namespace.make(st, n[0]) for h, n in names.items()}
        veth(st, (ns["h1"], names["h1"][1]), (ns["h2"], names["h2"][1]))
        for h, nic in nics.items():  # the hosts own their addresses: the kernel sees RoCE packets for itself
            add_address(ns[h], names[h][1], f"{nic.ip}/24")
        group = AgentGroup()
        try:
            for h, spec in specs.items():
                path = tmp_path / f"{h}.json"
                path.write_text(spec.to_json())
                group.add(h, ns[h].popen(st, agent_argv(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1]))
            group.wait_ready(60)
            group.go()
            finished = group.wait_flows(1, 60)
        finally:
            reports = group.stop()
        icmp = _icmp_unreachables(ns["h2"])
    left = [n for _, (nsn, ifn) in names.items() for n in (nsn, ifn)
            if netns_exists(nsn) or link_exists(ifn)]
    assert finished, f"flow not done in 60 s: {reports}"
    reports["icmp_unreachables"] = icmp
    return reports, group.done, left, st


def test_agents_write_through_a_veth_pair(tmp_path):
    nbytes = 200 * 1024
    reports, done, left, st = _run_pair(tmp_path, nbytes, NicConfig())
    assert left == [] and not st.dir.exists(), f"left behind: {left}"
    flow = reports["h1"]["flows"][0]
    assert done["f1"]["completed"] and flow["completed"] and flow["bytes"] == nbytes
    assert flow["retransmitted_packets"] == 0
    rx = reports["h2"]["nic"]
    assert rx["data_frames_received"] == -(-nbytes // 1024) and rx["icrc_errors"] == 0
    assert reports["h1"]["nic"]["acks_received"] >= 1
    # the kernel of h2 took the RoCE packets to its own address without answering them
    assert reports["icmp_unreachables"] == 0
    assert reports["h1"]["nic"]["dropped"] == 0
    # the agent paced itself: the flow cannot finish faster than the link's serialization of its frames
    wire = rx["data_frames_received"] * (1024 + 58 + 24) * 8 / RATE * 1e9
    assert flow["fct_ns"] >= 0.95 * wire
    assert reports["h1"]["lateness"]["samples"] > 0
    for h in ("h1", "h2"):
        assert (tmp_path / f"{h}.pcap").stat().st_size > 24 + 100 * 16


def test_a_bad_spec_fails_loudly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"host": "h1"}')
    p = subprocess.run(agent_argv(bad), capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert p.returncode == 2 and "bad spec" in p.stderr and "Traceback" not in p.stderr


# An agent before its time zero, as emulator.mininet.agent waits: SIGTERM only sets a flag, the read of stdin goes on
WAITING_AGENT = """
import json, signal, sys
signal.signal(signal.SIGTERM, lambda *_: None)
print(json.dumps({"event": "ready"}), flush=True)
sys.stdin.readline()
print(json.dumps({"event": "report", "flows": []}), flush=True)
"""


def test_stopping_agents_that_wait_for_time_zero_is_prompt():
    """A run stopped during set-up (Ctrl-C before `go`): stop() waited its whole timeout for each such agent, then
    killed it without a report (a Ctrl-C took 10 s to end a Mininet run)."""
    import sys
    import time

    group = AgentGroup()
    group.add("h1", subprocess.Popen([sys.executable, "-c", WAITING_AGENT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    # and one that SIGTERM ends before it could report (still starting up): 2 s were spent waiting for its report
    starting = "import time; print('{\"event\": \"ready\"}', flush=True); time.sleep(60)"
    group.add("h2", subprocess.Popen([sys.executable, "-c", starting], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True))
    group.wait_ready(60)
    t0 = time.monotonic()
    reports = group.stop(timeout_s=30)
    assert time.monotonic() - t0 < 1.5 and reports["h1"]["event"] == "report" and "h2" not in reports


def test_an_agent_stopped_before_its_time_zero_reports_no_run_time():
    """Its clock counted from 0, so its report said the run had lasted as long as the machine had been up."""
    import io

    from emulator.mininet.agent import Agent

    nics = {h: Nic(h, f"02:00:00:01:00:0{i}", f"10.0.0.{i + 1}", RATE, NicConfig()) for i, h in enumerate(("h1", "h2"))}
    flows = open_flows(nics, [FlowSpec("h1", "h2", 4096, 0, None, "f1")])
    spec = agent_specs(nics, flows, {"h1": "eth0", "h2": "eth0"})["h1"]
    assert not spec.t0_ns
    rep = Agent(spec, out=io.StringIO()).report()
    assert rep["now_ns"] == 0
