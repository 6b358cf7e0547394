"""The host agent: one process per Mininet host running the simulator's NIC (traffic.nic.Nic: RC QPs, go-back-N,
DCQCN reaction and notification points, PFC response) on an AF_PACKET socket, driven by the wall clock.

    python -m emulator.mininet.agent SPEC.json        # an AgentSpec (agentspec.py); run inside the host's namespace

The NIC is clock-free; here `now` is CLOCK_MONOTONIC minus the run's time zero (the same in every process of the
machine), so every agent and switch of a run shares one time axis. The agent paces its own egress at the link rate
(a frame may leave only when the previous one would have finished serializing), receives every frame of its
interface (PFC included: the NIC pauses its own priorities) and holds UDP port 4791 open so that the kernel does
not answer RoCE packets addressed to the host with ICMP port-unreachable.

With `t0_ns` 0 in its spec the agent reads the time zero from a `{"t0_ns": N}` line on stdin after it said ready.
It reports on stdout, one JSON object per line: `{"event": "ready"}` once its socket is open, `{"event":
"flow_done", ...}` when a flow it sends completes or fails, and `{"event": "report", ...}` (flows as
traffic.flows.OpenFlow.report rows, NIC counters, scheduling lateness) when SIGTERM or SIGINT stops it.
"""
from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import sys
import time
from typing import IO, Any

from emulator.errors import RocelabError
from emulator.mininet.agentspec import AgentSpec
from emulator.realtime import realtime_priority, settle_heap
from emulator.report.lateness import Lateness
from traffic.frames import ROCE_UDP_PORT
from traffic.nic import WIRE_OVERHEAD

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # sll_pkttype of frames this host sent (an ETH_P_ALL socket sees them too)
PR_SET_PDEATHSIG = 1
PR_SET_TIMERSLACK = 29
MAX_BLOCK_S = 0.05  # wake at least this often to notice a stop request
CATCH_UP_FRAMES = 16  # how far (in frame times) a late, backlogged transmitter may catch up to its schedule
RX_BATCH = 64  # frames taken per wake-up before giving the transmitter a turn


class AgentError(Exception):
    """The agent cannot run (a missing interface, a port held by another process)."""


def open_raw_socket(iface: str) -> socket.socket:
    try:
        # protocol 0, then ETH_P_ALL at bind (as emulator/switchd/ports.py): no frame of another interface before
        # the bind, and no RCU grace period (~20 ms) in bind
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        s.bind((iface, ETH_P_ALL))
    except OSError as exc:
        raise AgentError(f"cannot open a raw socket on interface {iface!r}: {exc.strerror}") from None
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setblocking(False)
    return s


