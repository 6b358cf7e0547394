"""`rocelab bench switch`: forwarding rate of rocelab-switch running fabric.p4 between two network namespaces,
against a bare Python AF_PACKET loop doing only recv and send on the same interfaces, and P4Runtime write rate.

Set-up (root): namespaces h1 and h2, each joined to the root namespace by a veth pair; the switch (or the bare
loop) runs in the root namespace on the root-side ends. The forwarder is stopped (SIGSTOP) while a sender in h1
queues the frames in its receive buffer, then continued; a receiver in h2 counts what arrives: packets/s = frames
received / time from the first to the last. So the figure is the forwarder's own capacity, not shared with the
sender's CPU (2 cores), and both forwarders are measured the same way, `--repeat` times each (figures: medians,
with the range). The machine's other load moves packets/s a lot (a forwarder waiting for a core, a receiver that
falls behind), so each forwarder's CPU time per frame (its main thread's user + system time over the measurement,
from /proc) is reported too: the steadier comparison. The in-process costs per frame (`V1Switch.process` and the
switch's whole datapath without sockets, fabric.p4 with the same tables) say where the switch's time goes.
Writes: batches of 100 exact entries into a running switch. The goal's figure (`writes_per_s`) sends requests
encoded before the clock starts, so it measures the switch and not the load generator: under pure-Python
protobuf (the p4runtime-shell environment) the bench's own serializing costs more per write than the switch's
whole work. The same writes through the generated stubs, serialized on the clock, are reported beside it (what a
Python controller sees). Everything created is removed at the end.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

from emulator import options
from emulator.bench import listen
from emulator.errors import RocelabError

JSON_KEYS = ("switch_pps", "bare_loop_pps", "writes_per_s")  # the last line: the goals' figures; the table has the rest
DESCRIPTIONS = {
    "switch_pps": "frames/s forwarded by rocelab-switch (fabric.p4, no rate limit; one RoCE flow, each frame with "
                  "its own PSN and IPv4 id)",
    "fast_path_hits": "frames the switch's C flow cache forwarded, of those offered to it",
    "fast_path_entries": "flow-cache entries the slow path made (a miss: the program run in Python)",
    "slow_path_pps": "the same switch with -- --no-fast-path: every frame through the program in Python",
    "slow_path_cpu_us": "its CPU time per frame (main thread; median)",
    "bare_loop_pps": "frames/s of a Python AF_PACKET recv+send loop on the same veths",
    "ratio": "switch_pps / bare_loop_pps (goal >= 0.7)",
    "writes_per_s": "P4Runtime table writes/s the switch takes: batches of 100 through the Write RPC, up to 3 in "
                    "flight, each request encoded before the clock starts so that the client's protobuf is not "
                    "what is measured (goal >= 10,000)",
    "writes_per_s_stubs": "the same writes through the generated stubs, each request serialized by this process's "
                          "protobuf while the switch applies the last: what a Python controller sees",
    "writes_per_s_sequential": "the same through the stubs, each request sent only when the last was answered",
    "write_cpu_us": "rocelab-switch's CPU time per write (all threads, during writes_per_s; median)",
    "client_serialize_us": "this process's protobuf serializing the requests, per write (part of the stubs' figures)",
    "writes_per_s_range": "lowest and highest writes_per_s of the repeats",
    "writes_per_s_stubs_range": "lowest and highest writes_per_s_stubs of the repeats",
    "switch_pps_range": "lowest and highest switch_pps of the repeats",
    "bare_loop_pps_range": "lowest and highest bare_loop_pps of the repeats",
    "switch_cpu_us": "rocelab-switch's CPU time per frame (user + system, main thread; median)",
    "bare_loop_cpu_us": "the bare loop's CPU time per frame (user + system; median)",
    "cpu_ratio": "bare_loop_cpu_us / switch_cpu_us: the ratio without scheduling noise",
    "process_us": "in-process: V1Switch.process() per frame (fabric.p4: parser .. deparser, ideal TM)",
    "datapath_us": "in-process: the switch's datapath per frame (ingress, TM, egress, send call; no sockets)",
    "frames_offered": "frames the sender sent per measurement",
    "repeats": "measurements per forwarder, and write rounds",
    "protobuf": "protobuf version/implementation of this process and the switch's (pure Python is ~10x slower)",
    **listen.DESCRIPTIONS,
}

SENDER = """
import socket, sys, time
frame = bytearray.fromhex(sys.argv[1]); n = int(sys.argv[2]); psn = int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("eth0", 0))
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
send = s.send
from emulator.target.hashing import csum16
for i in range(n):
    # one RoCE message as rocelab's NIC sends it: each frame has its own PSN and IPv4 id (and so checksum)
    frame[psn:psn + 3] = (i & 0xFFFFFF).to_bytes(3, "big")
    frame[18:20] = (i & 0xFFFF).to_bytes(2, "big")
    frame[24:26] = csum16(bytes(frame[14:24] + frame[26:34])).to_bytes(2, "big")
    try:
        send(frame)
    except OSError:
        time.sleep(0.0001)
