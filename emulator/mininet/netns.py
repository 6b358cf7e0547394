"""Plain network namespaces and veth pairs (no Mininet): two agents back to back, recorded in a RunState.

    with RunState.create() as st:
        a, b = Namespace.make(st, "rl1234a"), Namespace.make(st, "rl1234b")
        veth(st, (a, "rl1234a0"), (b, "rl1234b0"))
        proc = a.popen(st, ["ping", "-c1", ...])

Names are the caller's (tests put their pid in them); every one is recorded before it is created.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass

from emulator.mininet.state import RunState


class NetnsError(Exception):
    pass


def _run(argv: list[str]) -> None:
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise NetnsError(f"{' '.join(argv)}: {p.stderr.strip() or f'exit {p.returncode}'}")


@dataclass(frozen=True)
class Namespace:
    name: str

    @classmethod
    def make(cls, st: RunState, name: str) -> Namespace:
        if len(name) > 15:
            raise NetnsError(f"namespace name {name!r} longer than 15 characters")
        st.add_netns(name)
        _run(["ip", "netns", "add", name])
        ns = cls(name)
        ns.run(["ip", "link", "set", "lo", "up"])
        return ns

    def argv(self, cmd: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *cmd]

    def run(self, cmd: list[str]) -> None:
        _run(self.argv(cmd))

    def popen(self, st: RunState, cmd: list[str], **kw: object) -> subprocess.Popen:
        p = subprocess.Popen(self.argv(cmd), **kw)  # ip netns exec execs the command: same pid
        st.add_process(p.pid)
        return p


def veth(st: RunState, a: tuple[Namespace, str], b: tuple[Namespace, str], mtu: int = 9000) -> None:
    """A veth pair between two namespaces, both ends up, IPv6 off (no router solicitations on the wire)."""
    (ns_a, if_a), (ns_b, if_b) = a, b
    for name in (if_a, if_b):
        if len(name) > 15:
            raise NetnsError(f"interface name {name!r} longer than 15 characters")
    st.add_link(if_a, ns_a.name)
    st.add_link(if_b, ns_b.name)
    _run(["ip", "link", "add", if_a, "netns", ns_a.name, "mtu", str(mtu), "type", "veth",
          "peer", "name", if_b, "netns", ns_b.name, "mtu", str(mtu)])
    for ns, name in ((ns_a, if_a), (ns_b, if_b)):
        ns.run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"])
        ns.run(["ip", "link", "set", name, "up"])


def add_address(ns: Namespace, iface: str, cidr: str) -> None:
    ns.run(["ip", "addr", "add", cidr, "dev", iface])
