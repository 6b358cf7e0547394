"""V1Switch packet path: BMv2's after-ingress / after-egress order, clones, multicast, resubmit, recirculate,
instance_type, timestamps and queue metadata, truncation, digests, malformed packets."""
from __future__ import annotations

import random

from codegen_util import load  # noqa: I001 - pytest puts tests/ on sys.path

from emulator.target.api import RuntimeApi
from emulator.target.switch import (
    EGRESS_CLONE,
    INGRESS_CLONE,
    NORMAL,
    RECIRC,
    REPLICATION,
    EgressJob,
    QueueInfo,
    V1Switch,
)

# The packet carries a 1-byte `op` telling ingress what to do; egress writes what it saw into `out_t`.
PROG = """
#include <core.p4>
#include <v1model.p4>
header op_t { bit<8> op; bit<8> arg; }
header out_t {
    bit<32> instance_type; bit<16> ingress_port; bit<16> egress_port; bit<16> rid; bit<8> m_kept; bit<8> m_lost;
    bit<48> in_ts; bit<48> eg_ts; bit<32> enq_ts; bit<32> enq_depth; bit<32> deq_delta; bit<32> deq_depth;
    bit<32> enq_bytes; bit<32> pkt_len; bit<8> prio; bit<8> passes;
}
struct headers { op_t op; out_t rep; }
struct meta_t { @field_list(1) bit<8> kept; bit<8> lost; @field_list(1) bit<8> passes; }
struct dig_t { bit<8> op; bit<8> arg; }
parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(h.op); transition select(h.op.op) { 0xEE: with_out; default: accept; } }
    state with_out { pkt.extract(h.rep); transition accept; }
}
control VC(inout headers h, inout meta_t meta) { apply {} }
control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.passes = meta.passes + 1;
        sm.egress_spec = 2;
        sm.priority = 3;
        if (h.op.op == 1) { mark_to_drop(sm); }
        else if (h.op.op == 2) { sm.mcast_grp = 5; }
        else if (h.op.op == 3) { meta.kept = 7; meta.lost = 9; clone_preserving_field_list(CloneType.I2E, 4, 1); }
        else if (h.op.op == 4) { clone(CloneType.I2E, 4); mark_to_drop(sm); }
        else if (h.op.op == 5) {
            if (sm.instance_type == 0) { meta.kept = 11; meta.lost = 12; resubmit_preserving_field_list(1); }
        }
        else if (h.op.op == 6 && sm.instance_type == 0) { meta.kept = 21; meta.lost = 22; }
        else if (h.op.op == 7) { digest<dig_t>(1, { h.op.op, h.op.arg }); }
        else if (h.op.op == 8) { sm.mcast_grp = 5; clone(CloneType.I2E, 4); }
        else if (h.op.op == 9) { sm.egress_spec = 511; }
        else if (h.op.op == 10) { truncate(1); }
    }
}
control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (h.op.op == 6 && meta.passes == 1) {  // a recirculated packet is NORMAL again in egress
            recirculate_preserving_field_list(1);
        }
        if (h.op.op == 11 && sm.instance_type == 0) { clone(CloneType.E2E, 4); h.op.arg = 0x55; }
        if (h.op.op == 12) { mark_to_drop(sm); }
        h.rep.setValid();
        h.rep.instance_type = sm.instance_type;
        h.rep.ingress_port = (bit<16>)sm.ingress_port;
        h.rep.egress_port = (bit<16>)sm.egress_port;
        h.rep.rid = sm.egress_rid;
        h.rep.m_kept = meta.kept;
        h.rep.m_lost = meta.lost;
        h.rep.in_ts = sm.ingress_global_timestamp;
        h.rep.eg_ts = sm.egress_global_timestamp;
        h.rep.enq_ts = sm.enq_timestamp;
        h.rep.enq_depth = (bit<32>)sm.enq_qdepth;
        h.rep.deq_delta = sm.deq_timedelta;
        h.rep.deq_depth = (bit<32>)sm.deq_qdepth;
        h.rep.enq_bytes = sm.enq_qdepth_bytes;
        h.rep.pkt_len = sm.packet_length;
        h.rep.prio = (bit<8>)sm.priority;
        h.rep.passes = meta.passes;
    }
}
control CC(inout headers h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.op); pkt.emit(h.rep); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

OUT_FIELDS = [("instance_type", 32), ("ingress_port", 16), ("egress_port", 16), ("rid", 16), ("m_kept", 8),
              ("m_lost", 8), ("in_ts", 48), ("eg_ts", 48), ("enq_ts", 32), ("enq_depth", 32), ("deq_delta", 32),
              ("deq_depth", 32), ("enq_bytes", 32), ("pkt_len", 32), ("prio", 8), ("passes", 8)]
OUT_LEN = sum(w for _, w in OUT_FIELDS) // 8


def decode(frame: bytes) -> dict:
    v = int.from_bytes(frame[2:2 + OUT_LEN], "big")
    out = {"op": frame[0], "arg": frame[1], "rest": frame[2 + OUT_LEN:]}
    off = OUT_LEN * 8
    for name, w in OUT_FIELDS:
        off -= w
        out[name] = (v >> off) & ((1 << w) - 1)
    return out


_SW = None


def switch() -> V1Switch:
    sw = V1Switch(load(PROG))
    sw.pre.mc_node_create(0, [])  # handle 0 unused: rids below start at 1
    n1 = sw.pre.mc_node_create(1, [3, 4])
    n2 = sw.pre.mc_node_create(2, [6])
    sw.pre.mc_mgrp_create(5)
    sw.pre.mc_node_associate(5, n1)
    sw.pre.mc_node_associate(5, n2)
    sw.pre.mirroring_add(4, 9)
    return sw


def pkt(op: int, arg: int = 0, payload: bytes = b"PAYLOAD") -> bytes:
    return bytes([op, arg]) + payload


def test_unicast_normal_packet_and_metadata():
    sw = switch()
    out = sw.process(1, pkt(0), now_ns=5_000_000)
    assert [p for p, _ in out] == [2]
    d = decode(out[0][1])
    assert d["instance_type"] == NORMAL and d["ingress_port"] == 1 and d["egress_port"] == 2
    assert d["in_ts"] == 5000 and d["eg_ts"] == 5000 and d["pkt_len"] == 9 and d["prio"] == 3
    assert d["rest"] == b"PAYLOAD"


def test_mark_to_drop_and_egress_spec_511_drop():
    sw = switch()
    assert sw.process(1, pkt(1)) == []
    assert sw.process(1, pkt(9)) == []
    res = sw.ingress(1, pkt(1), 0)
    assert res.dropped and res.jobs == []


def test_multicast_replicas_have_rid_and_replication_type():
    sw = switch()
    out = sw.process(1, pkt(2))
    assert sorted(p for p, _ in out) == [3, 4, 6]
    for port, frame in out:
        d = decode(frame)
        assert d["instance_type"] == REPLICATION and d["egress_port"] == port
        assert d["rid"] == (1 if port in (3, 4) else 2)


def test_i2e_clone_preserves_field_list_only():
    sw = switch()
    out = sw.process(1, pkt(3))
    by_port = {p: decode(f) for p, f in out}
    assert set(by_port) == {2, 9}
    c = by_port[9]
    assert c["instance_type"] == INGRESS_CLONE and c["m_kept"] == 7 and c["m_lost"] == 0
    assert by_port[2]["instance_type"] == NORMAL and by_port[2]["m_lost"] == 9


def test_clone_happens_before_drop_and_multicast():
    sw = switch()
    out = sw.process(1, pkt(4))  # clone then mark_to_drop: only the clone leaves
    assert [p for p, _ in out] == [9]
    out = sw.process(1, pkt(8))  # clone + multicast
    assert sorted(p for p, _ in out) == [3, 4, 6, 9]


def test_resubmit_reenters_ingress_with_preserved_fields():
    sw = switch()
    out = sw.process(1, pkt(5))
    assert len(out) == 1
    d = decode(out[0][1])
    # ingress ran twice (passes 2, the second as RESUBMIT); BMv2 resets all metadata of the resubmitted packet
    # but the preserved list (so ingress_port is 0) and sets instance_type NORMAL when it is unicast
    assert d["instance_type"] == NORMAL and d["m_kept"] == 11 and d["m_lost"] == 0 and d["passes"] == 2
    assert d["ingress_port"] == 0


def test_recirculate_reenters_ingress_after_deparse():
    sw = switch()
    out = sw.process(1, pkt(6))
    assert len(out) == 1
    d = decode(out[0][1])
    assert d["instance_type"] == NORMAL and d["ingress_port"] == 0  # metadata reset, then unicast (BMv2)
    assert d["m_kept"] == 21 and d["m_lost"] == 0 and d["passes"] == 2
    # the recirculated packet was the deparsed one: it already carried out_t (op 6 re-parsed without it here)
    res = sw.egress(sw.ingress(1, pkt(6), 0).jobs[0], 0)
    assert res.frames == [] and len(res.recirculate) == 1
    assert bytes(res.recirculate[0])[:2] == bytes([6, 0])


def test_e2e_clone_is_the_packet_as_egress_left_it():
    sw = switch()
    out = sw.process(1, pkt(11))
    by_port = {p: f for p, f in out}
    assert set(by_port) == {2, 9}
    assert by_port[2][1] == 0x55
    c = decode(by_port[9])
    # BMv2 copies the headers as egress left them (arg 0x55, out_t valid), neither deparsed nor parsed again;
    # the copy runs egress again as EGRESS_CLONE to the session's port with all metadata reset
    assert c["arg"] == 0x55 and c["instance_type"] == EGRESS_CLONE and c["egress_port"] == 9
    assert c["rest"] == b"PAYLOAD" and c["ingress_port"] == 0 and c["pkt_len"] == len(pkt(11)) + OUT_LEN


def test_egress_mark_to_drop():
    sw = switch()
    assert sw.process(1, pkt(12)) == []


def test_digest_collected():
    sw = switch()
    res = sw.ingress(1, pkt(7, 0x42), 0)
    assert res.digests and res.digests[0][1] == (7, 0x42)


def test_truncate():
    sw = switch()
    out = sw.process(1, pkt(10))
    assert out[0][1] == bytes([10])


def test_queue_info_and_timestamps_reach_egress():
    sw = switch()
    res = sw.ingress(3, pkt(0), 2_000_999)
    job = res.jobs[0]
    assert isinstance(job, EgressJob) and job.priority == 3 and job.length == 9 and job.egress_port == 2
    q = QueueInfo(enq_timestamp_us=2000, enq_qdepth=4, deq_timedelta_us=17, deq_qdepth=3, enq_qdepth_bytes=4096,
                  deq_qdepth_bytes=3000)
    er = sw.egress(job, 2_017_500, q)
    d = decode(er.frames[0][1])
    assert d["in_ts"] == 2000 and d["eg_ts"] == 2017
    assert (d["enq_ts"], d["enq_depth"], d["deq_delta"], d["deq_depth"], d["enq_bytes"]) == (2000, 4, 17, 3, 4096)


def test_malformed_and_random_packets_never_raise():
    sw = switch()
    rng = random.Random(1)
    for _n in range(200):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        sw.process(rng.randrange(8), data)
    # too short for op_t (PacketTooShort): op stays invalid, the packet goes on; egress adds out_t and the bytes
    # the parser could not take follow it unchanged
    for data in (b"", b"\xee"):
        (port, frame), = sw.process(0, data)
        assert port == 2 and len(frame) == OUT_LEN + len(data) and frame.endswith(data)


def test_fabric_truncated_and_corrupted_frames_never_raise():
    from pathlib import Path

    from emulator.control.fabric import FabricControl
    from emulator.p4.frontend import load_program

    fabric = Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4"
    sw = V1Switch(load_program(fabric))
    fab = FabricControl(sw)  # one route: 10.0.0.2 out of port 2
    fab.add_nexthop(1, port=2, dmac="02:00:00:00:00:02", smac="02:00:00:00:00:aa")
    fab.add_route("10.0.0.2", 32, 1)
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    ipv4 = bytearray.fromhex("45680040000040004011" "0000" "0a000001" "0a000002")
    total = sum(int.from_bytes(ipv4[i:i + 2], "big") for i in range(0, 20, 2))
    ipv4[10:12] = (~((total & 0xFFFF) + (total >> 16)) & 0xFFFF).to_bytes(2, "big")  # a valid header checksum
    udp = bytes.fromhex("04d212b7002c0000")
    bth = bytes.fromhex("0a400000" "00000011" "80000001")
    frame = eth + bytes(ipv4) + udp + bth + bytes(32)
    out = sw.process(1, frame)
    assert [p for p, _ in out] == [2] and len(out[0][1]) == len(frame)  # the whole frame is routed
    rng = random.Random(7)
    outputs = []
    for cut in range(len(frame) + 1):
        outputs += sw.process(1, frame[:cut])
    for _ in range(300):
        b = bytearray(frame)
        for _ in range(rng.randrange(1, 6)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        data = bytes(b[:rng.randrange(len(b) + 1)])
        got = sw.process(rng.randrange(4), data)
        assert len(got) <= 1 and all(len(f) <= len(data) for _, f in got)  # unicast, never grown
        outputs += got
    # whatever got through left by the only route; the rest was dropped, never raised
    assert outputs and {p for p, _ in outputs} == {2}


def one_header_program(fields: str, ingress: str, types: str = "") -> str:
    """A v1model program around one header h_t {fields}: parse it, run `ingress` (the body of I's apply, with
    h, m, sm), emit it; `types` adds declarations (digest structs...)."""
    return f"""