"""

RECEIVER = """
import select, socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800)); s.bind(("eth0", 0))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
print("ready", flush=True)
first = last = None; n = 0; idle = float(sys.argv[1])
while True:
    r, _, _ = select.select([s], [], [], idle if n else 30)
    if not r:
        break
    data, addr = s.recvfrom(65536)
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    now = time.monotonic(); first = first or now; last = now; n += 1
print(n, (last - first) if n > 1 else 0.0, flush=True)
"""

BARE_LOOP = """
import select, signal, socket, sys
a = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); a.bind((sys.argv[1], 0))
b = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); b.bind((sys.argv[2], 0))
a.setsockopt(socket.SOL_SOCKET, 33, 32 << 20); b.setsockopt(socket.SOL_SOCKET, 32, 32 << 20)
a.setsockopt(263, 23, 1); a.setblocking(False)
signal.signal(signal.SIGTERM, lambda *x: sys.exit(0))
print("ready", flush=True)
recv, send = a.recv, b.send
while True:
    select.select([a], [], [])
    for _ in range(64):
        try:
            send(recv(65536))
        except BlockingIOError:
            break
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--frames", type=int, default=30_000, help="frames offered per measurement (default 30,000)")
    p.add_argument("--repeat", type=int, default=5, help="measurements per forwarder, and write rounds (default 5)")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


class _Lab:
    def __init__(self):
        tag = f"rlb{os.getpid() % 100000}"
        self.ns = [f"{tag}h1", f"{tag}h2"]
        self.root = [f"{tag}s1", f"{tag}s2"]
        self.made: list[tuple[str, str]] = []
        self.procs: list[subprocess.Popen] = []  # senders and receivers in the namespaces, ended by __exit__

    def __enter__(self):
        try:
            for ns, root in zip(self.ns, self.root):
                _ip("netns", "add", ns)
                self.made.append(("netns", ns))
                _ip("link", "add", root, "type", "veth", "peer", "name", "eth0", "netns", ns)
                self.made.append(("link", root))
                _ip("link", "set", root, "up")
                _ip("-n", ns, "link", "set", "eth0", "up")
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            self.__exit__()
            raise RocelabError(f"bench switch: cannot create namespaces and veths ({exc}); it needs root and "
                               "iproute2") from None
        return self

    def __exit__(self, *exc) -> None:
        # first the processes in the namespaces: a sender stopped mid-measurement by SIGTERM or Ctrl-C kept the
        # deleted namespace alive and sent on for minutes, orphaned
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self.procs.clear()
        for kind, name in reversed(self.made):
            subprocess.run(["ip", kind, "del", name], capture_output=True)
        self.made.clear()

    def py(self, ns: str, code: str, *args: str) -> subprocess.Popen:
        proc = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(code), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc


IN_FLIGHT = 3  # write requests a pipelining controller keeps unanswered
PSN_OFFSET = 14 + 20 + 8 + 9  # Ethernet, IPv4, UDP, then the BTH's PSN