def hold_roce_port() -> socket.socket:
    """Bind UDP 4791 so the kernel delivers RoCE datagrams to a socket (which nobody reads: once its small buffer
    is full they are dropped silently) instead of answering them with ICMP port-unreachable."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.bind(("0.0.0.0", ROCE_UDP_PORT))
    except OSError as exc:
        raise AgentError(f"cannot hold UDP port {ROCE_UDP_PORT} open in this host: {exc.strerror}") from None
    return s


def _prctl(option: int, arg: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, arg, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: no timer slack tuning, no parent-death signal


class Agent:
    """The wall-clock loop around one Nic (see module docstring)."""

    def __init__(self, spec: AgentSpec, out: IO[str] = sys.stdout):
        self.spec = spec
        self.out = out
        self.nic, self.flows = spec.build()
        self.starts = sorted(self.flows, key=lambda f: (f.spec.start_ns, f.spec.name))
        self.lateness = Lateness()
        self.stopping = False
        self.frames_tx = self.frames_rx = 0
        self.pcap = None
        self.sock: socket.socket | None = None
        self.hold: socket.socket | None = None
        self._ns_per_byte = 8e9 / spec.rate_bps
        by_qpn = {f.qp.qpn: f for f in self.flows}
        previous = self.nic.on_complete

        def on_complete(msg: Any) -> None:
            if previous is not None:
                previous(msg)
            f = by_qpn.get(msg.qpn)
            if f is not None and f.done:
                self.emit({"event": "flow_done", "host": spec.host, **f.report(self.now())})
        self.nic.on_complete = on_complete

    def now(self) -> int:
        return time.monotonic_ns() - self.spec.t0_ns

    def emit(self, obj: dict) -> None:
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()

    def open(self) -> None:
        self.sock = open_raw_socket(self.spec.iface)
        self.hold = hold_roce_port()
        if self.spec.pcap:
            from emulator.report.pcap import PcapWriter

            self.pcap = PcapWriter(self.spec.pcap)
        _prctl(PR_SET_TIMERSLACK, 1)  # wake when asked, not up to 50 us later

    def close(self) -> None:
        for s in (self.sock, self.hold):
            if s is not None:
                s.close()
        if self.pcap is not None:
            self.pcap.close()

    def run(self) -> dict:
        """Serve until stop(); returns (and emits) the report."""
        self.open()
        try:
            self._warm_frames()
            settle_heap()  # before ready: time zero must find every agent idle, not collecting
            realtime_priority()  # the Mininet engine runs as root; elsewhere the normal scheduler stays
            self.emit({"event": "ready", "host": self.spec.host, "pid": os.getpid()})
            if not self.spec.t0_ns and not self._wait_go():
                return self.report()
            self._loop()
            return self.report()
        finally:
            self.close()

    def _warm_frames(self) -> None:
        """Make the frame shapes this host's flows will need before time zero. scapy takes 1-4 ms per shape, so
        the first frames of each kind (and a flow's last one) stalled the loop: with every host starting its flows
        at once on a small machine, timers in the first 15 ms of a run were up to 7 ms late (and a flow's last frame
        stalled its host 2-3 ms). A scratch NIC built from the same spec posts the same messages."""
        scratch, flows = self.spec.build()
        for f in flows:
            f.start(0)
        self.nic.warm_frames(scratch.frame_shapes())

    def _wait_go(self) -> bool:
        """Take the run's time zero from a `{"t0_ns": N}` line on stdin (the runner sends it once every agent and
        switch is ready); False when stdin closes first."""
        line = sys.stdin.readline()
        if not line:
            return False
        self.spec.t0_ns = int(json.loads(line)["t0_ns"])
        return True

    def stop(self, *_: object) -> None:
        self.stopping = True

    def _loop(self) -> None:
        nic, sock, starts = self.nic, self.sock, self.starts
        pcap = self.pcap
        lat = self.lateness
        tx_free = 0  # when the transmitter is free (the previous frame's serialization ends)
        backlogged = False  # the NIC had its next frame ready by then
        due: int | None = None  # what the last sleep was waiting for
        while not self.stopping:
            now = self.now()
            if due is not None and now >= due:
                lat.add(now - due)
            due = None
            while starts and starts[0].spec.start_ns <= now:
                starts.pop(0).start(now)
            for _ in range(RX_BATCH):
                try:
                    frame, addr = sock.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                self.frames_rx += 1
                t = self.now()
                if pcap is not None:
                    pcap.write(max(t, 0), frame)  # a frame may arrive just before time zero
                nic.receive(frame, t)
            now = self.now()
            if tx_free <= now:
                frame = nic.poll(now)
                if frame is not None:
                    try:
                        sock.send(frame)
                    except BlockingIOError:
                        pass  # the interface queue is full: the frame is lost as on a congested wire
                    self.frames_tx += 1
                    if pcap is not None:
                        pcap.write(max(now, 0), frame)
                    ser = (len(frame) + WIRE_OVERHEAD) * self._ns_per_byte
                    # a NIC that stayed ready to send starts at its nominal slot even when this loop woke late
                    # (up to CATCH_UP_FRAMES frame times), so lateness does not lower its long-run rate; a NIC
                    # that went idle starts now
                    caught_up = backlogged and now - tx_free < CATCH_UP_FRAMES * ser
                    tx_free = int((tx_free if caught_up else now) + ser)
                    w = nic.next_wakeup(now)
                    backlogged = w is not None and w <= tx_free
                    continue
            w = nic.next_wakeup(now)
            if w is not None and w < tx_free:
                w = tx_free
            if starts and (w is None or starts[0].spec.start_ns < w):
                w = starts[0].spec.start_ns
            timeout = MAX_BLOCK_S if w is None else min(MAX_BLOCK_S, max(0.0, (w - now) / 1e9))
            if w is not None and w - now <= MAX_BLOCK_S * 1e9:
                due = w
            if timeout > 0:
                r, _, _ = select.select([sock], [], [], timeout)
                if r:
                    due = None  # woken by a frame, not by the timer: no lateness to count

    def report(self) -> dict:
        # stopped before its time zero came (or before it was reached): no run time has passed, not the
        # monotonic clock's age (a run stopped during set-up reported 2,558 s of real time)
        now = max(0, self.now()) if self.spec.t0_ns else 0
        rep = {"event": "report", "host": self.spec.host, "now_ns": now,
               "flows": [f.report(now) for f in self.flows], "nic": self.nic.summary(now),
               "frames_tx": self.frames_tx, "frames_rx": self.frames_rx, "lateness": self.lateness.summary()}
        self.emit(rep)
        return rep


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m emulator.mininet.agent SPEC.json", file=sys.stderr)
        return 2
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the runner died: do not outlive it
    try:
        with open(argv[0]) as f:
            spec = AgentSpec.from_json(f.read())
        agent = Agent(spec)
    except (OSError, ValueError, TypeError, RocelabError) as exc:
        print(f"agent: bad spec {argv[0]}: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, agent.stop)
    signal.signal(signal.SIGINT, agent.stop)
    try:
        agent.run()
    except AgentError as exc:
        print(f"agent {spec.host}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
