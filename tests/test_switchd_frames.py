"""Frames through real interfaces: rocelab-switch as a process on veths to three network namespaces, programmed
over P4Runtime, checked on the wire from inside the namespaces (AF_PACKET captures).

- fabric.p4 routes to two hosts, byte-identical to the same control plane run in-process;
- a tutorial-style IPv4 program (tests/p4runtime/basic_ipv4.p4) forwards with MAC rewrite, TTL and checksum;
- strict priority: frames of a higher standard_metadata.priority overtake a backlog of lower ones;
- PFC: an incast from two hosts into a slow port makes the switch pause both senders on the wire, and a pause
  received on the wire stops the port until the XON.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from netns_util import SEND, WAIT_S, Lab, capture, captured, netns_available, send
from p4runtime_util import compile_program
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from test_fabric import FABRIC_P4, mac, roce
from test_switchd import SWITCH, start_listening, stop

from emulator.control.fabric import FabricControl
from emulator.p4runtime.client import P4RuntimeClient

pytestmark = pytest.mark.skipif(netns_available() is not None, reason=str(netns_available()))

BASIC_P4 = Path(__file__).parent / "p4runtime" / "basic_ipv4.p4"
ROUTER = "02:00:00:00:00:01"  # fabric.p4 routes whatever IPv4 it gets; the tutorial program too


class Switch:
    """A rocelab-switch process on one veth per host, and a P4Runtime client that pushed `program` to it."""

    def __init__(self, lab: Lab, tmp: Path, hosts: int, program: Path, target_args: tuple[str, ...] = ()):
        self.hosts = [lab.host(f"h{i}") for i in range(1, hosts + 1)]
        args = [a for i, (_, root) in enumerate(self.hosts, 1) for a in ("-i", f"{i}@{root}")]
        self.proc, address, _ = start_listening(SWITCH + args + ["--no-p4", "--", *target_args])
        self.client = None
        try:
            info, config = compile_program(program, tmp)
            self.client = P4RuntimeClient(address)
            self.client.connect()
            self.client.set_pipeline(info, config)
        except BaseException:
            self.close()
            raise

    def ns(self, host: int) -> str:
        return self.hosts[host - 1][0]

    def close(self) -> int:
        if self.client is not None:
            self.client.close()
        return stop(self.proc)


@pytest.fixture
def lab():
    with Lab("fr") as lab:
        yield lab


def routed(fab: FabricControl) -> None:
    for port in (2, 3):
        fab.add_nexthop(port, port=port, dmac=mac(port), smac=mac(100 + port))
        fab.add_route(f"10.0.{port}.0", 24, port)


def test_fabric_routes_to_two_hosts_as_the_in_process_pipeline(lab, tmp_path):
    sw = Switch(lab, tmp_path, 3, FABRIC_P4)
    try:
        routed(FabricControl(None, api=sw.client))
        local = FabricControl.load(str(FABRIC_P4))
        routed(local)
        to2 = [roce(dst="10.0.2.7", sport=0xC000 + i) for i in range(4)]
        to3 = [roce(dst="10.0.3.9", sport=0xD000 + i, payload=200) for i in range(4)]
        unrouted = roce(dst="10.9.9.9")
        cap2, cap3 = capture(lab, sw.ns(2), WAIT_S, count=4), capture(lab, sw.ns(3), WAIT_S, count=4)
        send(lab, sw.ns(1), [f for pair in zip(to2, to3) for f in pair] + [unrouted])
        got2, got3 = [f for _, f in captured(cap2)], [f for _, f in captured(cap3)]
        assert got2 == [f for p in to2 for _, f in local.process(1, p)]
        assert got3 == [f for p in to3 for _, f in local.process(1, p)]
        assert Ether(got2[0]).dst == "02:00:00:00:10:02" and Ether(got2[0])[IP].ttl == 63
    finally:
        assert sw.close() == 0


def test_tutorial_style_ipv4_program(lab, tmp_path):
    sw = Switch(lab, tmp_path, 3, BASIC_P4)
    try:
        for port in (2, 3):
            sw.client.table_add("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": f"10.0.{port}.{port}/32"},
                                "MyIngress.ipv4_forward", {"dstAddr": f"08:00:00:00:0{port}:{port}{port}",
                                                           "port": port})
        cap2, cap3 = capture(lab, sw.ns(2), WAIT_S, count=2), capture(lab, sw.ns(3), WAIT_S, count=2)
        pkts = [Ether(dst=ROUTER, src="08:00:00:00:01:11") / IP(src="10.0.1.1", dst=f"10.0.{p}.{p}", ttl=9)
                / UDP(sport=1234, dport=4321) / (b"x" * n) for p, n in ((2, 20), (3, 30), (2, 40), (3, 50))]
        send(lab, sw.ns(1), [bytes(p) for p in pkts] + [bytes(Ether(dst=ROUTER) / IP(dst="10.0.4.4"))])
        for cap, port in ((cap2, 2), (cap3, 3)):
            got = [Ether(f) for _, f in captured(cap)]
            assert [g[UDP].load for g in got] == [p[UDP].load for p in pkts if p[IP].dst == f"10.0.{port}.{port}"]
            for g in got:
                assert g.dst == f"08:00:00:00:0{port}:{port}{port}" and g.src == ROUTER and g[IP].ttl == 8
                fixed = g[IP].copy()
                del fixed.chksum
                assert g[IP].chksum == IP(bytes(fixed)).chksum  # the program recomputed the checksum
    finally:
        assert sw.close() == 0


def test_higher_priority_overtakes_a_backlog(lab, tmp_path):
    """Port 3 drains at 1 Mb/s (8 ms per 1,000-byte frame). h1 bursts 30 frames of priority 1, then 5 of priority
    6: strict priority sends the 5 as soon as the frame on the wire is done, ahead of the backlog. (The slow port
    leaves the burst, sent in well under a millisecond, 120 ms to reach the switch before 15 frames have left, should
    the sender be descheduled in the middle of it on a busy machine.)"""
    sw = Switch(lab, tmp_path, 3, FABRIC_P4, ("--port-rate", "3=1Mbps"))
    try:
        fab = FabricControl(None, api=sw.client)
        routed(fab)
        fab.set_dscp_priority(10, 1)
        fab.set_dscp_priority(46, 6)
        low = [roce(dst="10.0.3.1", dscp=10, sport=0xC000 + i, payload=900) for i in range(30)]
        high = [roce(dst="10.0.3.1", dscp=46, sport=0xE000 + i, payload=900) for i in range(5)]
        cap = capture(lab, sw.ns(3), WAIT_S, count=35)
        send(lab, sw.ns(1), low + high)
        order = [UDP(bytes(Ether(f)[UDP])).sport >> 12 for _, f in captured(cap)]
        assert len(order) == 35 and order.count(0xE) == 5, order
        last_high = max(i for i, s in enumerate(order) if s == 0xE)
        assert last_high < 15, order  # FIFO would put them at 30..34
    finally:
        assert sw.close() == 0


def pfc_frames(frames: list[bytes]) -> list[bytes]:
    return [f for f in frames if f[12:14] == b"\x88\x08" and f[14:16] == b"\x01\x01"]


def test_incast_pauses_both_senders_with_pfc(lab, tmp_path):
    """RoCE (fabric.p4's default priority 3) from h1 and h2 into port 3 at 4 Mb/s, priority 3 lossless with a 4 KB
    XOFF: the switch sends PFC XOFF for class 3 out of ports 1 and 2."""
    sw = Switch(lab, tmp_path, 3, FABRIC_P4, ("--port-rate", "3=4Mbps", "--pfc", "3", "--pfc-xoff", "4000"))
    try:
        routed(FabricControl(None, api=sw.client))
        # windows long enough for the captures and senders still starting after the first capture began (each a
        # Python process, seconds apiece on a busy machine)
        caps = [capture(lab, sw.ns(h), 15) for h in (1, 2)]
        sink = capture(lab, sw.ns(3), 15)
        bursts = [[roce(dst="10.0.3.1", src=f"10.0.{h}.1", sport=0xC000 + i, payload=900).hex() for i in range(20)]
                  for h in (1, 2)]
        senders = [lab.start(sw.ns(h), SEND, json.dumps(b)) for h, b in zip((1, 2), bursts)]
        for s in senders:
            assert s.wait(timeout=60) == 0, s.stderr.read()
        for h, cap in zip((1, 2), caps):
            pauses = pfc_frames([f for _, f in captured(cap)])
            assert pauses, f"no PFC frame toward h{h}"
            first = pauses[0]
            assert first[:6] == bytes.fromhex("0180c2000001")
            enabled = int.from_bytes(first[16:18], "big")
            assert enabled & (1 << 3) and int.from_bytes(first[18 + 2 * 3:20 + 2 * 3], "big") > 0
        # the hosts here ignore pauses, so what overflows the headroom is dropped; both flows still get through
        assert {Ether(f)[IP].src for _, f in captured(sink)} == {"10.0.1.1", "10.0.2.1"}
    finally:
        assert sw.close() == 0


def test_pause_received_on_the_wire_stops_the_port_until_xon(lab, tmp_path):
    """h3 pauses class 3 on the switch's port 3 (at 4 Mb/s the maximal quanta last 8.4 s): RoCE toward h3 waits
    in the switch; the XON (quanta 0) releases it."""
    sw = Switch(lab, tmp_path, 3, FABRIC_P4, ("--port-rate", "3=4Mbps"))
    try:
        routed(FabricControl(None, api=sw.client))
        send(lab, sw.ns(3), [_pfc(3, 0xFFFF)])
        cap = capture(lab, sw.ns(3), 1.5)
        send(lab, sw.ns(1), [roce(dst="10.0.3.1", sport=0xC000 + i) for i in range(5)])
        assert [f for _, f in captured(cap) if f[12:14] == b"\x08\x00"] == []
        cap = capture(lab, sw.ns(3), WAIT_S, count=5)
        send(lab, sw.ns(3), [_pfc(3, 0)])
        assert len(captured(cap)) == 5
    finally:
        assert sw.close() == 0


def _pfc(prio: int, quanta: int) -> bytes:
    """An 802.1Qbb PFC frame pausing (quanta > 0) or resuming (0) one class."""
    times = b"".join((quanta if p == prio else 0).to_bytes(2, "big") for p in range(8))
    body = bytes.fromhex("0180c2000001") + bytes.fromhex("020000000003") + b"\x88\x08\x01\x01"
    body += (1 << prio).to_bytes(2, "big") + times
    return body + bytes(60 - len(body))