#include <core.p4>
#include <v1model.p4>
header h_t {{ {fields} }}
struct headers {{ h_t h; }}
struct meta_t {{ }}
{types}
parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(h.h); transition accept; }}
}}
control VC(inout headers h, inout meta_t m) {{ apply {{}} }}
control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {{
    apply {{ {ingress} }}
}}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {{ apply {{}} }}
control CC(inout headers h, inout meta_t m) {{ apply {{}} }}
control D(packet_out pkt, in headers h) {{ apply {{ pkt.emit(h.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


RANDOM_PROG = one_header_program("bit<32> r;", "random(h.h.r, 32w0, 32w0xFFFFFFFE); sm.egress_spec = 1;")


def test_random_extern_draws_from_the_switch_rng():
    program = load(RANDOM_PROG)

    def draws(sw: V1Switch) -> list[bytes]:
        return [sw.process(0, b"\0" * 4)[0][1] for _ in range(4)]
    a, b = V1Switch(program, rng=random.Random(7)), V1Switch(program, rng=random.Random(7))
    assert draws(a) == draws(b)  # same seed, same stream: runs are reproducible
    c = V1Switch(program, rng=random.Random(8))
    assert draws(c) != draws(V1Switch(program, rng=random.Random(7)))
    c.use_rng(random.Random(7))  # an engine re-seeds a switch built elsewhere
    assert draws(c) == draws(V1Switch(program, rng=random.Random(7)))


ASSERT_PROG = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.h); transition accept; }
}
control VC(inout headers h, inout meta_t m) { apply {} }
control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        clone(CloneType.I2E, 4);
        assert(h.h.a != 1);
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        assume(h.h.b != 2);
    }
}
control CC(inout headers h, inout meta_t m) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_false_assert_or_assume_abandons_the_packet_and_names_the_line():
    # simple_switch logs the assert's file and line and exits (v1model.p4): nothing of that packet leaves,
    # not even the clone made earlier in the same pass; the switch records the failure and goes on
    sw = V1Switch(load(ASSERT_PROG))
    RuntimeApi(sw).mirroring_add(4, 9)
    assert sorted(sw.process(0, b"\x00\x00")) == [(1, b"\x00\x00"), (9, b"\x00\x00")]
    assert sw.fatal_errors == []
    assert sw.process(0, b"\x01\x00") == []
    assert sw.fatal_errors == ["assert failed at <test>:15 (ingress, packet from port 0)"]
    # assume fails in egress: both the packet and its clone run egress and both are abandoned
    assert sw.process(3, b"\x00\x02") == []
    assert sorted(sw.fatal_errors[1:]) == [  # the I2E clone's ingress_port is 0, as in BMv2
        "assume failed at <test>:20 (egress, packet from port 0)",
        "assume failed at <test>:20 (egress, packet from port 3)"]
    assert sw.process(0, b"\x05\x05") != []  # the switch keeps working


