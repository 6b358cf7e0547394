"""`rocelab run`: a scenario file in, summary.json + CSV + plots + pcaps out; errors before anything runs;
Ctrl-C leaves complete files marked incomplete; pcaps decode in tshark with the ICRC right."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from emulator.cli import main as cli
from emulator.scenario.load import load_scenario
from emulator.sim.runner import run_scenario

ROOT = Path(__file__).resolve().parents[1]
INCAST = ROOT / "scenarios" / "incast_pfc.yaml"
# a small incast (256 KiB each) keeps these tests fast; the full scenario is asserted in test_scenario_incast.py
SMALL = ["workload.incast.bytes=256KiB"]


def run_cli(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "out"
    args = ["run", str(INCAST), "--out", str(out), "--quiet"]
    for s in SMALL:
        args += ["--set", s]
    return cli(args + list(extra)), out


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("run")
    code, out = run_cli(tmp, "--set", 'outputs.pcap=["s1:9", "s1:1", "h2"]')
    return code, out, json.loads((out / "summary.json").read_text())


def test_run_writes_every_output_and_nothing_half_written(small_run):
    code, out, _ = small_run
    assert code == 0
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith(".rocelab"))  # the lock and the list
    assert names == ["fct.png", "flows.csv", "h2.pcap", "pauses.csv", "pauses.png", "queues.csv", "queues.png",
                     "s1-1.pcap", "s1-9.pcap", "summary.json", "throughput.csv", "throughput.png"]
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_summary_has_the_documented_fields_and_they_add_up(small_run):
    _, _, s = small_run
    for key in ("engine", "sim_time_ns", "wall_time_s", "packets_transmitted", "flows", "totals", "complete"):
        assert key in s
    assert s["engine"] == "sim" and s["complete"] is True and s["stop_reason"] == "completed"
    assert set(s["totals"]) >= {"drops", "ecn_marked", "pfc_pause_frames", "cnps", "retransmitted_packets",
                                "max_queue_bytes"}
    assert len(s["flows"]) == 8
    for f in s["flows"]:
        assert set(f) >= {"name", "src", "dst", "bytes", "start_ns", "end_ns", "fct_ns", "goodput_gbps",
                          "retransmitted_packets", "paused_ns", "completed"}
        assert f["completed"] and f["bytes"] == 256 * 1024 and f["dst"] == "r"
        assert f["fct_ns"] == f["end_ns"] - f["start_ns"] and 0 <= f["paused_ns"] <= f["fct_ns"]
        assert f["goodput_gbps"] == pytest.approx(f["bytes"] * 8 / f["fct_ns"], rel=1e-3)
    # every frame on a wire was sent by some port of some node: the sum over switches and hosts
    ports = [p for group in ("switches", "hosts") for node in s[group].values() for p in node["ports"].values()]
    assert s["packets_transmitted"] == sum(p["tx_frames"] for p in ports)
    # 8 x 256 KiB -> one 100 Gb/s port: PFC engaged, nothing lost
    assert s["totals"]["drops"] == 0 and s["totals"]["pfc_pause_frames"] > 0
    assert s["sim_time_ns"] >= max(f["end_ns"] for f in s["flows"])


def test_csv_series(small_run):
    _, out, s = small_run
    queues = list(csv.DictReader(open(out / "queues.csv")))
    assert queues and max(int(r["bytes"]) for r in queues) <= s["totals"]["max_queue_bytes"]
    assert {(r["switch"], r["port"], r["prio"]) for r in queues if int(r["bytes"])} == {("s1", "9", "3")}
    pauses = list(csv.DictReader(open(out / "pauses.csv")))
    assert {r["paused"] for r in pauses} == {"0", "1"}
    flows = list(csv.DictReader(open(out / "flows.csv")))
    assert {r["flow"] for r in flows} == {f["name"] for f in s["flows"]}
    # the intervals add up to each flow's bytes, and each rate is its bytes over the interval
    for f in s["flows"]:
        rows = [r for r in flows if r["flow"] == f["name"]]
        assert sum(int(r["bytes"]) for r in rows) == f["bytes"]
        for prev, r in zip(rows, rows[1:]):
            dt = int(r["time_ns"]) - int(prev["time_ns"])
            assert float(r["gbps"]) == pytest.approx(int(r["bytes"]) * 8 / dt, abs=1e-3)


def _tshark(path: Path, *args: str) -> list[list[str]]:
    out = subprocess.run(["tshark", "-r", str(path), *args], capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None,
                                  reason="tshark is not installed (scripts/setup.sh installs it when run as root)")


@needs_tshark
def test_pcap_decodes_in_tshark_with_bth_and_a_right_icrc(small_run):
    from scapy.contrib.roce import BTH
    from scapy.utils import rdpcap

    _, out, s = small_run
    rows = _tshark(out / "s1-9.pcap", "-T", "fields", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn",
                   "-e", "infiniband.invariant.crc", "-Y", "infiniband")
    assert len(rows) > 8 * 256
    assert {int(r[0]) for r in rows} >= {6, 7, 8, 17}  # WRITE first/middle/last in, ACKs back
    frames = [p for p in rdpcap(str(out / "s1-9.pcap")) if BTH in p]
    assert len(frames) == len(rows)
    for row, pkt in zip(rows, frames, strict=True):
        wire = bytes(pkt)[-4:]
        assert int(row[2], 16) == int.from_bytes(wire, "big")  # tshark shows the ICRC bytes as on the wire
        assert wire == pkt[BTH].compute_icrc(None)  # scapy's own ICRC over the frame as captured
    # virtual nanosecond timestamps: the last frame is within the run
    last = _tshark(out / "s1-9.pcap", "-T", "fields", "-e", "frame.time_epoch")[-1][0]
    assert 0 < float(last) * 1e9 <= s["sim_time_ns"] + 1


@needs_tshark
def test_pcap_has_pfc_frames_that_tshark_decodes(small_run):
    _, out, s = small_run
    rows = _tshark(out / "s1-1.pcap", "-T", "fields", "-e", "macc.opcode", "-e", "macc.cbfc.enbv",
                   "-e", "eth.dst", "-Y", "eth.type == 0x8808")
    assert rows and {r[0] for r in rows} == {"0x0101"} and {r[2] for r in rows} == {"01:80:c2:00:00:01"}
    assert {int(r[1], 16) for r in rows} == {1 << 3}  # priority 3 only
    sent = sum(p["pause_sent"][3] + p["resume_sent"][3] for p in s["switches"]["s1"]["tm"]["ports"].values()
               if p is s["switches"]["s1"]["tm"]["ports"]["1"])
    assert len(rows) == sent


@needs_tshark
def test_pcap_has_cnps_when_dcqcn_is_on(tmp_path):
    code, out = run_cli(tmp_path, "--set", "switch.ecn.mode=step", "--set", "switch.ecn.threshold=20KB",
                        "--set", "nic.dcqcn.enabled=true", "--set", 'outputs.pcap=["h1"]', "--no-plots")
    assert code == 0
    s = json.loads((out / "summary.json").read_text())
    rows = _tshark(out / "h1.pcap", "-T", "fields", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
                   "-Y", "infiniband.bth.opcode == 129")
    assert len(rows) == s["hosts"]["h1"]["nic"]["cnps_received"] > 0 and s["totals"]["ecn_marked"] > 0
    # Wireshark 4.0 names no BECN field: check it, and the 16 reserved bytes, with scapy's layers
    from scapy.contrib.roce import BTH, CNPPadding
    from scapy.utils import rdpcap

    cnps = [p for p in rdpcap(str(out / "h1.pcap")) if BTH in p and p[BTH].opcode == 0x81]
    assert len(cnps) == len(rows)
    assert all(p[BTH].becn == 1 and CNPPadding in p and bytes(p)[-4:] == p[BTH].compute_icrc(None)
               for p in cnps)
    assert {int(r[1], 16) for r in rows} == {p[BTH].dqpn for p in cnps}


def test_ctrl_c_writes_what_it_has_and_marks_the_run_incomplete(tmp_path):
    sc = load_scenario(INCAST, SMALL + ['outputs.pcap=["s1:9"]'])
    calls = []

    def interrupt(now_ns: int, events: int) -> None:  # Ctrl-C 50 µs into the run
        calls.append(now_ns)
        if now_ns > 50_000:
            raise KeyboardInterrupt

    import emulator.sim.engine as engine
    outcome = None
    old = engine.Engine.run

    def run(self, *a, **kw):  # report progress at once so the interrupt lands mid-run
        kw["progress_interval_s"] = 0.0
        return old(self, *a, **kw)
    engine.Engine.run = run
    try:
        outcome = run_scenario(sc, out_dir=tmp_path, progress=interrupt)
    finally:
        engine.Engine.run = old
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["complete"] is False and s["stop_reason"] == "interrupted" and 50_000 < s["sim_time_ns"] < 60_000
    assert not all(f["completed"] for f in s["flows"]) and outcome.summary == s
    assert not list(tmp_path.glob(".*part*"))
    assert (tmp_path / "s1-9.pcap").stat().st_size > 24


def test_seed_gives_identical_results(tmp_path):
    # RED marking draws from the P4 `random` extern: the seed fixes it
    red = SMALL + ["switch.ecn.mode=red", "switch.ecn.kmin=5KB", "switch.ecn.kmax=50KB", "nic.dcqcn.enabled=true"]
    a = run_scenario(load_scenario(INCAST, red)).summary
    b = run_scenario(load_scenario(INCAST, red)).summary
    for s in (a, b):
        s.pop("wall_time_s")
    assert a == b and a["totals"]["ecn_marked"] > 0


@pytest.mark.parametrize("override, message", [
    ("workload.incast.receiver=zz", "incast_pfc.yaml:28: error: workload.incast.receiver: unknown host 'zz'"),
    ("switch.pfc.xon=40KB", "error: switch.pfc.xon: 40,000 B must be below xoff (32,000 B)"),
    # a check across fields names the field it refuses, not the mapping that holds it (it said `switch.pfc:`,
    # `workload.senders:` and `switch.pfc.xoff_bytes:`, a name no scenario has)
    ("switch.pfc.priorities=[3,8]", "error: switch.pfc.priorities[1]: must be between 0 and 7, got 8"),
    ("switch.pfc.xoff=0", "error: switch.pfc.xoff: must be greater than 0"),
    ("switch.ecn={mode: red, kmin: 5KB, kmax: 1KB}", "error: switch.ecn.kmin: 5,000 B must be below kmax"),
    ("workload.incast.senders=[]", "error: workload.incast.senders: needs at least one sender (from --set"),
    ("switch.buffer.size=10KB", "incast_pfc.yaml:16: error: switch.buffer.size: switch s1: a 10,000-byte buffer "
                                "leaves -501,956 bytes shared after the reserve (9 ports x 8 priorities"),
    ("switch.buffer.size=10KB", "it must hold at least one 1,098-byte frame (from --set switch.buffer.size=10KB)"),
    # the line is the nearest field's in the file: the note says the value came from the command line
    ("switch.pfcc=1", "incast_pfc.yaml:13: error: switch.pfcc: unknown field (from --set switch.pfcc=1)"),
    ("topology.rate=fast", "error: topology.rate: expected a rate such as '100Gbps', got 'fast'"),
    ('outputs.pcap=["s1:99"]', "error: outputs.pcap[0]: s1 has no linked port 99"),
    ("nic.mtu=1500", "error: nic.mtu: mtu must be one of 256, 512, 1024, 2048, 4096"),
])
def test_bad_scenarios_are_refused_before_the_run_with_the_field_path(tmp_path, capsys, override, message):
    code, out = run_cli(tmp_path, "--set", override)
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists()  # nothing written


def test_unreadable_and_malformed_files(tmp_path, capsys):
    assert cli(["run", str(tmp_path / "nope.yaml")]) == 2
    assert "cannot read scenario" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("topology: {hosts: [a, b]\n")
    assert cli(["run", str(bad)]) == 2
    assert f"{bad}:2:1: error: not valid YAML" in capsys.readouterr().err


def test_a_failing_run_leaves_no_partial_files(tmp_path, monkeypatch):
    from emulator.sim.network import Network

    def broken(self, *a, **kw):
        raise RuntimeError("boom")
    monkeypatch.setattr(Network, "run", broken)
    with pytest.raises(RuntimeError):
        run_scenario(load_scenario(INCAST, SMALL + ['outputs.pcap=["s1:9"]']), out_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".rocelab")] == []


def test_bundled_scenarios_run_by_name(tmp_path, monkeypatch):
    from emulator.scenario.bundled import bundled_names, resolve_scenario

    assert {"incast_pfc", "incast_lossy", "incast_dcqcn", "pfc_parking_lot"} <= set(bundled_names())
    monkeypatch.chdir(tmp_path)
    assert resolve_scenario("incast_pfc") == INCAST and resolve_scenario("incast_pfc.yaml") == INCAST
    assert resolve_scenario("nope") == Path("nope")


def test_trace_logs_the_pipeline_of_the_first_packets(tmp_path):
    code, out = run_cli(tmp_path, "--set", "outputs.trace={switches: [s1], packets: 2}", "--no-plots")
    assert code == 0
    text = (out / "trace-s1.txt").read_text().splitlines()
    assert text[0].startswith("# s1: pipeline trace of the first 2 ingress and egress passes")
    body = text[1:]
    assert sum("[in] packet on port" in ln for ln in body) == 2 and sum("[out] port 9" in ln for ln in body) == 2
    assert any("table FabricIngress.ipv4_lpm: hit -> FabricIngress.set_nexthop_id" in ln for ln in body)
    assert all(ln.startswith("t=") and "us [" in ln for ln in body)
    # tracing observes: the run's figures are those of an untraced run
    plain = run_scenario(load_scenario(INCAST, SMALL)).summary
    traced = json.loads((out / "summary.json").read_text())
    for s in (plain, traced):
        s.pop("wall_time_s")
    assert plain == traced


def test_trace_of_an_unknown_switch_is_refused(tmp_path, capsys):
    code, _ = run_cli(tmp_path, "--set", "outputs.trace={switches: [s9]}")
    assert code == 2 and "outputs.trace.switches[0]: unknown switch 's9'" in capsys.readouterr().err


def test_a_closed_stdout_does_not_change_the_exit_status(tmp_path):
    """`rocelab run x | head -1`: Rich answered the broken pipe with exit 1 (the status of a failed flow) for a run
    that completed; the tables are dropped and the status stays the run's."""
    import os
    import sys

    cmd = [sys.executable, "-m", "emulator.cli", "run", str(INCAST), "--out", str(tmp_path / "out"), "--no-plots",
           "--set", "workload.incast.bytes=16KiB"]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first table: every write to stdout is EPIPE
    try:
        done = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["status"] == "complete"


def test_a_run_that_reaches_its_duration_with_a_transfer_left_is_incomplete(tmp_path):
    """`duration` stops the run; a flow that is no backlog and had not completed by then makes it incomplete (it was
    reported complete, exit 0, as the Mininet engine never did). Backlogged flows are what a duration is for."""
    code, out = run_cli(tmp_path, "--set", "duration=20us")
    s = json.loads((out / "summary.json").read_text())
    assert (code, s["status"], s["complete"], s["stop_reason"]) == (1, "incomplete", False, "duration")
    assert len(s["problems"]) == 8 and "had not completed when the run stopped (duration)" in s["problems"][0]
