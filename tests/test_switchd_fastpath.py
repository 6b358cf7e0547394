"""rocelab-switch's flow cache on real interfaces (emulator/switchd/flowcache.py): the frames of a flow after its
first come out of the C fast path, and must be exactly what the program makes of them; counters read over
P4Runtime count every frame; a control-plane write changes what later frames do at once; --no-fast-path and the
stats file say what happened."""
from __future__ import annotations

import json
import time

import pytest
from netns_util import WAIT_S, Lab, capture, captured, netns_available, send
from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether
from test_fabric import FABRIC_P4, roce
from test_switchd_frames import Switch, routed

from emulator.control.fabric import FabricControl
from emulator.proto import p4runtime_pb2
from emulator.target.megaflow import header_csum

pytestmark = pytest.mark.skipif(netns_available() is not None, reason=str(netns_available()))


@pytest.fixture
def lab():
    with Lab("fp") as lab:
        yield lab


def flow(n: int, dst: str, sport: int, payload: int = 100) -> list[bytes]:
    """`n` frames of one RoCE flow: the IPv4 id (with its checksum), the PSN and the payload differ frame to frame,
    as rocelab's own NIC sends a message."""
    out = []
    for i in range(n):
        f = bytearray(roce(dst=dst, sport=sport, payload=payload))
        bth = f.index(bytes(BTH(opcode=0x0A, dqpn=0x12, psn=7))[:4], 42)
        f[bth + 9:bth + 12] = (1000 + i).to_bytes(3, "big")
        f[bth + 12:bth + 12 + payload] = bytes((i + j) % 256 for j in range(payload))
        f[18:20] = (7 * i).to_bytes(2, "big")
        f[24:26] = header_csum(f, 14, 20, 10).to_bytes(2, "big")
        out.append(bytes(f))
    return out


def rx_packets(client, port: int) -> int:
    q = p4runtime_pb2.Entity()
    q.counter_entry.counter_id = client.info.counters["FabricIngress.rx_port_counter"].id
    q.counter_entry.index.index = port
    (c,) = client.read(q)
    return c.counter_entry.data.packet_count


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "no-fast-path"])
def test_a_flow_forwards_exactly_as_the_program_and_counts_every_frame(lab, tmp_path, fast):
    stats = tmp_path / "stats.json"
    target = ("--stats-file", str(stats)) + (() if fast else ("--no-fast-path",))
    sw = Switch(lab, tmp_path, 3, FABRIC_P4, target)
    try:
        routed(FabricControl(None, api=sw.client))
        local = FabricControl.load(str(FABRIC_P4))
        routed(local)
        to2, to3 = flow(60, "10.0.2.7", 0xC001), flow(60, "10.0.3.9", 0xC002, payload=300)
        frames = [f for pair in zip(to2, to3) for f in pair]
        cap2, cap3 = capture(lab, sw.ns(2), WAIT_S, count=60), capture(lab, sw.ns(3), WAIT_S, count=60)
        send(lab, sw.ns(1), frames)
        got2, got3 = [f for _, f in captured(cap2)], [f for _, f in captured(cap3)]
        assert got2 == [f for p in to2 for _, f in local.process(1, p)]
        assert got3 == [f for p in to3 for _, f in local.process(1, p)]
        assert rx_packets(sw.client, 1) == 120  # hits folded in before the read
        # a write changes the next frames at once: the route to 10.0.2.0/24 now leads to port 3
        fab = FabricControl(None, api=sw.client)
        fab.add_nexthop(9, port=3, dmac=0x02_00_00_00_99_03, smac=0x02_00_00_00_99_64)
        sw.client.table_delete("FabricIngress.ipv4_lpm", sw.client.table_find(
            "FabricIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": "10.0.2.0/24"}))
        fab.add_route("10.0.2.0", 24, 9)
        cap3 = capture(lab, sw.ns(3), WAIT_S, count=10)
        send(lab, sw.ns(1), to2[:10])
        moved = [Ether(f) for _, f in captured(cap3)]
        assert [m.dst for m in moved] == ["02:00:00:00:99:03"] * 10
        assert rx_packets(sw.client, 1) == 130
    finally:
        assert sw.close() == 0
    fast_stats = json.loads(stats.read_text()).get("fast_path")
    if fast:
        assert fast_stats is not None and fast_stats["fast_path_hits"] >= 100, fast_stats
    else:
        assert fast_stats is None


