"""rocelab-switch's start-up as a runner written for simple_switch_grpc sees it (part of `rocelab bench switch`).

Such runners start the switch and connect a moment later: p4c's PTF runner (backends/bmv2/run-bmv2-ptf-test.py)
does not wait at all, p4-guide's runptf.sh scripts sleep 2 s, p4lang/tutorials' P4RuntimeSwitch checks for the
listening port at once and then every 0.5 s. A client that connects before the port is open gets UNAVAILABLE.

`listen_ms`: from launching the process to its P4Runtime port accepting a connection, without a program;
`listen_with_program_ms` the same with fabric.p4's device config on the command line (the port opens before the
program is loaded); `ready_with_program_ms`: until that program forwards (the line the switch prints when its
loop starts). Medians of a few launches.
"""
from __future__ import annotations

import selectors
import socket
import subprocess
import sys
import time
from statistics import median

from emulator.errors import RocelabError

DESCRIPTIONS = {
    "listen_ms": "launch to P4Runtime port open, --no-p4 (median of the launches)",
    "listen_ms_range": "lowest and highest listen_ms",
    "listen_with_program_ms": "launch to port open with fabric.p4 given on the command line (median)",
    "ready_with_program_ms": "launch to forwarding with that program: loaded, ports open, loop started (median)",
}
READY = "rocelab-switch: device"  # the first words of the line the switch prints when its loop starts


def free_port() -> int:
    """A loopback port free now, for a switch that must be told its port before it starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(proc: subprocess.Popen, port: int, timeout_s: float, poll_s: float = 0.001) -> None:
    """Until the switch `proc` accepts connections on `port` (RocelabError with its stderr if it exits first)."""
    end = time.monotonic() + timeout_s
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None or time.monotonic() > end:
            raise RocelabError(f"bench switch: rocelab-switch did not start: {proc.stderr.read()}")
        time.sleep(poll_s)


def launch(args: list[str], timeout_s: float = 60.0) -> tuple[float, float]:
    """Start rocelab-switch with `args` (before `--`); seconds until its port accepts and until it is ready."""
    port = free_port()
    argv = [sys.executable, "-m", "emulator.switchd.main", *args, "--", "--grpc-server-addr", f"127.0.0.1:{port}"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        end = t0 + timeout_s
        wait_for_port(proc, port, timeout_s)
        listening = time.perf_counter() - t0
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stderr, selectors.EVENT_READ)
            line = ""
            while not line.startswith(READY):
                if not sel.select(max(0.0, end - time.perf_counter())):
                    raise RocelabError("bench switch: rocelab-switch did not start forwarding in time")
                line = proc.stderr.readline()
                if not line:
                    raise RocelabError(f"bench switch: rocelab-switch exited {proc.wait()} while starting")
        return listening, time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def startup_figures(config: str, launches: int = 5) -> dict:
    """The figures of DESCRIPTIONS; `config` is fabric.p4's device config."""
    bare = [launch(["--no-p4"])[0] * 1000 for _ in range(launches)]
    loaded = [launch([config]) for _ in range(launches)]
    return {"listen_ms": round(median(bare), 1), "listen_ms_range": f"{min(bare):.0f}-{max(bare):.0f}",
            "listen_with_program_ms": round(median([t[0] * 1000 for t in loaded]), 1),
            "ready_with_program_ms": round(median([t[1] * 1000 for t in loaded]), 1)}
