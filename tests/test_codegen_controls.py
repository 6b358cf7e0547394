"""Code generation of controls: actions, functions, tables, switch, sub-controls, externs (registers,
counters, meters, hashes, checksums, digests) and P4 names that are Python keywords."""
from __future__ import annotations

import pytest
from codegen_util import PRELUDE, load, program, run_ingress

from emulator.target.switch import V1Switch

# ---------------------------------------------------------------------------------------------- actions & tables


def test_action_copy_in_copy_out_and_out_params():
    decls = """
        action inc(inout bit<8> v, in bit<8> by) { v = v + by; }
        action put(out bit<16> o) { o = 0xBEEF; }
        action noop_out(out bit<8> o) { }
    """
    body = "inc(h.data.a, 3); put(h.data.c); h.data.b = 5; noop_out(h.data.b);"
    r = run_ingress(body, decls=decls, data=(1, 0, 0, 0))
    assert r["a"] == 4 and r["c"] == 0xBEEF and r["b"] == 0  # out params start at 0


def test_composite_inout_argument_the_action_also_names_is_copied_out_over_its_writes():
    # copy-in/copy-out (P4-16 6.8): the action writes h directly, then the copy-out of `hs` (taken before the
    # write) overwrites it; an argument passed by reference would keep the write
    decls = """
        action via_global(inout headers hs) { h.data.a = 9; }
        action via_param(inout data_t d) { h.data.b = 7; d.c = 5; }
        action outer(inout headers hs) { via_global(h); hs.data.d = 6; }
    """
    r = run_ingress("via_global(h); via_param(h.data); outer(h);", decls=decls, data=(1, 2, 3, 4))
    assert (r["a"], r["b"], r["c"], r["d"]) == (1, 2, 5, 6)


def test_composite_inout_arguments_of_one_variable_are_copied_out_in_order():
    # two arguments that are parts of one variable: each is a copy; the later copy-out (the whole struct) wins
    decls = "action two(inout data_t d, inout headers hs) { d.a = 8; hs.data.b = 9; }"
    r = run_ingress("two(h.data, h);", decls=decls, data=(1, 2, 3, 4))
    assert (r["a"], r["b"]) == (1, 9)


def test_composite_inout_arguments_of_one_variable_in_a_function_call_are_copies():
    top = "void two(inout data_t d, inout headers hs) { d.a = 8; hs.data.b = 9; }"
    r = run_ingress("two(h.data, h);", toplevel=top, data=(1, 2, 3, 4))
    assert (r["a"], r["b"]) == (1, 9)


@pytest.mark.parametrize("how", ["action", "function"])
def test_a_composite_copy_and_a_scalar_out_of_one_variable_copy_out_left_to_right(how):
    # copy-out runs in argument order (6.8) whatever the kinds: `two(h.data, h.data.a)` ends with x (8) written
    # last, `three(h.data.a, h.data)` with the copy of d (a = 9) written last; the composite copies were once
    # written back after every scalar, so `two` gave 9
    body = "{ x = 8; d.a = 9; }"
    if how == "action":
        decls, top = f"action two(inout data_t d, inout bit<8> x) {body} action three(inout bit<8> x, inout data_t d) {body}", ""
    else:
        decls, top = "", f"void two(inout data_t d, inout bit<8> x) {body} void three(inout bit<8> x, inout data_t d) {body}"
    assert run_ingress("two(h.data, h.data.a);", decls=decls, toplevel=top, data=(1, 2, 3, 4))["a"] == 8
    assert run_ingress("three(h.data.a, h.data);", decls=decls, toplevel=top, data=(1, 2, 3, 4))["a"] == 9


def test_function_with_return_and_out_param():
    top = """
        bit<8> add3(in bit<8> x, out bit<8> twice) { twice = x + x; return x + 3; }
    """
    r = run_ingress("h.data.a = add3(h.data.a, h.data.b);", toplevel=top, data=(10, 0, 0, 0))
    assert r["a"] == 13 and r["b"] == 20


def test_exit_stops_control_but_keeps_changes():
    decls = "action bye() { h.data.a = 1; exit; }"
    r = run_ingress("h.data.b = 2; bye(); h.data.c = 3;", decls=decls, data=(0, 0, 0, 0))
    assert (r["a"], r["b"], r["c"], r["port"]) == (1, 2, 0, 1)


def test_table_hit_miss_and_action_run_switch():
    decls = """
        action seta(bit<8> v) { h.data.a = v; }
        action setb(bit<8> v) { h.data.b = v; }
        table t {
            key = { h.data.d : exact; }
            actions = { seta; setb; NoAction; }
            const entries = { 1 : seta(10); 2 : setb(20); }
            default_action = NoAction();
        }
    """
    body = """
        switch (t.apply().action_run) {
            seta: { h.data.c = 1; }
            setb: { h.data.c = 2; }
            default: { h.data.c = 3; }
        }
        if (t.apply().hit) { h.data.d = 100; }
    """
    if not load(program(body, decls)).info.tables:
        pytest.skip("the front end's ProgramInfo summary lists no tables yet")
    r = run_ingress(body, decls=decls, data=(0, 0, 0, 1))
    assert (r["a"], r["c"], r["d"]) == (10, 1, 100)
    r = run_ingress(body, decls=decls, data=(0, 0, 0, 2))
    assert (r["b"], r["c"], r["d"]) == (20, 2, 100)
    r = run_ingress(body, decls=decls, data=(0, 0, 0, 7))
    assert (r["c"], r["d"]) == (3, 7)


