"""fabric.p4's load-balancing groups driven packet by packet (switch.process, timestamps in ns): each routing
mode's decision, made by the P4 program from the entries FabricControl installs."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from test_fabric import mac, roce

from emulator.control.fabric import FabricControl
from emulator.errors import ConfigError

ING = "FabricIngress"
PORTS = (3, 4, 5, 6)
US = 1000


@pytest.fixture(scope="module")
def program():
    from test_fabric import FABRIC_P4

    return FabricControl.compile(str(FABRIC_P4))


def lb_fabric(program, mode: str, gap_us: int = 5, algo: str = "crc32") -> FabricControl:
    fab = FabricControl.from_program(program)
    fab.add_lb_group(7, [dict(port=p, dmac=mac(p), smac=mac(100 + p)) for p in PORTS])
    fab.add_route("10.1.0.0", 16, 7)
    fab.set_lb_mode(mode, algo=algo, seed=1234, flowlet_gap_us=gap_us)
    return fab


def port_of(fab: FabricControl, frame: bytes, t_ns: int = 0) -> int:
    [(port, _)] = fab.process(1, frame, t_ns)
    return port


@pytest.mark.parametrize("algo", ["crc32", "crc16", "crc32_custom", "crc16_custom"])
def test_ecmp_keeps_a_flow_and_spreads_flows(program, algo):
    fab = lb_fabric(program, "ecmp", algo=algo)
    for sport in (0xC001, 0xC777):
        assert len({port_of(fab, roce(sport=sport, payload=n)) for n in range(6)}) == 1
    # QP-derived source ports look random (consecutive ones would not: CRC-16/ARC's low bits are linear in the
    # port's low bits, and 64 consecutive ports reach 2 of 4 members, as fabric.p4's comment says)
    rng = random.Random(5)
    assert {port_of(fab, roce(sport=rng.randrange(0xC000, 0x10000))) for _ in range(64)} == set(PORTS)


def test_the_switch_seed_changes_ecmp_choices(program):
    a, b = lb_fabric(program, "ecmp"), lb_fabric(program, "ecmp")
    b.set_lb_mode("ecmp", seed=99)
    flows = [roce(sport=0xC000 + i) for i in range(32)]
    assert [port_of(a, f) for f in flows] != [port_of(b, f) for f in flows]


def test_ecmp_qp_spreads_qps_that_share_a_udp_port(program):
    from scapy.contrib.roce import BTH
    from scapy.layers.l2 import Ether

    def with_qp(qpn: int) -> bytes:
        pkt = Ether(roce(sport=0xC000))
        pkt[BTH].dqpn = qpn
        return bytes(pkt)

    plain, qp = lb_fabric(program, "ecmp"), lb_fabric(program, "ecmp_qp")
    assert len({port_of(plain, with_qp(q)) for q in range(1, 40)}) == 1
    assert len({port_of(qp, with_qp(q)) for q in range(1, 40)}) == len(PORTS)


def test_flowlets_keep_their_port_within_the_gap_and_may_move_after_it(program):
    fab = lb_fabric(program, "flowlet", gap_us=5)
    frame = roce(sport=0xC123)
    firsts = Counter()
    for k in range(40):  # 40 flowlets of 5 packets 1 us apart, 20 us of silence between them
        t = k * 24 * US
        ports = {port_of(fab, frame, t + i * US) for i in range(5)}
        assert len(ports) == 1  # no move inside a flowlet (no reordering there)
        firsts.update(ports)
    assert len(firsts) > 1  # new flowlets take other ports


def test_adaptive_takes_the_least_loaded_port(program):
    fab = lb_fabric(program, "adaptive", gap_us=5)
    api = fab.api
    now = 1000 * US
    epoch = (now // US) >> 2  # fabric.p4's 4 us windows
    for p in PORTS:  # every port busy in the current window except port 5
        api.register_write("port_epoch", p, epoch)
        api.register_write("port_bytes", p, 0 if p == 5 else 40_000)
    assert {port_of(fab, roce(sport=0xC000 + i), now) for i in range(16)} == {5}
    api.register_write("port_qdepth", 5, 200_000)  # now port 5 has the longest queue: it is avoided
    assert 5 not in {port_of(fab, roce(sport=0xD000 + i), now) for i in range(16)}


def test_spraying_uses_every_port_for_one_flow(program):
    fab = lb_fabric(program, "spray")
    assert {port_of(fab, roce(sport=0xC001), i) for i in range(64)} == set(PORTS)


def test_egress_publishes_bytes_per_window(program):
    fab = lb_fabric(program, "adaptive")
    frame = roce(sport=0xC001, payload=1000)
    port = port_of(fab, frame, 10 * US)
    assert fab.api.register_read("port_epoch", port) == 10 >> 2
    assert fab.api.register_read("port_bytes", port) >= 1000


def test_groups_and_modes_refuse_what_the_program_cannot_do(program):
    fab = FabricControl.from_program(program)
    with pytest.raises(ConfigError, match="no next hops"):
        fab.add_lb_group(1, [])
    with pytest.raises(ConfigError, match="at most 16"):
        fab.add_lb_group(1, [dict(port=p, dmac=mac(p), smac=mac(p)) for p in range(1, 18)])
    with pytest.raises(ConfigError, match="unknown routing mode"):
        fab.set_lb_mode("zigzag")