DIGEST_PROG = one_header_program("bit<8> a; bit<8> b;", """
        digest<first_t>(1, { h.h.a });
        if (h.h.b == 2) { digest<second_t>(1, { h.h.a, h.h.b }); }
        h.h.a = 0x99;   // after the calls: the digests keep the values of call time
        mark_to_drop(sm);""", types="struct first_t { bit<8> a; }\nstruct second_t { bit<8> a; bit<8> b; }")


def test_digest_last_call_of_the_pass_with_call_time_values():
    # BMv2's generate_digest sets one learn-list register per packet: the last call wins; p4c copies the data
    # at the call (v1model.p4: the values at the time of the call); a dropped packet still sends it
    sw = V1Switch(load(DIGEST_PROG))
    res = sw.ingress(0, bytes([5, 1]), 0)
    assert res.digests == [("first_t", (5,))] and res.jobs == []
    res = sw.ingress(0, bytes([5, 2]), 0)
    assert res.digests == [("second_t", (5, 2))]


RECIRC_IN_INGRESS_PROG = one_header_program("bit<8> passes; bit<8> itype;", """
        h.h.passes = h.h.passes + 1;
        h.h.itype = (bit<8>)sm.instance_type;
        if (h.h.passes == 1) { recirculate_preserving_field_list(0); }
        sm.egress_spec = 1;""")


def test_recirculate_called_in_ingress_acts_after_egress():
    # simple_switch keeps the recirculate flag in the packet's registers: set in ingress, it is still set after
    # egress (for the unicast packet), so the deparsed packet comes back as RECIRC
    sw = V1Switch(load(RECIRC_IN_INGRESS_PROG))
    assert sw.process(0, bytes([0, 0])) == [(1, bytes([2, RECIRC]))]
