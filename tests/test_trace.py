"""Pipeline tracing (emulator/target/trace.py): what `V1Switch(program, trace=...)` reports per packet, that tracing
never changes what the switch does, and that without it the generated code has no trace calls."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.p4.frontend import load_program_text
from emulator.target.api import RuntimeApi
from emulator.target.switch import V1Switch
from emulator.target.trace import TraceEvent, Tracer, format_event, trace_process

PROG = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<8> op; bit<8> dst; bit<16> etype; }
header ip_t { bit<8> ttl; bit<8> proto; }
header tag_t { bit<8> v; }
struct headers { eth_t eth; tag_t tag; ip_t ip; }
struct meta_t { bit<8> nh; }
parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); transition select(h.eth.etype) { 0x0800: parse_ip; default: accept; } }
    state parse_ip { pkt.extract(h.ip); transition accept; }
}
control VC(inout headers h, inout meta_t meta) { apply {} }
control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    counter(8, CounterType.packets) rx;
    register<bit<8>>(4) last;
    action set_nh(bit<8> nh, bit<9> port) { meta.nh = nh; sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table route { key = { h.eth.dst : exact; } actions = { set_nh; drop; } default_action = drop(); }
    apply {
        rx.count((bit<32>)h.eth.op);
        if (h.eth.op == 1) { sm.mcast_grp = 1; }
        else if (h.eth.op == 2) { clone(CloneType.I2E, 5); route.apply(); }
        else { route.apply(); }
        last.write(0, h.eth.op);
    }
}
control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == 3) { mark_to_drop(sm); }
        if (h.ip.isValid()) { h.ip.ttl = h.ip.ttl - 1; h.tag.setValid(); h.tag.v = 7; }
    }
}
control CC(inout headers h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.eth); pkt.emit(h.tag); pkt.emit(h.ip); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
FILE = "trace.p4"


def line_of(text: str, nth: int = 0) -> str:
    """`trace.p4:N` of the nth line of PROG containing `text`."""
    hits = [i + 1 for i, line in enumerate(PROG.splitlines()) if text in line]
    return f"{FILE}:{hits[nth]}"


def make(trace=True) -> tuple[V1Switch, RuntimeApi]:
    sw = V1Switch(load_program_text(PROG, FILE), trace=trace)
    api = RuntimeApi(sw)
    api.table_add("I.route", {"h.eth.dst": 9}, "I.set_nh", {"nh": 3, "port": 2})
    api.mirroring_add(5, 4)
    api.mc_mgrp_create(1)
    api.mc_node_associate(1, api.mc_node_create(0, [1, 2, 3]))
    return sw, api


def pkt(op: int, dst: int, ip: bool = True) -> bytes:
    return bytes([op, dst]) + (b"\x08\x00\x40\x11" if ip else b"\x86\xdd")


def lines(sw, port: int, data: bytes) -> tuple[list, list[str]]:
    frames, events = trace_process(sw, port, data)
    return frames, [format_event(e) for e in events]


def test_table_hit_with_action_args_parser_and_deparser():
    sw, _ = make()
    frames, out = lines(sw, 7, pkt(0, 9))
    assert frames == [(2, bytes([0, 9, 8, 0, 7, 0x3F, 0x11]))]
    route = line_of("else { route.apply(); }")
    assert out == [
        "[in] packet on port 7 (6 bytes)",
        f"[parser] state start ({line_of('state start')})",
        f"[parser] extracted h.eth ({line_of('state start')})",
        f"[parser] state parse_ip ({line_of('state parse_ip')})",
        f"[parser] extracted h.ip ({line_of('state parse_ip')})",
        "[parser] accept",
        f"[ingress] count I.rx[0] ({line_of('rx.count')})",
        f"[ingress] condition h.eth.op == 1: false ({line_of('if (h.eth.op == 1)')})",
        f"[ingress] condition h.eth.op == 2: false ({line_of('else if (h.eth.op == 2)')})",
        f"[ingress] table I.route: hit -> I.set_nh(nh=3, port=2) ({route})",
        f"[ingress] register_write I.last[0] <- 0 ({line_of('last.write')})",
        "[pre] unicast to port 2",
        "[egress] packet to port 2 (NORMAL)",
        f"[egress] condition sm.egress_port == 3: false ({line_of('sm.egress_port == 3')})",
        f"[egress] condition h.ip.isValid(): true ({line_of('h.ip.isValid()')})",
        f"[egress] setValid h.tag ({line_of('h.ip.isValid()')})",
        "[deparser] emitted eth, tag, ip (7 bytes)",
        "[out] port 2 (7 bytes)",
    ]


def test_table_miss_runs_the_default_action_and_drops():
    sw, _ = make()
    frames, out = lines(sw, 7, pkt(0, 8))
    assert frames == []
    assert f"[ingress] table I.route: miss -> I.drop() ({line_of('else { route.apply(); }')})" in out
    assert f"[ingress] mark_to_drop ({line_of('mark_to_drop(sm); }', 0)})" in out  # in action drop()
    assert out[-1] == "[pre] dropped (egress_spec 511)"
    assert not any(line.startswith(("[egress]", "[deparser]", "[out]")) for line in out)


def test_parser_select_default_and_parser_error():
    sw, _ = make()
    _, out = lines(sw, 1, pkt(0, 9, ip=False))
    assert [x.split(" (")[0] for x in out if x.startswith("[parser]")] == [
        "[parser] state start", "[parser] extracted h.eth", "[parser] accept"]
    assert "[deparser] emitted eth (4 bytes)" in out
    _, out = lines(sw, 1, b"\x00\x09")  # shorter than eth_t
    assert "[parser] extracted h.eth" not in " ".join(out)
    assert "[parser] parser error error.PacketTooShort" in out


def test_clone_i2e():
    sw, _ = make()
    frames, out = lines(sw, 7, pkt(2, 9))
    assert sorted(p for p, _ in frames) == [2, 4]
    i = out.index(f"[ingress] clone I2E session 5 ({line_of('clone(CloneType.I2E, 5)')})")
    j = out.index("[pre] clone I2E session 5: 1 copy to port 4")
    k = out.index("[pre] unicast to port 2")
    assert i < j < k
    assert "[in] INGRESS_CLONE packet (6 bytes), parsed again" in out
    assert "[egress] packet to port 4 (INGRESS_CLONE)" in out
    assert out.count("[egress] packet to port 2 (NORMAL)") == 1


def test_multicast_and_a_drop_in_egress():
    sw, _ = make()
    frames, out = lines(sw, 7, pkt(1, 0))
    assert sorted(p for p, _ in frames) == [1, 2]  # egress drops the replica to port 3
    assert "[pre] multicast group 1: 3 replicas (ports 1, 2, 3)" in out
    assert [x for x in out if x.startswith("[egress] packet")] == [
        f"[egress] packet to port {p} (REPLICATION)" for p in (1, 2, 3)]
    tail = out[out.index("[egress] packet to port 3 (REPLICATION)"):]
    assert f"[egress] mark_to_drop ({line_of('if (sm.egress_port == 3)')})" in tail
    assert "[egress] dropped (egress_spec 511)" in tail
    assert [x for x in out if x.startswith("[out]")] == ["[out] port 1 (7 bytes)", "[out] port 2 (7 bytes)"]


def test_callback_and_event_fields():
    got: list[TraceEvent] = []
    sw, _ = make(trace=got.append)
    assert sw.tracer.events == [] and sw.tracer.keep is False  # a bare callable: nothing kept
    sw.process(7, pkt(0, 9))
    table = next(e for e in got if e.kind == "table")
    assert (table.stage, table.name, table.detail) == ("ingress", "I.route", "hit -> I.set_nh(nh=3, port=2)")
    assert table.loc == line_of("else { route.apply(); }")
    assert str(table) == format_event(table)
    assert {e.stage for e in got} == {"in", "parser", "ingress", "pre", "egress", "deparser", "out"}
    assert format_event(TraceEvent("pre", "decision", "unicast to port 2")) == "[pre] unicast to port 2"


def test_tracer_object_collects_until_cleared():
    tr = Tracer()
    sw, _ = make(trace=tr)
    assert sw.tracer is tr
    sw.process(7, pkt(0, 9))
    n = len(tr.events)
    assert n and tr.lines()[0] == "[in] packet on port 7 (6 bytes)"
    sw.process(7, pkt(0, 9))
    assert len(tr.events) == 2 * n
    tr.clear()
    assert tr.events == []


def test_untraced_code_has_no_trace_calls():
    plain, _ = make(trace=None)
    traced, _ = make()
    assert plain.tracer is None
    assert "_T" not in plain.source and "_T" not in plain.compiled.namespace
    assert "_T.table(" in traced.source and "_T.cond(" in traced.source
    # the hooks are installed only when tracing
    assert plain._run_ingress is plain.compiled.run_ingress
    assert traced._run_ingress is not traced.compiled.run_ingress
    with pytest.raises(ValueError):
        trace_process(plain, 7, pkt(0, 9))


_PAIR: list = []


@settings(max_examples=150, deadline=None)
@given(st.binary(min_size=0, max_size=12), st.integers(0, 8))
def test_tracing_never_changes_what_the_switch_does(data, port):
    if not _PAIR:  # one pair for all examples: both see the same packets, so their state must stay equal
        _PAIR.extend([make(trace=None), make()])
    (plain, papi), (traced, tapi) = _PAIR
    assert traced.process(port, data) == plain.process(port, data)
    assert tapi.register_read("I.last", 0) == papi.register_read("I.last", 0)
    assert [tapi.counter_read("I.rx", i) for i in range(8)] == [papi.counter_read("I.rx", i) for i in range(8)]
    traced.tracer.clear()


# ---------------------------------------------------------------------------------------------- the STF corpus

STF_DIR = Path(__file__).parent / "stf"
FABRIC = Path(__file__).parents[1] / "p4src" / "fabric.p4"
CASES = [(STF_DIR / f"{p.stem}.p4", p) for p in sorted(STF_DIR.glob("*.stf")) if (STF_DIR / f"{p.stem}.p4").exists()]
CASES += [(FABRIC, p) for p in sorted((FABRIC.parent / "tests").glob("*.stf"))]


@pytest.mark.parametrize("program,stf", CASES, ids=[s.stem for _, s in CASES])
def test_corpus_outputs_are_the_same_with_tracing(program, stf, extern_plugins_restored):
    from test_stf_corpus import load_case_plugins  # noqa: I001 - pytest puts tests/ on sys.path

    from emulator.target.stf import run_stf

    load_case_plugins(stf.stem)
    plain = run_stf(program, stf)
    traced = run_stf(program, stf, trace=True)
    assert traced.outputs == plain.outputs
    assert (traced.passed, traced.failures) == (plain.passed, plain.failures)
    assert any(line.startswith("    [in] packet") for line in traced.log)


def test_stf_cli_verbose_shows_the_pipeline_trace(tmp_path, capsys):
    from emulator.commands.stf import add_arguments, main

    (tmp_path / "p.p4").write_text(PROG)
    (tmp_path / "t.stf").write_text("add I.route h.eth.dst:9 I.set_nh(nh:3, port:2)\n"
                                    "packet 7 00090800 4011\nexpect 2 00090800 073F11 $\n")
    import argparse

    def run(*flags):
        p = argparse.ArgumentParser()
        add_arguments(p)
        assert main(p.parse_args([str(tmp_path / "p.p4"), str(tmp_path / "t.stf"), *flags])) == 0
        return capsys.readouterr().out

    out = run("-v")
    assert "add I.route" in out and "packet 7 0009080040" in out
    assert "    [ingress] table I.route: hit -> I.set_nh(nh=3, port=2)" in out
    assert out.index("packet 7") < out.index("[ingress] table") < out.index("-> port 2: 0009080007")
    out = run("--trace")  # packets and their traces, not the other commands
    assert "[ingress] table I.route" in out and "add I.route" not in out
    out = run("-v", "--no-trace")
    assert "add I.route" in out and "[ingress]" not in out
    assert "[ingress]" not in run()


LOOPING = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { INGRESS } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { EGRESS } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.mark.parametrize("ingress, egress, line", [
    ("resubmit_preserving_field_list(0);", "", "[ingress] packet dropped (already resubmitted 16 times: the limit per packet)"),
    ("", "recirculate_preserving_field_list(0);",
     "[egress] packet dropped (already recirculated 16 times: the limit per packet)"),
])
def test_a_packet_dropped_at_the_loop_limit_says_so(ingress, egress, line):
    # it vanished with nothing in the trace saying why
    sw = V1Switch(load_program_text(LOOPING.replace("INGRESS", ingress).replace("EGRESS", egress), "loop.p4"), trace=True)
    frames, text = lines(sw, 1, b"\x01")
    assert frames == [] and text[-1] == line