def _frame() -> bytes:
    """A RoCEv2 RC WRITE frame of one flow; the sender gives each copy its own PSN and IPv4 id."""
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    return bytes(Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:09")
                 / IP(src="10.0.1.1", dst="10.0.2.1", ttl=64, tos=26 << 2 | 2)
                 / UDP(sport=49152, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=0x12) / bytes(64))


def _cpu_s(pid: int) -> float:
    """CPU seconds of the process's main thread (the forwarder; not the switch's gRPC threads), from its schedstat
    in nanoseconds. Its stat's utime + stime count clock ticks (10 ms): a measurement of 30,000 frames at 2 us is
    6 of them, so per-frame CPU and cpu_ratio moved by a sixth with the tick boundaries, and --frames 5,000 read
    2 us for both forwarders and a cpu_ratio of exactly 1. Read while the thread is stopped or asleep, as here, the
    figure is exact."""
    try:
        return int(open(f"/proc/{pid}/task/{pid}/schedstat").read().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):  # a kernel without schedstat: the ticks
        fields = open(f"/proc/{pid}/task/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measure(lab: _Lab, frames: int, forwarder: subprocess.Popen) -> tuple[float, float]:
    """(frames/s received in h2, the forwarder's CPU microseconds per frame)."""
    import signal

    rx = lab.py(lab.ns[1], RECEIVER, "1.0")
    assert rx.stdout.readline().strip() == "ready"
    forwarder.send_signal(signal.SIGSTOP)
    try:
        tx = lab.py(lab.ns[0], SENDER, _frame().hex(), str(frames), str(PSN_OFFSET))
        tx.wait(timeout=300)
    finally:
        cpu0 = _cpu_s(forwarder.pid)
        forwarder.send_signal(signal.SIGCONT)
    out, err = rx.communicate(timeout=300)
    cpu = _cpu_s(forwarder.pid) - cpu0
    n, span = out.split()
    n, span = int(n), float(span)
    return (n / span if span > 0 else 0.0), (cpu * 1e6 / n if n else 0.0)


def _program(addr: str, workdir: str) -> tuple[object, object]:
    """Compile fabric.p4, push it, and route 10.0.2.0/24 to port 2 (FabricControl on a local copy, replayed)."""
    import grpc
    from google.protobuf import text_format

    from emulator.control.fabric import FabricControl
    from emulator.p4runtime.replay import entities_of, local_pipeline, write_requests
    from emulator.proto import p4info_pb2, p4runtime_pb2, p4runtime_pb2_grpc

    info_path, cfg_path = compile_fabric(workdir)
    p4info = text_format.Parse(open(info_path).read(), p4info_pb2.P4Info())
    config = open(cfg_path, "rb").read()
    channel = grpc.insecure_channel(addr)
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    arb = p4runtime_pb2.StreamMessageRequest()
    arb.arbitration.device_id = 0
    arb.arbitration.election_id.low = 1
    import threading

    done = threading.Event()

    def requests():
        yield arb
        done.wait()  # keep the stream (and so the arbitration) open until the bench ends

    stream = stub.StreamChannel(requests())
    next(stream)
    req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=0, action=3)
    req.election_id.low = 1
    req.config.p4info.CopyFrom(p4info)
    req.config.p4_device_config = config
    stub.SetForwardingPipelineConfig(req)
    local = local_pipeline(p4info, config)
    fab = FabricControl(local.switch)
    fab.add_nexthop(1, port=2, dmac=0x020000000002, smac=0x020000000001)
    fab.add_route("10.0.2.0", 24, 1)
    for w in write_requests(entities_of(local), 0, (0, 1)):
        stub.Write(w)
    return (channel, done, stream), (stub, p4info)  # the stream must stay referenced: dropping it cancels it