def test_switch_on_value_with_fallthrough_labels():
    body = """
        switch (h.data.a) {
            1:
            2: { h.data.b = 12; }
            3: { h.data.b = 3; }
            default: { h.data.b = 99; }
        }
    """
    assert run_ingress(body, data=(1, 0, 0, 0))["b"] == 12
    assert run_ingress(body, data=(2, 0, 0, 0))["b"] == 12
    assert run_ingress(body, data=(3, 0, 0, 0))["b"] == 3
    assert run_ingress(body, data=(4, 0, 0, 0))["b"] == 99


def test_enums_and_errors_are_ints():
    top = "enum Color { RED, GREEN, BLUE }  enum bit<8> Code { A = 5, B = 9 }"
    body = """
        Color c = Color.BLUE;
        if (c == Color.BLUE) { h.data.a = 1; }
        h.data.b = (bit<8>)Code.B;
        if (sm.parser_error == error.NoError) { h.data.c = 1; }
    """
    r = run_ingress(body, toplevel=top)
    assert (r["a"], r["b"], r["c"]) == (1, 9, 1)


def test_sub_control_with_constructor_args_and_copy_out():
    top = """
    control Add(inout bit<8> v, in bit<8> extra)(bit<8> k) {
        action bump() { v = v + k; }
        apply { bump(); v = v + extra; }
    }
    control Leave(inout bit<8> v) {
        apply { v = 42; exit; }
    }
    """
    decls = "Add(8w10) add10; Add(8w100) add100; Leave() leave;"
    body = "add10.apply(h.data.a, 1); add100.apply(h.data.b, 2); leave.apply(h.data.c[7:0]); h.data.d = 1;"
    # the second instance has its own constructor constant; exit inside a sub-control still copies out
    # (`v = 42` reaches h.data.c) and ends the whole ingress (h.data.d unchanged)
    r = run_ingress(body, decls=decls, toplevel=top, data=(1, 2, 0xFF00, 7))
    assert (r["a"], r["b"], r["c"], r["d"]) == (12, 104, 0xFF2A, 7)


def test_generated_source_is_inspectable():
    sw = V1Switch(load(program("h.data.a = 1;")))
    assert "def run_ingress" in sw.source and "def S0_start" in sw.source


