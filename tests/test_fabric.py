"""Behaviour of p4src/fabric.p4 on our v1model target: routing, ECMP, priorities, ECN, counters, bad frames.

Packets are built with scapy; the switch is driven through `process()` (ideal traffic manager) or through
`ingress()` / `egress()` when a test needs the traffic class or a queue depth.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

from emulator.control.fabric import FabricControl

FABRIC_P4 = Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4"
ROUTER_MAC = "02:00:00:00:00:01"
HOST_MAC = "02:00:00:00:aa:01"


@pytest.fixture(scope="module")
def program():
    return FabricControl.compile(str(FABRIC_P4))


@pytest.fixture
def fab(program) -> FabricControl:
    return FabricControl.from_program(program)


def mac(n: int) -> int:
    return 0x02_00_00_00_10_00 | n


def mac_str(n: int) -> str:
    return ":".join(f"{b:02x}" for b in mac(n).to_bytes(6, "big"))


def roce(dst="10.1.2.3", src="10.9.0.1", sport=0xC000, dscp=26, ecn=2, ttl=64, opcode=0x0A, payload=64,
         vlan_pcp=None) -> bytes:
    """A RoCEv2 frame (RC WRITE only by default) from a host to the switch."""
    l2 = Ether(dst=ROUTER_MAC, src=HOST_MAC)
    if vlan_pcp is not None:
        l2 = l2 / Dot1Q(prio=vlan_pcp, vlan=10)
    return bytes(l2 / IP(src=src, dst=dst, tos=(dscp << 2) | ecn, ttl=ttl)
                 / UDP(sport=sport, dport=4791, chksum=0) / BTH(opcode=opcode, dqpn=0x12, psn=7)
                 / Raw(bytes(i % 256 for i in range(payload))))


def one_route(fab: FabricControl, port=2, nh=1, prefix="10.1.2.0", plen=24) -> None:
    fab.add_nexthop(nh, port=port, dmac=mac(port), smac=mac(100 + port))
    fab.add_route(prefix, plen, nh)


def out_ports(outputs) -> list[int]:
    return [port for port, _ in outputs]


def ip_checksum_ok(frame: bytes) -> bool:
    pkt = Ether(frame)
    carried = pkt[IP].chksum
    del pkt[IP].chksum
    return Ether(bytes(pkt))[IP].chksum == carried


# ------------------------------------------------------------------------------------------------ routing


def test_longest_prefix_wins(fab):
    for nh, (prefix, plen) in enumerate((("10.0.0.0", 8), ("10.1.0.0", 16), ("10.1.2.0", 24), ("10.1.2.3", 32)),
                                        start=1):
        fab.add_nexthop(nh, port=nh, dmac=mac(nh), smac=mac(100 + nh))
        fab.add_route(prefix, plen, nh)
    assert out_ports(fab.process(9, roce(dst="10.1.2.3"))) == [4]
    assert out_ports(fab.process(9, roce(dst="10.1.2.4"))) == [3]
    assert out_ports(fab.process(9, roce(dst="10.1.200.4"))) == [2]
    assert out_ports(fab.process(9, roce(dst="10.77.0.1"))) == [1]
    assert fab.process(9, roce(dst="11.0.0.1")) == []  # no route: dropped


def test_nexthop_rewrites_macs_decrements_ttl_and_fixes_checksum(fab):
    one_route(fab, port=5)
    frame = roce(ttl=64, payload=200)
    [(port, out)] = fab.process(1, frame)
    assert port == 5
    pkt = Ether(out)
    assert pkt.dst == mac_str(5) and pkt.src == mac_str(105)
    assert pkt[IP].ttl == 63
    assert ip_checksum_ok(out)
    # everything after the IPv4 header is untouched (UDP, BTH, payload, ICRC), and so is the rest of IPv4
    assert out[34:] == frame[34:]
    assert out[14:22] == frame[14:22] and out[26:34] == frame[26:34]
    assert len(out) == len(frame)
    # the ICRC masks TTL and checksum: the rewritten frame still carries a valid one
    icrc = pytest.importorskip("traffic.icrc")
    assert icrc.verify_icrc(out)


def test_ttl_expiry_drops(fab):
    one_route(fab)
    assert fab.process(1, roce(ttl=1)) == []
    assert fab.process(1, roce(ttl=0)) == []
    [(_, out)] = fab.process(1, roce(ttl=2))
    assert Ether(out)[IP].ttl == 1 and ip_checksum_ok(out)


def test_bad_ipv4_checksum_and_options_are_dropped(fab):
    one_route(fab)
    frame = bytearray(roce())
    frame[24] ^= 0xFF  # corrupt the header checksum
    assert fab.process(1, bytes(frame)) == []
    with_options = bytes(Ether(dst=ROUTER_MAC) / IP(dst="10.1.2.3", options=b"\x01\x01\x01\x00") / UDP() / b"x")
    assert fab.process(1, with_options) == []
    assert fab.process(1, roce()) != []


def test_plain_udp_and_other_ip_protocols_are_routed(fab):
    one_route(fab, port=3)
    udp = bytes(Ether(dst=ROUTER_MAC) / IP(dst="10.1.2.9") / UDP(sport=1234, dport=53) / b"query")
    icmp = bytes(Ether(dst=ROUTER_MAC) / IP(dst="10.1.2.9", proto=1) / b"\x08\x00\x00\x00")
    for frame in (udp, icmp):
        [(port, out)] = fab.process(1, frame)
        assert port == 3 and ip_checksum_ok(out) and out[34:] == frame[34:]


# ------------------------------------------------------------------------------------------------ ECMP


def ecmp_fabric(fab, members=8, nh_id=100):
    fab.add_ecmp_group(nh_id, [dict(port=p, dmac=mac(p), smac=mac(100 + p)) for p in range(1, members + 1)])
    fab.add_route("10.1.0.0", 16, nh_id)


def test_ecmp_spreads_flows_over_all_members(fab):
    ecmp_fabric(fab)
    counts = Counter()
    for i in range(256):
        [(port, out)] = fab.process(20, roce(dst="10.1.2.3", sport=0xC000 + i))
        counts[port] += 1
        assert Ether(out).dst == mac_str(port)  # the member's own MAC rewrite
    assert set(counts) == set(range(1, 9))
    assert min(counts.values()) >= 256 / 8 / 2, counts


def test_ecmp_same_flow_same_member(fab):
    ecmp_fabric(fab)
    for sport in (0xC000, 0xC123, 0xFFFF):
        for src in ("10.9.0.1", "10.9.0.2"):
            # same 5-tuple, different packets of the flow (payload sizes): one member
            ports = {out_ports(fab.process(20, roce(src=src, sport=sport, payload=n)))[0] for n in range(5)}
            assert len(ports) == 1


def test_ecmp_hash_uses_addresses_too(fab):
    ecmp_fabric(fab)
    ports = {out_ports(fab.process(20, roce(src=f"10.9.{i}.1", sport=0xC000)))[0] for i in range(64)}
    assert len(ports) >= 6


# ------------------------------------------------------------------------------------------------ priorities


@pytest.mark.parametrize("dscp,prio", [(26, 3), (48, 6), (0, 0), (46, 0), (10, 0)])
def test_default_dscp_classes(fab, dscp, prio):
    one_route(fab)
    assert fab.ingress_priorities(1, roce(dscp=dscp)) == [prio]


def test_dscp_to_priority_table_overrides_defaults(fab):
    one_route(fab)
    fab.set_dscp_priority(46, 5)
    fab.set_dscp_priority(26, 2)
    assert fab.ingress_priorities(1, roce(dscp=46)) == [5]
    assert fab.ingress_priorities(1, roce(dscp=26)) == [2]
    assert fab.ingress_priorities(1, roce(dscp=48)) == [6]  # still the built-in default


def test_cnp_is_routed_on_priority_6(fab):
    one_route(fab, port=4)
    cnp = roce(dscp=48, opcode=0x81, payload=16)
    assert fab.ingress_priorities(1, cnp) == [6]
    [(port, out)] = fab.process(1, cnp)
    assert port == 4 and Ether(out)[BTH].opcode == 0x81


def test_pcp_classifies_tagged_frames(fab):
    one_route(fab, port=4)
    assert fab.ingress_priorities(1, roce(dscp=0, vlan_pcp=5)) == [5]  # default: priority = PCP
    fab.set_pcp_priority(5, 3)
    assert fab.ingress_priorities(1, roce(dscp=0, vlan_pcp=5)) == [3]
    [(port, out)] = fab.process(1, roce(vlan_pcp=5))
    pkt = Ether(out)
    assert port == 4 and pkt[Dot1Q].prio == 5 and pkt[Dot1Q].vlan == 10 and pkt[IP].ttl == 63
    assert ip_checksum_ok(out)


# ------------------------------------------------------------------------------------------------ ECN


def ecn_after(fab, frame: bytes, depth: int, depth_bytes: int = 0, port_in: int = 1) -> int | None:
    """The ECN field of the frame leaving egress with the given queue depth at enqueue (None: dropped)."""
    outs = fab.through_egress(port_in, frame, depth=depth, depth_bytes=depth_bytes)
    if not outs:
        return None
    [(_, out)] = outs
    assert ip_checksum_ok(out)
    return Ether(out)[IP].tos & 3


def test_ecn_step_marks_at_and_above_threshold(fab):
    one_route(fab, port=2)
    fab.set_ecn_step(2, 3, threshold=10)
    assert ecn_after(fab, roce(ecn=2), depth=0) == 2
    assert ecn_after(fab, roce(ecn=2), depth=9) == 2
    assert ecn_after(fab, roce(ecn=2), depth=10) == 3
    assert ecn_after(fab, roce(ecn=1), depth=11) == 3  # ECT(1) too
    assert ecn_after(fab, roce(ecn=2), depth=5000) == 3
    # other priorities on the same port have no config: never marked
    assert ecn_after(fab, roce(ecn=2, dscp=0), depth=5000) == 2


def test_ecn_never_marks_non_ect_and_keeps_ce(fab):
    one_route(fab, port=2)
    fab.set_ecn_step(2, 3, threshold=1)
    assert ecn_after(fab, roce(ecn=0), depth=100000) == 0
    assert ecn_after(fab, roce(ecn=3), depth=0) == 3


def test_ecn_step_in_bytes(fab):
    one_route(fab, port=2)
    fab.set_ecn_step(2, 3, threshold=100_000, unit="bytes")
    assert ecn_after(fab, roce(), depth=500, depth_bytes=99_999) == 2
    assert ecn_after(fab, roce(), depth=1, depth_bytes=100_000) == 3


def test_ecn_red_marks_a_fraction_between_kmin_and_kmax(fab):
    one_route(fab, port=2)
    fab.set_ecn_red(2, 3, kmin=10, kmax=100, pmax=0.5)
    frame = roce()
    assert all(ecn_after(fab, frame, depth=d) == 2 for d in (0, 5, 10) for _ in range(50))
    assert all(ecn_after(fab, frame, depth=d) == 3 for d in (101, 1000) for _ in range(50))
    n = 2000
    marked = sum(ecn_after(fab, frame, depth=55) == 3 for _ in range(n))
    # p = 0.5 * (55 - 10) / (100 - 10) = 0.25; 2000 trials: sigma ~ 0.01
    assert 0.20 * n < marked < 0.30 * n


def test_ecn_red_in_bytes(fab):
    one_route(fab, port=2)
    fab.set_ecn_red(2, 3, kmin=150_000, kmax=1_500_000, pmax=1.0, unit="bytes")
    frame = roce()
    assert ecn_after(fab, frame, depth=1, depth_bytes=150_000) == 2
    assert ecn_after(fab, frame, depth=1, depth_bytes=1_500_001) == 3
    marked = sum(ecn_after(fab, frame, depth=1, depth_bytes=825_000) == 3 for _ in range(1000))
    assert 400 < marked < 600  # p = 0.5


# ------------------------------------------------------------------------------------------------ counters


def test_port_counters(fab):
    one_route(fab, port=2)
    fab.set_ecn_step(2, 3, threshold=5)
    frames = [roce(payload=100), roce(payload=300), roce(dst="11.0.0.1")]  # the last has no route
    for f in frames:
        fab.process(7, f)
    assert fab.counter("rx_port_counter", 7) == (3, sum(len(f) for f in frames))
    assert fab.counter("tx_port_counter", 2) == (2, len(frames[0]) + len(frames[1]))
    assert fab.counter("rx_port_counter", 2)[0] == 0
    assert fab.counter("tx_port_counter", 7)[0] == 0
    fab.through_egress(7, roce(), depth=6)
    assert fab.counter("ecn_marked_counter", 2)[0] == 1


# ------------------------------------------------------------------------------------------------ bad frames and L2


@pytest.mark.parametrize("cut", [0, 1, 13, 14, 20, 33, 38, 41, 45, 53])
def test_truncated_frames_are_dropped(fab, cut):
    one_route(fab)
    fab.add_l2(0xFFFFFFFFFFFF, 3)
    frame = roce()[:cut]
    assert fab.process(1, frame) == []
    assert fab.counter("rx_port_counter", 1)[0] == 1


def test_udp_to_4791_with_short_bth_is_dropped_but_full_bth_routed(fab):
    one_route(fab)
    base = bytes(Ether(dst=ROUTER_MAC) / IP(dst="10.1.2.3") / UDP(sport=0xC000, dport=4791))
    assert fab.process(1, base + bytes(11)) == []
    assert out_ports(fab.process(1, base + bytes(12))) == [2]


def test_non_ip_frames_are_bridged(fab):
    fab.add_l2(mac(7), 7)
    arp = bytes(Ether(dst=mac_str(7), src=HOST_MAC) / ARP(pdst="10.1.2.3"))
    assert fab.process(1, arp) == [(7, arp)]


def test_unknown_destination_floods_except_ingress_port(fab):
    fab.set_flood_ports([1, 2, 3, 4])
    arp = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC) / ARP(pdst="10.1.2.3"))
    outs = fab.process(2, arp)
    assert sorted(out_ports(outs)) == [1, 3, 4]
    assert all(data == arp for _, data in outs)


def test_garbage_after_ethernet_does_not_crash(fab):
    one_route(fab)
    for n in range(0, 80, 7):
        frame = bytes(Ether(dst=ROUTER_MAC, type=0x0800)) + bytes((n * 37 + i) % 256 for i in range(n))
        fab.process(1, frame)  # must not raise; anything malformed is dropped
    assert fab.counter("rx_port_counter", 1)[0] == len(range(0, 80, 7))


# ------------------------------------------------------------------------------------------------ STF files


@pytest.mark.parametrize("stf", sorted((FABRIC_P4.parent / "tests").glob("fabric_*.stf")), ids=lambda p: p.name)
def test_stf(stf):
    from emulator.target.stf import run_stf

    result = run_stf(str(FABRIC_P4), str(stf))
    assert result.passed, "\n".join(result.failures)


# ------------------------------------------------------------------------------------------------ benchmark


def test_bench_pipeline_runs_and_prints_json(capsys):
    import argparse
    import json

    from emulator.commands import bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["pipeline", "--seconds", "0.2", "--packets", "64", "--payload", "256"])
    assert bench.main(args) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result = json.loads(last)
    assert set(result) == {"pipeline_pps", "baseline_pps"}
    assert result["pipeline_pps"] > 0 and result["baseline_pps"] > result["pipeline_pps"]


def test_bench_sim_hook_reports_missing_module(monkeypatch):
    import argparse

    from emulator.commands import bench
    from emulator.errors import RocelabError

    monkeypatch.setattr(bench, "_module", lambda name: None)
    with pytest.raises(RocelabError, match="not built yet"):
        bench.main(argparse.Namespace(benchmark="sim"))


def test_switches_running_one_program_share_its_generated_code_not_their_state(program):
    a, b = FabricControl.from_program(program), FabricControl.from_program(program)
    assert a.switch.compiled.source is b.switch.compiled.source  # generated once (codegen/shared.py)
    assert a.switch.compiled.namespace is not b.switch.compiled.namespace
    one_route(a)
    assert out_ports(a.process(1, roce())) == [2]
    assert b.process(1, roce()) == []  # b has no route: its own tables
    assert a.counter("rx_port_counter", 1)[0] == 1 and b.counter("rx_port_counter", 1)[0] == 1
    assert a.counter("tx_port_counter", 2)[0] == 1 and b.counter("tx_port_counter", 2)[0] == 0