def compile_fabric(workdir: str) -> tuple[str, str]:
    """fabric.p4's P4Info and device config in `workdir`. Quietly: the compile command's line ("fabric.p4: 9
    tables, 17 actions -> /tmp/rocelab-bench-.../fabric.p4info.txtpb, ...") came out above the bench's table, once
    per switch started."""
    import contextlib
    import io

    from emulator.cli import main as cli

    fabric = os.path.join(os.path.dirname(__file__), "..", "..", "p4src", "fabric.p4")
    info_path, cfg_path = os.path.join(workdir, "fabric.p4info.txtpb"), os.path.join(workdir, "fabric.json")
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli(["compile", os.path.normpath(fabric), "--p4info", info_path, "-o", cfg_path])
    if code != 0:
        raise RocelabError("bench switch: fabric.p4 does not compile")
    return info_path, cfg_path


def write_table(p4info):
    """The table the bench writes: direct, exact keys only, room for 4,000 entries."""
    return next(t for t in p4info.tables if all(m.match_type == 2 for m in t.match_fields) and t.size >= 4000
                and not t.implementation_id and t.match_fields)


def _write_batches(p4info, batches: int) -> tuple[list, list]:
    """`batches` WriteRequests of 100 INSERTs of exact entries, and the DELETEs of the same entries."""
    from emulator.proto import p4runtime_pb2

    table = write_table(p4info)
    action = next(r.id for r in table.action_refs)
    params = next(a.params for a in p4info.actions if a.preamble.id == action)
    inserts, deletes = [], []
    for b in range(batches):
        ins, dels = (p4runtime_pb2.WriteRequest(device_id=0) for _ in range(2))
        for req, kind in ((ins, p4runtime_pb2.Update.INSERT), (dels, p4runtime_pb2.Update.DELETE)):
            req.election_id.low = 1
            for i in range(100):
                te = req.updates.add(type=kind).entity.table_entry
                te.table_id = table.preamble.id
                for m in table.match_fields:
                    te.match.add(field_id=m.id).exact.value = (b * 100 + i + 1).to_bytes((m.bitwidth + 7) // 8, "big")
                if kind == p4runtime_pb2.Update.INSERT:
                    te.action.action.action_id = action
                    for p in params:
                        te.action.action.params.add(param_id=p.id, value=b"\x01")
        inserts.append(ins)
        deletes.append(dels)
    return inserts, deletes


def _process_cpu_ns(pid: int) -> int:
    """CPU nanoseconds the process's threads (the gRPC workers too) have run, from each one's schedstat."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
            continue
    return total


def _pipelined(call, requests: list) -> float:
    """Writes/s of `requests` (batches of 100) sent through the RPC `call`, up to IN_FLIGHT unanswered."""
    t0 = time.perf_counter()
    in_flight: collections.deque = collections.deque()
    for r in requests:  # the next request goes out while the switch still applies the ones before
        in_flight.append(call.future(r))
        if len(in_flight) > IN_FLIGHT:
            in_flight.popleft().result()
    for f in in_flight:
        f.result()
    return len(requests) * 100 / (time.perf_counter() - t0)


def _writes(stub, channel, p4info, switch_pid: int, repeat: int = 3, batches: int = 40) -> dict:
    """`repeat` rounds of: INSERT batches of 100 exact entries through the generated stubs, one at a time, then
    pipelined (each request serialized by this process's protobuf on the clock, as a Python controller's stubs
    do); then the same INSERTs encoded beforehand and sent through the Write RPC pipelined, with the switch's CPU
    time per write. Each figure is followed by the DELETEs that empty the table again. The last is the switch's
    rate: under pure-Python protobuf this client's own serializing costs as much as the switch's whole work per
    write, so the stubs' figures measure the client as much as the switch. Every round builds its messages
    afresh: pure-Python protobuf caches a message's sizes once serialized, which would flatter a second
    serialization. Medians, and the ranges."""
    n = batches * 100
    raw = channel.unary_unary("/p4.v1.P4Runtime/Write")  # the stub's RPC without its serializers: bytes in and out
    stubs, sequential, own, cpu, ser = [], [], [], [], []
    for _ in range(repeat):
        inserts, deletes = _write_batches(p4info, batches)
        del_blobs = [r.SerializeToString() for r in deletes]
        t0 = time.perf_counter()
        for r in inserts:
            stub.Write(r)
        sequential.append(n / (time.perf_counter() - t0))
        _pipelined(raw, del_blobs)
        stubs.append(_pipelined(stub.Write, _write_batches(p4info, batches)[0]))
        _pipelined(raw, del_blobs)
        inserts = _write_batches(p4info, batches)[0]
        t0 = time.perf_counter()
        ins_blobs = [r.SerializeToString() for r in inserts]
        ser.append((time.perf_counter() - t0) * 1e6 / n)
        cpu0 = _process_cpu_ns(switch_pid)
        own.append(_pipelined(raw, ins_blobs))
        cpu.append((_process_cpu_ns(switch_pid) - cpu0) / 1e3 / n)
        _pipelined(raw, del_blobs)
    return {"writes_per_s": round(_median(own)), "writes_per_s_stubs": round(_median(stubs)),
            "writes_per_s_sequential": round(_median(sequential)),
            "write_cpu_us": round(_median(cpu), 1), "client_serialize_us": round(_median(ser), 1),
            "writes_per_s_range": _range(own), "writes_per_s_stubs_range": _range(stubs)}


def run(args: argparse.Namespace) -> dict:
    from emulator.signals import stop_on_signals

    # --frames 0: each measurement's receiver waited 30 s for a first frame, minutes of nothing, then zeros;
    # --repeat 0 ran once and said "repeats": 1
    frames = options.count("--frames", args.frames)
    repeat = options.count("--repeat", int(getattr(args, "repeat", 5)))
    if os.geteuid() != 0:
        raise RocelabError("bench switch needs root (network namespaces and raw sockets)")
    costs = in_process_costs()
    # SIGTERM and SIGHUP unwind like Ctrl-C, so that _Lab removes its namespaces and veths (the default action killed
    # the process and left them: they are not in rocelab clean's registry)
    with stop_on_signals(say=False), _Lab() as lab, tempfile.TemporaryDirectory(prefix="rocelab-bench-") as work:
        bare = subprocess.Popen([sys.executable, "-c", BARE_LOOP, lab.root[0], lab.root[1]],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            bare.stdout.readline()
            bare_runs = [_measure(lab, frames, bare) for _ in range(repeat)]
        finally:
            bare.terminate()
            bare.wait(timeout=10)
        slow_runs, _, _ = _switch_runs(lab, work, frames, repeat, ("--no-fast-path",))
        switch_runs, writes, fast = _switch_runs(lab, work, frames, repeat, (), writes=True)
        startup = listen.startup_figures(os.path.join(work, "fabric.json"))  # compiled by _program
    switch_pps, bare_pps = _median([r[0] for r in switch_runs]), _median([r[0] for r in bare_runs])
    switch_cpu, bare_cpu = _median([r[1] for r in switch_runs]), _median([r[1] for r in bare_runs])
    slow_pps, slow_cpu = _median([r[0] for r in slow_runs]), _median([r[1] for r in slow_runs])
    offered = frames * repeat
    return {"switch_pps": round(switch_pps), "bare_loop_pps": round(bare_pps),
            "ratio": round(switch_pps / bare_pps, 3) if bare_pps else 0.0, **writes,
            "fast_path_hits": f"{fast.get('fast_path_hits', 0):,} of {offered:,}",
            "fast_path_entries": fast.get("fast_path_installed", 0),
            "slow_path_pps": round(slow_pps), "slow_path_cpu_us": round(slow_cpu, 2),
            "switch_pps_range": _range(r[0] for r in switch_runs), "bare_loop_pps_range": _range(r[0] for r in bare_runs),
            "switch_cpu_us": round(switch_cpu, 2), "bare_loop_cpu_us": round(bare_cpu, 2),
            "cpu_ratio": round(bare_cpu / switch_cpu, 3) if switch_cpu else 0.0,
            **costs, **startup, "frames_offered": frames, "repeats": repeat, "protobuf": _protobuf()}


def _switch_runs(lab: _Lab, work: str, frames: int, repeat: int, target_args: tuple[str, ...],
                 writes: bool = False) -> tuple[list, dict, dict]:
    """rocelab-switch with fabric.p4 (and `target_args`): its forwarding runs, the write figures (with `writes`;
    else {}) and the fast path's figures from its stats file."""
    port = listen.free_port()
    addr = f"127.0.0.1:{port}"
    stats = os.path.join(work, "switch-stats.json")
    sw = subprocess.Popen([sys.executable, "-m", "emulator.switchd.main", "-i", f"1@{lab.root[0]}",
                           "-i", f"2@{lab.root[1]}", "--no-p4", "--", "--grpc-server-addr", addr,
                           "--stats-file", stats, *target_args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        listen.wait_for_port(sw, port, 30, poll_s=0.05)
        (channel, done, _stream), (stub, p4info) = _program(addr, work)
        runs = [_measure(lab, frames, sw) for _ in range(repeat)]
        wrote = _writes(stub, channel, p4info, sw.pid, repeat) if writes else {}
        done.set()
        channel.close()
    finally:
        sw.terminate()
        sw.wait(timeout=10)
    try:
        with open(stats) as f:
            fast = json.load(f).get("fast_path") or {}
    except (OSError, ValueError):
        fast = {}
    return runs, wrote, fast


def _median(values: list[float]) -> float:
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def _range(values) -> str:
    v = [round(x) for x in values]
    return f"{min(v):,}-{max(v):,}"


def in_process_costs(n: int = 10_000) -> dict[str, float]:
    """Microseconds per frame, in this process (no sockets, no other process): V1Switch.process() of fabric.p4
    with the bench's route, and rocelab-switch's datapath (RealTimeSwitch.receive_batch in batches of 64, as a
    wake-up reads them: ingress, traffic manager, egress and the send call, to a port that discards). The
    fastest of 5 rounds: the least disturbed by other processes."""
    import threading

    from emulator.control.fabric import FabricControl
    from emulator.switchd.loop import RealTimeSwitch
    from emulator.switchd.main import _tm_config
    from emulator.switchd.options import parse_args

    fab = FabricControl.load(os.path.join(os.path.dirname(__file__), "..", "..", "p4src", "fabric.p4"))
    fab.add_nexthop(1, port=2, dmac=0x020000000002, smac=0x020000000001)
    fab.add_route("10.0.2.0", 24, 1)
    sw, frame = fab.switch, _frame()

    class _Device:  # what RealTimeSwitch needs of emulator.p4runtime.device.Device
        lock = threading.RLock()
        switch = sw
        on_pipeline = inject = clock_us = None

        @staticmethod
        def digests(items: list) -> None:
            items.clear()

    sent: list[int] = []
    dp = RealTimeSwitch(_Device(), _tm_config(parse_args(["--no-p4"])))
    dp.add_port(1, lambda port, f: None, "in")
    dp.add_port(2, lambda port, f: sent.append(len(f)), "out")
    batch = [(1, frame)] * 64

    def through_datapath(k: int) -> None:
        for _ in range(k // 64):
            dp.receive_batch(batch)

    def through_process(k: int) -> None:
        for _ in range(k):
            sw.process(1, frame)

    out = {}
    for name, fn in (("process_us", through_process), ("datapath_us", through_datapath)):
        fn(1000)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            fn(n)
            best = min(best, (time.perf_counter() - t0) / (n // 64 * 64 if fn is through_datapath else n))
        out[name] = round(best * 1e6, 2)
    dp.close()
    if not sent:
        raise RocelabError("bench switch: the in-process datapath forwarded nothing (fabric.p4 set-up)")
    return out


def _protobuf() -> str:
    import google.protobuf
    from google.protobuf.internal import api_implementation

    return f"{google.protobuf.__version__}/{api_implementation.Type()}"


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run(argparse.Namespace(frames=60_000, repeat=3))))
