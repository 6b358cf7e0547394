"""rocelab-switch as a process: command line, interfaces in namespaces, P4Runtime, egress rate, PFC, pcaps,
clean stop. Frames are checked on the wire from inside the namespaces."""
from __future__ import annotations

import math
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from google.protobuf import text_format
from netns_util import WAIT_S, Lab, capture, captured, netns_available, send
from p4runtime_util import RT_P4, Controller, compile_program

from emulator.proto import p4info_pb2, p4runtime_pb2

SWITCH = [sys.executable, "-m", "emulator.switchd.main"]
MAC1, MAC2 = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")


def any_port(args: list[str]) -> list[str]:
    """rocelab-switch arguments with its P4Runtime server on a port the OS picks (127.0.0.1:0), not the default
    9559, which another test or run on the machine may hold (the switch listens before it reads its program)."""
    return args + (["--grpc-server-addr", "127.0.0.1:0"] if "--" in args else ["--", "--grpc-server-addr", "127.0.0.1:0"])


def start_listening(args: list[str], timeout: float = 120, cwd=None) -> tuple[subprocess.Popen, str, str]:
    """rocelab-switch with these arguments (none naming a gRPC address: the switch is given 127.0.0.1:0) ->
    (process, the address its P4Runtime server listens on, its stderr up to the line naming it).

    The OS picks the port as the server binds it and the switch names it once it listens: no port is picked by
    binding and closing a socket first, which raced with parallel tests (another one could take the port in
    between, and the test would then talk to the wrong server). The deadline is generous: start-up takes a second
    or two, much longer only on a busy machine."""
    proc = subprocess.Popen(any_port(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    fd, said, end = proc.stderr.fileno(), b"", time.monotonic() + timeout
    # the pipe itself is read, as select() sees only it (a text wrapper's buffer could hold the line unseen)
    while (m := re.search(rb"P4Runtime on (\S+?)[,\n]", said)) is None:
        left = end - time.monotonic()
        chunk = os.read(fd, 65536) if left > 0 and select.select([fd], [], [], min(left, 1.0))[0] else None
        if chunk == b"" or left <= 0:  # the switch exited (end of its stderr), or the deadline passed
            stop(proc)
            why = f"exited {proc.returncode}" if chunk == b"" else f"did not listen within {timeout:g} s"
            raise AssertionError(f"switch {why}: {(said + proc.stderr.read().encode()).decode(errors='replace')}")
        said += chunk or b""
    return proc, m.group(1).decode(), said.decode(errors="replace")


def stop(proc: subprocess.Popen) -> int:
    """SIGTERM, then its exit status; killed (and TimeoutExpired raised) if it is not gone within 60 s (it stops
    in well under a second; the deadline is for a busy machine)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
    return proc.returncode


def frame(dst=MAC2, size=64, ethertype=b"\x88\xb5") -> bytes:
    body = dst + MAC1 + ethertype
    return body + bytes(size - len(body))


def test_bad_command_lines_exit_2_with_a_message():
    cases = [(["-i", "1@no-such-if0", "--no-p4"], "does not exist"),
             (["-i", "1@lo", "-i", "1@dummy0"], "given twice"),
             (["-i", "1@lo", "-i", "2@lo"], "given twice"),
             (["-i", "x@lo"], "PORT@IFACE"),
             (["/nonexistent/config.json"], "cannot read device config"),
             (["--no-p4", "--", "--port-rate", "1=fast"], "rate"),
             (["--no-p4", "--", "--grpc-server-addr", "9559"], "expected HOST:PORT"),
             # p4lang/tutorials' Thrift-only P4Switch passes --thrift-port and no gRPC address, then waits forever
             # for the Thrift port: refusing at once is what ends that wait
             (["--thrift-port", "9090", "--no-p4"], "-b rocelab-switch-grpc")]
    for args, words in cases:
        if "--grpc-server-addr" not in args and "--thrift-port" not in args:  # the Thrift case is about the default
            args = any_port(args)
        r = subprocess.run(SWITCH + args, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (args, r.stderr)
        assert words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_config_not_ours_is_refused(tmp_path):
    bmv2 = tmp_path / "p4c.json"
    bmv2.write_text('{"header_types": [], "pipelines": []}')
    r = subprocess.run(SWITCH + any_port([str(bmv2)]), capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "rocelab compile" in r.stderr and "Traceback" not in r.stderr


def test_grpc_address_in_use_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(SWITCH + ["--no-p4", "--", "--grpc-server-addr", f"127.0.0.1:{port}"],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in r.stderr
    # gRPC's own "add_port.cc ... Failed to add port" line is held back: the one line says it
    assert r.stderr.strip().splitlines() == [f"rocelab-switch: gRPC server: cannot listen on 127.0.0.1:{port}: "
                                             "Address already in use"], r.stderr


needs_netns = pytest.mark.skipif(netns_available() is not None, reason=str(netns_available()))


@pytest.fixture
def lab():
    with Lab("sw") as lab:
        yield lab


def start_switch(lab, tmp_path, hosts: int, target_args=(), extra=(), setup=None):
    """rocelab-switch on `hosts` namespaced hosts with rt.p4 pushed -> (process, controller, P4Info, interfaces,
    what it printed on starting)."""
    ifaces = [lab.host(f"h{i}") for i in range(1, hosts + 1)]
    if setup is not None:  # e.g. tc on the root sides, before the switch looks at them
        setup(ifaces)
    args = SWITCH + [a for i, (_, root) in enumerate(ifaces, 1) for a in ("-i", f"{i}@{root}")]
    args += ["--device-id", "1", "--pcap", str(tmp_path / "pcaps"), *extra, "--no-p4", "--", "--cpu-port", "255",
             *target_args]
    proc, address, said = start_listening(args)
    info_path, cfg_path = compile_program(RT_P4, tmp_path)
    p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
    ctl = Controller(address)
    ctl.set_pipeline(p4info, cfg_path.read_bytes())
    return proc, ctl, p4info, ifaces, said


def l2_entry(p4info, dst: bytes, port: int):
    e = p4runtime_pb2.Entity()
    te = e.table_entry
    t = next(t for t in p4info.tables if t.preamble.name == "Ing.l2")
    te.table_id = t.preamble.id
    te.match.add(field_id=t.match_fields[0].id).exact.value = dst
    a = next(a for a in p4info.actions if a.preamble.name == "Ing.fwd")
    te.action.action.action_id = a.preamble.id
    te.action.action.params.add(param_id=1, value=dst)
    te.action.action.params.add(param_id=2, value=bytes([port]))
    return e


@needs_netns
def test_forwarding_between_namespaces_pcaps_and_clean_stop(lab, tmp_path):
    proc, ctl, p4info, ifaces, _ = start_switch(lab, tmp_path, 2)
    try:
        ctl.write((p4runtime_pb2.Update.INSERT, l2_entry(p4info, MAC2, 2)))
        cap = capture(lab, ifaces[1][0], WAIT_S, count=5)
        frames = [frame(size=64 + i) for i in range(5)]
        send(lab, ifaces[0][0], frames)
        got = [f for _, f in captured(cap)]
        assert got == frames
    finally:
        ctl.close()
        assert stop(proc) == 0
    pcaps = sorted(p.name for p in (tmp_path / "pcaps").iterdir())
    assert f"{ifaces[0][1]}_in.pcap" in pcaps and f"{ifaces[1][1]}_out.pcap" in pcaps
    from scapy.utils import rdpcap

    assert [bytes(p) for p in rdpcap(str(tmp_path / "pcaps" / f"{ifaces[1][1]}_out.pcap"))] == frames


def _assert_paced(lab, ctl, p4info, ifaces, rate: int) -> None:
    """60 frames of 1,000 bytes from port 1 to port 2 leave port 2 no faster than `rate` bits/s."""
    ctl.write((p4runtime_pb2.Update.INSERT, l2_entry(p4info, MAC2, 2)))
    cap = capture(lab, ifaces[1][0], WAIT_S, count=60)
    send(lab, ifaces[0][0], [frame(size=1000) for _ in range(60)])
    got = captured(cap)
    assert len(got) == 60
    span_s = (got[-1][0] - got[0][0]) / 1e9
    expect = 59 * (1000 + 24) * 8 / rate
    assert 0.9 * expect < span_s, (span_s, expect)  # never faster than the rate (the shaping)
    # and at the rate: the median gap is one frame time. A busy machine stretches some gaps (the switch was not
    # running when a frame was due; with --catch-up 0 it never makes up for it), which moved the whole span past
    # any bound on it, but not the median gap; a 4x bound still catches a switch pacing at a rate far too low
    gap_ns = (1000 + 24) * 8 / rate * 1e9
    gaps = sorted(b[0] - a[0] for a, b in zip(got, got[1:]))
    median = gaps[len(gaps) // 2]
    assert 0.9 * gap_ns <= median < 4 * gap_ns, (median, gap_ns)


@needs_netns
def test_egress_rate_is_enforced(lab, tmp_path):
    rate = 8_000_000  # 8 Mb/s: 60 frames of 1,000 bytes take (1000 + 24) * 8 * 60 / 8e6 = 61.4 ms
    proc, ctl, p4info, ifaces, _ = start_switch(lab, tmp_path, 2, ["--port-rate", f"2={rate}"])
    try:
        _assert_paced(lab, ctl, p4info, ifaces, rate)
    finally:
        ctl.close()
        stop(proc)


@needs_netns
def test_a_port_shaped_by_tc_is_paced_at_that_rate(lab, tmp_path):
    """Mininet's TCLink gives a link its bandwidth with an htb class on the interface (p4lang/tutorials' ecn and
    mri do): the switch paces the port at that rate itself, so the queue builds where the program sees it."""
    rate = 8_000_000

    def shape(ifaces):
        for cmd in (f"tc qdisc add dev {ifaces[1][1]} root handle 5:0 htb default 1",
                    f"tc class add dev {ifaces[1][1]} parent 5:0 classid 5:1 htb rate 8Mbit burst 15k"):
            subprocess.run(cmd.split(), check=True, capture_output=True)

    proc, ctl, p4info, ifaces, said = start_switch(lab, tmp_path, 2, setup=shape)
    try:
        _assert_paced(lab, ctl, p4info, ifaces, rate)
    finally:
        ctl.close()
        stop(proc)
    notes = said + proc.stderr.read()
    assert f"port 2 ({ifaces[1][1]}) paced at {rate} bit/s" in notes and f"port 1 ({ifaces[0][1]})" not in notes


def test_tc_rates_are_read_as_tc_prints_them():
    from emulator.switchd.linkrate import parse_tc_rates

    text = ("class htb 5:1 root prio 0 rate 500Kbit ceil 500Kbit burst 15Kb cburst 1600b \n"
            "qdisc tbf 10: root refcnt 2 rate 2Mbit burst 15000b lat 50ms \n"
            "qdisc netem 10: parent 5:1 limit 1000 delay 1ms\n"
            "class htb 5:2 parent 5:1 prio 0 rate 1.5Gbit ceil 1.5Gbit burst 1500b cburst 1500b\n")
    assert parse_tc_rates(text) == [500_000, 2_000_000, 1_500_000_000]
    assert parse_tc_rates("qdisc noqueue 0: root refcnt 2\n") == []


@needs_netns
def test_pfc_pause_frames_on_the_wire_under_overload(lab, tmp_path):
    """Priority 0 lossless with a 4 KB XOFF; port 2 drains at 4 Mb/s while h1 bursts: the switch must send PFC
    XOFF frames (EtherType 0x8808, opcode 0x0101, class 0 enabled) back out of port 1."""
    proc, ctl, p4info, ifaces, _ = start_switch(lab, tmp_path, 2, ["--port-rate", "2=4Mbps", "--pfc", "0",
                                                                "--pfc-xoff", "4000"])
    try:
        ctl.write((p4runtime_pb2.Update.INSERT, l2_entry(p4info, MAC2, 2)))
        cap = capture(lab, ifaces[0][0], 3)
        send(lab, ifaces[0][0], [frame(size=1000) for _ in range(30)])
        pfc = [f for _, f in captured(cap) if f[12:14] == b"\x88\x08"]
        assert pfc, "no PFC frame seen"
        first = pfc[0]
        assert first[:6] == bytes.fromhex("0180c2000001") and first[14:16] == b"\x01\x01"
        assert first[16:18] == b"\x00\x01" and int.from_bytes(first[18:20], "big") > 0  # class 0, XOFF quanta
    finally:
        ctl.close()
        stop(proc)


def test_switch_module_runs_from_the_console_script_name():
    r = subprocess.run(SWITCH + ["--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--grpc-server-addr" in r.stdout
    assert os.path.basename(SWITCH[0]).startswith("python")
    assert Path(__file__).parent.joinpath("p4runtime", "rt.p4").exists()


def test_priority_queues_drop_priorities_beyond_them_as_bmv2():
    """--priority-queues N: a packet whose standard_metadata.priority >= N is dropped at enqueue (BMv2)."""
    from emulator.switchd.options import parse_args
    from emulator.tm.datapath import Datapath

    assert parse_args(["--no-p4"]).priority_queues is None
    assert parse_args(["--no-p4", "--", "--priority-queues", "2"]).priority_queues == 2

    class Job:
        def __init__(self, prio):
            self.egress_port, self.priority, self.length = 2, prio, 100

    class Target:
        def ingress(self, port, data, now):
            from emulator.target.switch import IngressResult

            return IngressResult(jobs=[Job(data[0])])

    woken = []
    dp = Datapath(Target(), wake=lambda port, now: woken.append(port), defer=lambda *a: None, now=lambda: 0)
    dp.add_port(1, 10**9)
    dp.add_port(2, 10**9)
    dp.priority_queues = 2
    for prio in (0, 1, 2, 7):
        dp.receive(1, bytes([prio]) + bytes(63), 0)
    assert woken == [2, 2] and dp.priority_drops == 2


def test_tutorials_p4runtime_switch_command_line_is_accepted():
    """The exact arguments p4lang/tutorials' P4RuntimeSwitch joins into one shell string (thrift port and nanolog
    included, the gRPC address after `--`): accepted, the Thrift/nanolog options noted as ignored."""
    from emulator.switchd.options import parse_args

    line = ("-i 1@s1-eth1 -i 2@s1-eth2 --pcap /tmp/pcaps --nanolog ipc:///tmp/bm-0-log.ipc --device-id 0 "
            "build/basic.json --log-console --thrift-port 9090 -- --grpc-server-addr 0.0.0.0:50051")
    o = parse_args(line.split())
    assert o.grpc_addr == "0.0.0.0:50051" and o.config == "build/basic.json" and o.device_id == 0
    assert o.interfaces == {1: "s1-eth1", 2: "s1-eth2"} and o.pcap_dir == "/tmp/pcaps" and o.log_console
    assert any("--thrift-port" in n for n in o.notes) and any("--nanolog" in n for n in o.notes)
    assert parse_args(["--no-p4"]).grpc_addr == "127.0.0.1:9559"  # simple_switch_grpc's default


def test_p4c_ptf_runner_nn_command_line_with_a_bare_ampersand_is_accepted():
    """p4c's run-bmv2-ptf-test.py (nn mode) runs its switch line without a shell, so `&` reaches the switch as a
    word after `-- --grpc-server-addr A`; simple_switch_grpc's target parser ignores words that are not options
    (the switch refused it and the PTF run waited on a switch that had exited). An unknown option stays an error."""
    from emulator.errors import RocelabError
    from emulator.switchd.options import parse_args

    line = ("--thrift-port 22000 --device-id 0 --log-file /tmp/x/switchlog --log-flush "
            "--packet-in ipc:///tmp/x/bmv2_packets_1.ipc --no-p4 -- --grpc-server-addr 0.0.0.0:28000 &")
    o = parse_args(line.split())
    assert o.grpc_addr == "0.0.0.0:28000" and o.no_p4 and o.packet_in == "ipc:///tmp/x/bmv2_packets_1.ipc"
    assert any("&" in n and "ignored" in n for n in o.notes)
    o = parse_args(["--no-p4", "--", "--grpc-server-addr", "0.0.0.0:28000", "&", "--cpu-port", "510"])
    assert o.grpc_addr == "0.0.0.0:28000" and o.cpu_port == 510
    with pytest.raises(RocelabError, match="--no-such-option"):
        parse_args(["--no-p4", "--", "--no-such-option", "1"])


def test_p4c_ptf_runner_command_lines_are_accepted():
    """p4c's run-bmv2-ptf-test.py: in veth mode it names port 0 twice the same way (`-i 0@0` then `-i 0@0 ...
    -i 7@7`), which simple_switch_grpc takes as one mapping; in nn mode no interface at all."""
    from emulator.switchd.options import parse_args

    veth = ("--thrift-port 22000 --log-file /tmp/t/switchlog --log-flush -i 0@0 -i 0@0 -i 1@1 -i 2@2 --no-p4 "
            "-- --grpc-server-addr 0.0.0.0:28000")
    o = parse_args(veth.split())
    assert o.interfaces == {0: "0", 1: "1", 2: "2"} and o.grpc_addr == "0.0.0.0:28000" and o.no_p4
    nn = ("--thrift-port 22000 --device-id 0 --log-file /tmp/t/switchlog --log-flush --packet-in "
          "ipc:///tmp/t/bmv2_packets_1.ipc --no-p4 -- --grpc-server-addr 0.0.0.0:28000")
    o = parse_args(nn.split())
    assert o.interfaces == {} and o.packet_in == "ipc:///tmp/t/bmv2_packets_1.ipc"


@needs_netns
@pytest.mark.parametrize("extra, capped", [([], True), (["--queue-depth", "0"], False)],
                         ids=["default-64", "bytes-only"])
def test_egress_queues_hold_64_packets_by_default_as_bmv2(lab, tmp_path, extra, capped):
    """simple_switch's egress queues hold 64 packets: a burst of 100 onto a slow port loses what does not fit
    (64 queued, plus the frame on the wire and the few the port sends while the burst is still arriving: a
    300-byte frame takes 2.6 ms at 1 Mb/s); --queue-depth 0 queues by bytes only."""
    proc, ctl, p4info, ifaces, _ = start_switch(lab, tmp_path, 2, ["--port-rate", "2=1Mbps", *extra])
    try:
        ctl.write((p4runtime_pb2.Update.INSERT, l2_entry(p4info, MAC2, 2)))
        cap = capture(lab, ifaces[1][0], 8, count=100)
        t0 = time.monotonic()
        send(lab, ifaces[0][0], [frame(size=300) for _ in range(100)])
        burst_s = time.monotonic() - t0  # an upper bound on how long the burst took to arrive
        got = len(captured(cap))
        if capped:  # the queue, the frame on the wire, and what the port sent while the burst arrived
            assert 64 <= got <= 65 + math.ceil(burst_s / ((300 + 24) * 8 / 1e6)), (got, burst_s)
        else:
            assert got == 100
    finally:
        ctl.close()
        stop(proc)


def test_bench_switch_in_process_costs_go_through_the_whole_datapath():
    """`rocelab bench switch` also times fabric.p4 in-process: V1Switch.process() and the switch's datapath
    (ingress, TM, egress, the send call); the datapath round must forward the bench's frame (it raises if not)."""
    from emulator.bench.switch import in_process_costs

    costs = in_process_costs(n=128)
    assert set(costs) == {"process_us", "datapath_us"} and all(v > 0 for v in costs.values())


def test_bench_switch_writes_go_in_through_the_stubs_and_as_bytes(tmp_path):
    """The bench's write rounds (stubs, then bytes serialized beforehand) each insert every entry: each round's
    DELETEs succeed (a missing entry would fail them with NOT_FOUND) and leave the table empty."""
    from emulator.bench.switch import _program, _writes, write_table
    from emulator.p4runtime.device import Device
    from emulator.p4runtime.server import serve

    handle = serve(Device(0), "127.0.0.1:0")
    try:
        (channel, done, _stream), (stub, p4info) = _program(handle.address, str(tmp_path))
        figures = _writes(stub, channel, p4info, os.getpid(), repeat=2, batches=5)
        q = p4runtime_pb2.ReadRequest(device_id=0)
        q.entities.add().table_entry.table_id = write_table(p4info).preamble.id
        assert sum(len(r.entities) for r in stub.Read(q)) == 0
        assert {"writes_per_s", "writes_per_s_stubs", "writes_per_s_sequential", "write_cpu_us",
                "client_serialize_us"} <= set(figures)
        assert all(figures[k] > 0 for k in ("writes_per_s", "writes_per_s_stubs", "writes_per_s_sequential",
                                            "write_cpu_us"))
        done.set()
        channel.close()
    finally:
        handle.stop()


@pytest.mark.parametrize("args, why", [
    (["--pcap", "pcaps", "--log-console"], "--log-console/--log-file and --pcap"),  # p4lang/tutorials' own
    (["--pcap", "pcaps"], "--pcap"),
    (["--log-console"], "--log-console/--log-file"),
])
def test_a_log_or_pcaps_turn_the_fast_path_off_and_the_switch_says_so(args, why, capsys):
    """Every frame must be seen then, so no flow is cached; a user who asked for nothing about the fast path (as
    p4lang/tutorials' run_exercise.py, which always passes both) reads why in the switch's output."""
    from emulator.switchd.main import _fast_path, _Log
    from emulator.switchd.options import parse_args

    opts = parse_args(["-i", "1@veth0", *args, "--device-id", "0", "prog.json"])
    assert opts.fast_path
    assert _fast_path(opts, _Log(opts), {}) is None
    assert f"note: no fast path: {why} must see every frame" in capsys.readouterr().err
    quiet = parse_args(["-i", "1@veth0", *args, "prog.json", "--", "--no-fast-path"])
    assert _fast_path(quiet, _Log(quiet), {}) is None
    assert capsys.readouterr().err == ""  # asked for: nothing to say