IDLE_P4 = """
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t e; }
struct meta_t { }
parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.e); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) hits;
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table l2 {
        key = { hdr.e.dst: exact; }
        actions = { fwd; NoAction; }
        default_action = NoAction();
        counters = hits;
        support_timeout = true;
    }
    apply { sm.egress_spec = 511; l2.apply(); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr.e); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_idle_timeouts_and_direct_counters_see_the_fast_paths_hits(lab, tmp_path):
    """An entry hit only by fast-path frames is not idle while they flow, is reported once they stop, and its
    direct counter counts every frame."""

    from p4runtime_util import Controller, compile_program
    from test_switchd import SWITCH, start_listening, stop

    from emulator.p4runtime.p4info_index import P4InfoIndex
    from emulator.proto import p4info_pb2

    src = tmp_path / "idle.p4"
    src.write_text(IDLE_P4)
    info_path, config = compile_program(src, tmp_path)
    from google.protobuf import text_format

    p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
    h1, h2 = lab.host("h1"), lab.host("h2")
    stats = tmp_path / "stats.json"
    proc, address, _ = start_listening(SWITCH + ["-i", f"1@{h1[1]}", "-i", f"2@{h2[1]}", "--no-p4", "--",
                                                 "--stats-file", str(stats)])
    ctl = None
    try:
        ctl = Controller(address, device_id=0)
        ctl.set_pipeline(p4info, config.read_bytes())
        idx = P4InfoIndex(p4info)
        te = p4runtime_pb2.Entity()
        t = idx.table("I.l2")
        te.table_entry.table_id = t.id
        m = te.table_entry.match.add(field_id=1)
        m.exact.value = bytes.fromhex("020000000002")
        te.table_entry.action.action.action_id = idx.action("I.fwd").id
        te.table_entry.action.action.params.add(param_id=1, value=b"\x02")
        te.table_entry.idle_timeout_ns = 300_000_000
        written = time.monotonic_ns()  # the entry's idle time starts no earlier than this
        ctl.write((p4runtime_pb2.Update.INSERT, te))
        frame = bytes.fromhex("020000000002" "020000000001" "0800") + bytes(50)
        cap = capture(lab, h2[0], WAIT_S, count=60)
        send(lab, h1[0], [frame] * 60, gap=0.025)  # 1.5 s of traffic, a frame every 25 ms
        arrivals = [t for t, _ in captured(cap)]
        assert len(arrivals) == 60
        # The longest silence the entry really saw while the flow ran: from its write to the first frame (starting
        # the capture and the sender can take longer than the timeout on a loaded machine), and between frames. A
        # notification sent then is right; the check below still needs one once the flow has stopped.
        silence_ms = max(b - a for a, b in zip([written, *arrivals], arrivals)) / 1e6
        wall = time.time_ns() - time.monotonic_ns()  # a notification's timestamp is wall-clock time
        while True:
            note = ctl.next("idle_timeout_notification", timeout=5)
            if note.timestamp - wall > arrivals[-1]:
                break  # sent after the last frame: the one the entry owes once idle
            if silence_ms < 250:  # the timeout less the switch's idle-scan (50 ms) slack
                pytest.fail(f"idle notification while traffic flowed (longest silence {silence_ms:.0f} ms): {note}")
        assert note.table_entry[0].match[0].exact.value == bytes.fromhex("020000000002")
        q = p4runtime_pb2.Entity()
        q.direct_counter_entry.table_entry.table_id = t.id
        (d,) = ctl.read(q)
        assert d.direct_counter_entry.data.packet_count == 60
        assert d.direct_counter_entry.data.byte_count == 60 * len(frame)
    finally:
        if ctl is not None:
            ctl.close()
        assert stop(proc) == 0
    assert json.loads(stats.read_text())["fast_path"]["fast_path_hits"] >= 55  # the first frame or so: a miss
