"""Network namespaces for tests: hosts joined to the root namespace by veth pairs, torn down whatever happens.

Names carry the test process's pid, so parallel workers and other runs never collide; cleanup deletes exactly
the namespaces and interfaces this object created.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap


def in_netns(ns: str, *cmd: str) -> list[str]:
    """`cmd` run inside namespace `ns`."""
    return ["ip", "netns", "exec", ns, *cmd]


def wait_listening_in(ns: str, port: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    """As runners written for simple_switch_grpc check readiness: the gRPC port LISTENing, seen from inside the
    namespace; fails at once if the switch exits meanwhile."""
    import time

    probe = f"import socket; s = socket.socket(); raise SystemExit(s.connect_ex(('127.0.0.1', {port})))"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"switch exited {proc.returncode}: {proc.stderr.read()}")
        if subprocess.run(in_netns(ns, sys.executable, "-c", probe), capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    raise AssertionError("switch did not listen in time")


def netns_available() -> str | None:
    """None if namespaces can be made here, else why not (for pytest.skip)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and raw sockets)"
    if shutil.which("ip") is None:
        return "needs iproute2's `ip`"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class Lab:
    def __init__(self, tag: str = "t"):
        self.prefix = f"rl{os.getpid() % 100000}{tag}"
        self.namespaces: list[str] = []
        self.links: list[str] = []

    def host(self, name: str) -> tuple[str, str]:
        """A namespace `name` with interface `eth0`, joined to a root-namespace veth; returns (netns, root side)."""
        ns = f"{self.prefix}{name}"
        root_side = f"{self.prefix}{name}s"[:15]
        _ip("netns", "add", ns)
        self.namespaces.append(ns)
        _ip("link", "add", root_side, "type", "veth", "peer", "name", "eth0", "netns", ns)
        self.links.append(root_side)
        for args in (("link", "set", root_side, "up"),):
            _ip(*args)
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        for iface, where in ((root_side, None), ("eth0", ns)):
            cmd = ["sysctl", "-qw", f"net.ipv6.conf.{iface}.disable_ipv6=1"]
            subprocess.run((["ip", "netns", "exec", where] if where else []) + cmd, capture_output=True)
        return ns, root_side

    def run(self, ns: str, code: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(code), *args],
                              capture_output=True, text=True, timeout=timeout)

    def start(self, ns: str, code: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(code), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def close(self) -> None:
        for link in self.links:
            subprocess.run(["ip", "link", "del", link], capture_output=True)
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.links.clear()
        self.namespaces.clear()

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Run inside a namespace: send frames (hex, argv[1] JSON list) on eth0, at most `rate` frames/s (0 = burst).
SEND = """
import json, socket, sys, time
frames = [bytes.fromhex(h) for h in json.loads(sys.argv[1])]
gap = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for f in frames:
    s.send(f)
    if gap:
        time.sleep(gap)
"""

# Run inside a namespace: capture frames on eth0 for argv[1] seconds (or until argv[2] frames), print JSON
# [[t_ns, hex], ...] (monotonic arrival times, from the kernel's timestamps) of the frames whose EtherType is
# not IPv6 (the kernel's own chatter).
CAPTURE = """
import json, select, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(("eth0", 0))
s.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS: the kernel's arrival time, not when we got to read it
print("ready", flush=True)
end = time.monotonic() + float(sys.argv[1])
want = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
out = []
while time.monotonic() < end and len(out) < want:
    r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
    if not r:
        break
    data, anc, _, addr = s.recvmsg(65536, 64)
    if addr[2] == socket.PACKET_OUTGOING or data[12:14] == b"\\x86\\xdd":
        continue
    late = 0  # how long the frame waited for this (busy) process: taken off, so gaps are the wire's
    for level, kind, value in anc:
        if level == socket.SOL_SOCKET and kind == 35 and len(value) >= 16:
            sec, nsec = struct.unpack("qq", value[:16])
            late = max(0, time.time_ns() - (sec * 1_000_000_000 + nsec))
    out.append([time.monotonic_ns() - late, data.hex()])
print(json.dumps(out), flush=True)
"""


# The window of a capture that expects `count` frames: it ends as soon as they came, so a generous window costs
# nothing, and a busy machine (a slow sender or switch) cannot make it end before they came.
WAIT_S = 60.0


def capture(lab: Lab, ns: str, seconds: float, count: int | None = None) -> subprocess.Popen:
    """Capture on `ns`'s eth0 for `seconds` or until `count` frames (WAIT_S when all `count` are expected)."""
    p = lab.start(ns, CAPTURE, str(seconds), *([str(count)] if count else []))
    assert p.stdout.readline().strip() == "ready"
    return p


def captured(p: subprocess.Popen) -> list[tuple[int, bytes]]:
    out, err = p.communicate(timeout=WAIT_S + 60)
    lines = [ln for ln in out.splitlines() if ln.startswith("[")]
    assert lines, f"capture failed: {err}"
    return [(t, bytes.fromhex(h)) for t, h in json.loads(lines[-1])]


def send(lab: Lab, ns: str, frames: list[bytes], gap: float = 0.0) -> None:
    r = lab.run(ns, SEND, json.dumps([f.hex() for f in frames]), str(gap))
    assert r.returncode == 0, r.stderr