def test_p4_names_that_are_python_keywords():
    # fields, union members, a @field_list field, locals, parameters, states, tables, externs named like
    # Python keywords (valid P4 names) must compile and behave
    src = PRELUDE.replace("struct headers { data_t data; extra_t extra; }", "") + """
header class_t { bit<8> pass; bit<8> lambda; bit<8> None; }
header_union u_t { class_t def; class_t import; }
struct headers { class_t class; u_t with; }
struct meta_t { @field_list(0) bit<8> yield; bit<8> global; }
bit<8> async(in bit<8> await, inout bit<8> nonlocal) { nonlocal = nonlocal + 1; return await + 1; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.class); transition try; }
    state try { pkt.extract(hdr.with.def); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) del;
    action raise(bit<8> is) { hdr.class.lambda = is; }
    table finally { key = { hdr.class.None: exact; } actions = { raise; } default_action = raise(0x22); }
    apply {
        bit<8> elif = 3;
        hdr.class.pass = async(hdr.class.pass, elif) + elif;
        finally.apply();
        del.write(0, hdr.class.None);
        del.read(meta.global, 0);
        hdr.with.import = hdr.with.def;
        hdr.with.import.pass = meta.global;
        meta.yield = 1;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
    sw = V1Switch(load(src))
    out = sw.process(0, bytes([1, 2, 7, 0xAA, 0xBB, 0xCC]))
    # pass = async(1) + 4 = 6; lambda from the default action; the union's import member replaces def
    assert out == [(1, bytes([6, 0x22, 7, 7, 0xBB, 0xCC]))]


# ---------------------------------------------------------------------------------------------- externs


def test_register_counter_extern_calls():
    decls = "register<bit<16>>(4) r; counter(4, CounterType.packets) cnt;"
    body = "bit<16> v; r.read(v, 1); v = v + 5; r.write(1, v); h.data.c = v; cnt.count(2);"
    src = program(body, decls)
    sw = V1Switch(load(src))
    pkt = bytes(8)
    assert int.from_bytes(sw.process(0, pkt)[0][1][2:4], "big") == 5
    assert int.from_bytes(sw.process(0, pkt)[0][1][2:4], "big") == 10
    cnt = sw.extern("I.cnt")
    assert cnt.packets[2] == 2


def test_hash_extern_matches_hashing_module():
    from emulator.target import hashing

    body = "hash(h.data.c, HashAlgorithm.crc16, 16w0, { h.data.a, h.data.b }, 32w65536);"
    r = run_ingress(body, data=(0x12, 0x34, 0, 0))
    assert r["c"] == hashing.compute("crc16", [(0x12, 8), (0x34, 8)])


def test_update_checksum_with_payload_and_verify():
    src = PRELUDE + """
    struct meta_t { bit<8> m; }
    parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
        state start { pkt.extract(h.data); transition accept; }
    }
    control VC(inout headers h, inout meta_t meta) {
        apply { verify_checksum(true, { h.data.a, h.data.b }, h.data.c, HashAlgorithm.csum16); }
    }
    control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
        apply { sm.egress_spec = 1; h.data.d = (bit<32>)sm.checksum_error; }
    }
    control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
    control CC(inout headers h, inout meta_t meta) {
        apply { update_checksum_with_payload(h.data.a == 1, { h.data.a, h.data.b }, h.data.c, HashAlgorithm.csum16); }
    }
    control D(packet_out pkt, in headers h) { apply { pkt.emit(h.data); } }
    V1Switch(P(), VC(), I(), E(), CC(), D()) main;
    """
    from emulator.target import hashing

    sw = V1Switch(load(src))
    good = hashing.csum16(bytes([1, 2]))
    out = sw.process(0, bytes([1, 2]) + good.to_bytes(2, "big") + bytes(4) + b"\x10\x20")[0][1]
    assert out[4:8] == bytes(4)  # checksum ok
    assert int.from_bytes(out[2:4], "big") == hashing.csum16(bytes([1, 2]) + b"\x10\x20")
    out = sw.process(0, bytes([2, 2]) + b"\x00\x00" + bytes(4))[0][1]
    assert out[4:8] == bytes([0, 0, 0, 1]) and out[2:4] == b"\x00\x00"  # bad checksum flagged, not updated


def test_direct_counter_and_direct_meter_on_table():
    decls = """
        direct_counter(CounterType.packets_and_bytes) dc;
        direct_meter<bit<8>>(MeterType.packets) dm;
        action hit_it() { dm.read(meta.m8); }
        table t {
            key = { h.data.a : exact; }
            actions = { hit_it; NoAction; }
            default_action = NoAction();
            counters = dc;
            meters = dm;
        }
    """
    body = "meta.m8 = 9; t.apply(); h.data.b = meta.m8;"
    sw = V1Switch(load(program(body, decls)))
    tbl = sw.tables["I.t"]
    tbl.add_entry([5], "I.hit_it", [])
    entry = next(iter(tbl.entries_by_handle.values()))
    # 1 packet/us committed and peak rate, bursts of 1 packet: the 2nd packet in the same microsecond is RED
    from emulator.target.externs import DirectMeter

    DirectMeter.set_rates(entry, [(1.0, 1), (1.0, 1)], 0)
    p = bytes([5]) + bytes(7)
    out1 = sw.process(0, p, now_ns=1000)[0][1]
    out2 = sw.process(0, p, now_ns=1000)[0][1]
    assert out1[1] == 0 and out2[1] == 2  # GREEN then RED
    sw.process(0, bytes([6]) + bytes(7))  # a miss is not counted
    assert entry.counter[0] == 2 and entry.counter[1] == 16


def test_indirect_meter_and_checksum16():
    decls = "meter(4, MeterType.bytes) mt; Checksum16() ck;"
    body = "mt.execute_meter(32w1, h.data.a); h.data.c = ck.get({ h.data.b, 8w0 });"
    sw = V1Switch(load(program(body, decls)))
    sw.extern("I.mt").set_rates(1, [(0.0, 8), (0.0, 8)])  # 8-byte buckets, no refill
    first = sw.process(0, bytes([0, 0x12]) + bytes(6))[0][1]
    second = sw.process(0, bytes([0, 0x12]) + bytes(6))[0][1]
    from emulator.target import hashing

    assert first[0] == 0 and second[0] == 2
    assert int.from_bytes(first[2:4], "big") == hashing.csum16(b"\x12\x00")


def test_digest_collected_by_process_and_old_style_clone3_resubmit():
    top = "struct d_t { bit<8> a; bit<16> c; }"
    body = """
        digest<d_t>(1, { h.data.a, h.data.c });
        if (sm.instance_type == 0) { meta.m8 = 3; meta.m16 = 4; resubmit({ meta.m8 }); }
        else { h.data.b = meta.m8; h.data.d = (bit<32>)meta.m16; }
    """
    sw = V1Switch(load(program(body, toplevel=top)))
    out = sw.process(0, bytes([7, 0, 0, 9]) + bytes(4))
    assert out[0][1][1] == 3 and out[0][1][4:8] == bytes(4)  # m8 preserved, m16 reset by the resubmit
    assert sw.last_digests == [("d_t", (7, 9)), ("d_t", (7, 9))]

