"""Code generation semantics: small P4 programs run through V1Switch.process, checked on the bytes out."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.switch import V1Switch


def load(src: str):
    from emulator.p4.frontend import load_program_text

    return load_program_text(src, "<test>")


PRELUDE = """
#include <core.p4>
#include <v1model.p4>
header data_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }
header extra_t { bit<8> x; }
struct headers { data_t data; extra_t extra; }
"""

TEMPLATE = PRELUDE + """
struct meta_t { bit<8> m8; bit<16> m16; bool flag; }
$TOP
parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(h.data); transition accept; }
}
control VC(inout headers h, inout meta_t meta) { apply {} }
control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    $DECLS
    apply {
        sm.egress_spec = 1;
        $BODY
    }
}
control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.data); pkt.emit(h.extra); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program(body: str = "", decls: str = "", toplevel: str = "") -> str:
    return TEMPLATE.replace("$TOP", toplevel).replace("$DECLS", decls).replace("$BODY", body)


def run_ingress(body: str, data=(1, 2, 3, 4), decls: str = "", toplevel: str = "", payload: bytes = b"") -> dict:
    """Run `body` in ingress on a data_t header (a, b, c, d) and return the fields of the packet out."""
    sw = V1Switch(load(program(body, decls, toplevel)))
    a, b, c, d = data
    pkt = bytes([a, b]) + c.to_bytes(2, "big") + d.to_bytes(4, "big") + payload
    out = sw.process(0, pkt)
    assert len(out) == 1, out
    port, frame = out[0]
    return {"port": port, "a": frame[0], "b": frame[1], "c": int.from_bytes(frame[2:4], "big"),
            "d": int.from_bytes(frame[4:8], "big"), "rest": frame[8:]}


# ----------------------------------------------------------------------------------------------- arithmetic

def test_bit_arithmetic_wraps_modulo_width():
    r = run_ingress("h.data.a = h.data.a + 8w250; h.data.b = h.data.b - 8w5; h.data.c = h.data.c * 16w30000;",
                    data=(10, 3, 7, 0))
    assert r["a"] == (10 + 250) % 256 and r["b"] == (3 - 5) % 256 and r["c"] == (7 * 30000) % 65536


def test_signed_arithmetic_wraps_twos_complement():
    body = """
        int<8> x = 127;
        x = x + 1;                      // -128
        h.data.a = (bit<8>)x;
        int<8> y = -128;
        y = y - 1;                      // 127
        h.data.b = (bit<8>)y;
        int<8> z = -3;
        h.data.c = (bit<16>)(bit<8>)z;  // 0x00fd
        h.data.d = (bit<32>)(int<32>)z; // sign extension
    """
    r = run_ingress(body)
    assert (r["a"], r["b"], r["c"], r["d"]) == (0x80, 127, 0xFD, 0xFFFFFFFD)


def test_saturating_operators():
    body = """
        h.data.a = h.data.a |+| 8w100;
        h.data.b = h.data.b |-| 8w9;
        int<8> s = 100; s = s |+| 100; h.data.c = (bit<16>)(bit<8>)s;
        int<8> t = -100; t = t |-| 100; h.data.d = (bit<32>)(bit<8>)t;
    """
    r = run_ingress(body, data=(200, 5, 0, 0))
    assert (r["a"], r["b"], r["c"], r["d"]) == (255, 0, 127, 0x80)


def test_shifts_by_width_or_more_give_zero_or_sign_fill():
    body = """
        bit<8> n = h.data.b;            // 9 at run time
        h.data.a = h.data.a << n;       // 0
        h.data.c = h.data.c >> 16w3;
        int<8> s = -64;
        s = s >> 3;                     // -8 (sign fill)
        h.data.b = (bit<8>)s;
        int<8> u = -1;
        u = u >> 100;
        h.data.d = (bit<32>)(bit<8>)u;  // still -1
    """
    r = run_ingress(body, data=(0xFF, 9, 0x80, 0))
    assert (r["a"], r["b"], r["c"], r["d"]) == (0, 0xF8, 0x10, 0xFF)


def test_left_shift_keeps_width():
    r = run_ingress("h.data.a = h.data.a << 4; h.data.c = h.data.c << 8w15;", data=(0x3C, 0, 3, 0))
    assert r["a"] == 0xC0 and r["c"] == 0x8000


def test_division_modulo_and_bitwise():
    r = run_ingress("h.data.a = h.data.a / 8w7; h.data.b = h.data.b % 8w7; h.data.c = ~h.data.c;"
                    " h.data.d = (h.data.d & 0xF0F0) | 0x1 ^ 0x3;", data=(100, 100, 0x00FF, 0xFFFF))
    assert r["a"] == 14 and r["b"] == 2 and r["c"] == 0xFF00 and r["d"] == (0xF0F0 | (0x1 ^ 0x3))


def test_unary_minus_on_bits():
    r = run_ingress("h.data.a = -h.data.a;", data=(1, 0, 0, 0))
    assert r["a"] == 255


def test_slices_read_and_write():
    body = """
        h.data.a = h.data.d[15:8];
        h.data.c[11:4] = 8w0xAB;
        h.data.b[0:0] = 1;
    """
    r = run_ingress(body, data=(0, 0x10, 0xF00F, 0x12345678))
    assert r["a"] == 0x56 and r["c"] == 0xFABF and r["b"] == 0x11


def test_concatenation_and_casts():
    body = """
        h.data.c = h.data.a ++ h.data.b;
        h.data.d = (bit<32>)(h.data.a ++ 4w0xF);
        h.data.a = (bit<8>)h.data.d;        // truncation
        bool t = (bool)1w1;
        if (t) { h.data.b = (bit<8>)(bit<1>)t + 1; }
    """
    r = run_ingress(body, data=(0x12, 0x34, 0, 0))
    assert r["c"] == 0x1234 and r["d"] == 0x12F and r["a"] == 0x2F and r["b"] == 2


def test_bool_short_circuit_and_comparisons():
    body = """
        if (h.extra.isValid() && h.extra.x == 1) { h.data.a = 1; } else { h.data.a = 2; }
        if (h.data.b > 5 || h.data.b == 0) { h.data.b = 9; }
        int<8> s = -1;
        if (s < 0) { h.data.c = 1; }
        h.data.d = h.data.d >= 32w4 ? 32w1 : 32w0;
    """
    r = run_ingress(body, data=(0, 6, 0, 4))
    assert (r["a"], r["b"], r["c"], r["d"]) == (2, 9, 1, 1)


# ----------------------------------------------------------------------------------------------- headers

def test_header_validity_set_and_emit():
    r = run_ingress("h.extra.setValid(); h.extra.x = 0x77; h.data.setInvalid(); h.data.setValid();")
    assert r["rest"] == b"\x77"


def test_invalid_header_reads_zero_and_set_valid_resets_fields():
    body = """
        h.data.a = h.extra.x;           // extra never extracted: 0
        h.extra.x = 5;                  // write to an invalid header
        h.extra.setValid();             // BMv2's add_header: invalid -> valid resets every field to 0
        h.data.b = h.extra.x;
        h.extra.x = h.extra.x + 7;
        h.extra.setValid();             // already valid: no change
    """
    r = run_ingress(body, data=(9, 0, 0, 0))
    assert r["a"] == 0 and r["b"] == 0 and r["rest"] == b"\x07"


def test_header_assignment_copies_and_struct_initializers():
    decls = "data_t tmp;"
    body = """
        tmp = h.data;
        tmp.a = 99;                     // does not touch h.data
        h.data.b = tmp.a;
        data_t lit = { 1, 2, 3, 4 };
        h.data.d = lit.d + (bit<32>)lit.c;
        h.extra = { 0x42 };
        meta.m8 = 7;
        meta_t mm = meta;
        mm.m8 = 8;
        h.data.c = (bit<16>)meta.m8;
    """
    r = run_ingress(body, decls=decls, data=(5, 0, 0, 0))
    assert (r["a"], r["b"], r["c"], r["d"]) == (5, 99, 7, 7)
    assert r["rest"] == b"\x42"


def test_header_equality():
    body = """
        data_t x = h.data;
        if (x == h.data) { h.data.a = 1; }
        x.b = x.b + 1;
        if (x != h.data) { h.data.b = 1; }
    """
    r = run_ingress(body, data=(0, 0, 0, 0))
    assert r["a"] == 1 and r["b"] == 1


# ----------------------------------------------------------------------------------------------- actions & tables

def test_action_copy_in_copy_out_and_out_params():
    decls = """
        action inc(inout bit<8> v, in bit<8> by) { v = v + by; }
        action put(out bit<16> o) { o = 0xBEEF; }
        action noop_out(out bit<8> o) { }
    """
    body = "inc(h.data.a, 3); put(h.data.c); h.data.b = 5; noop_out(h.data.b);"
    r = run_ingress(body, decls=decls, data=(1, 0, 0, 0))
    assert r["a"] == 4 and r["c"] == 0xBEEF and r["b"] == 0  # out params start at 0


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


def test_generated_source_is_inspectable():
    sw = V1Switch(load(program("h.data.a = 1;")))
    assert "def run_ingress" in sw.source and "def S0_start" in sw.source


@pytest.mark.parametrize("a,b", [(0, 0), (255, 1), (128, 128)])
def test_add_matches_reference(a, b):
    r = run_ingress("h.data.a = h.data.a + h.data.b;", data=(a, b, 0, 0))
    assert r["a"] == (a + b) & 0xFF


# ----------------------------------------------------------------------------------------------- parsers

PARSER_PROG = PRELUDE + """
header len_t { bit<8> n; }
header item_t { bit<8> v; }
header opt_t { bit<8> kind; bit<8> len; varbit<32> data; }
struct headers2 { data_t data; len_t l; item_t[3] items; opt_t opt; extra_t tail; }
struct meta_t { bit<8> seen; bit<8> la; }
error { MyError }
$TOP
parser P(packet_in pkt, out headers2 h, inout meta_t meta, inout standard_metadata_t sm) {
    $PLOCALS
    state start {
        $START
    }
    $STATES
}
control VC(inout headers2 h, inout meta_t meta) { apply {} }
control I(inout headers2 h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        h.tail.setValid();
        if (sm.parser_error == error.PacketTooShort) { h.tail.x = 1; }
        else if (sm.parser_error == error.NoMatch) { h.tail.x = 2; }
        else if (sm.parser_error == error.StackOutOfBounds) { h.tail.x = 3; }
        else if (sm.parser_error == error.HeaderTooShort) { h.tail.x = 4; }
        else if (sm.parser_error == error.MyError) { h.tail.x = 0x77; }
        else if (sm.parser_error != error.NoError) { h.tail.x = 0xFF; }
        $IBODY
    }
}
control E(inout headers2 h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers2 h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers2 h) {
    apply { pkt.emit(h.data); pkt.emit(h.l); pkt.emit(h.items); pkt.emit(h.opt); pkt.emit(h.tail); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def run_parser(start: str, states: str, pkt: bytes, plocals: str = "", ibody: str = "", top: str = ""):
    src = (PARSER_PROG.replace("$START", start).replace("$STATES", states).replace("$PLOCALS", plocals)
           .replace("$IBODY", ibody).replace("$TOP", top))
    sw = V1Switch(load(src))
    out = sw.process(0, pkt)
    assert len(out) == 1
    frame = out[0][1]
    return frame, sw


def test_parser_error_codes_and_payload_kept():
    # too short: PacketTooShort = 1, the packet still goes through ingress; nothing was extracted
    frame, _ = run_parser("pkt.extract(h.data); transition accept;", "", b"\x01\x02\x03")
    assert frame == bytes([1]) + b"\x01\x02\x03"  # tail (parser_error) emitted first, payload after
    frame, _ = run_parser("pkt.extract(h.data); transition accept;", "", bytes(8) + b"PAY")
    assert frame == bytes(8) + b"\x00" + b"PAY"


def test_select_masks_ranges_default_and_no_match():
    states = """
    state s2 {
        transition select(h.data.a, h.data.b) {
            (8w0x10 &&& 8w0xF0, _): one;
            (8w0x20 .. 8w0x2F, 8w1): two;
            (8w0x30, default): three;
        }
    }
    state one { h.l.setValid(); h.l.n = 1; transition accept; }
    state two { h.l.setValid(); h.l.n = 2; transition accept; }
    state three { h.l.setValid(); h.l.n = 3; transition accept; }
    """
    start = "pkt.extract(h.data); transition s2;"
    def n_of(a, b):
        frame, _ = run_parser(start, states, bytes([a, b]) + bytes(6))
        return frame[8:]
    assert n_of(0x17, 9) == bytes([1, 0])
    assert n_of(0x25, 1) == bytes([2, 0])
    assert n_of(0x25, 2) == bytes([2])  # no match: error.NoMatch (2) in tail, l invalid
    assert n_of(0x30, 7) == bytes([3, 0])


def test_transition_reject_and_verify_errors():
    # an explicit `transition reject` (no verify) ends parsing like accept, parser_error stays NoError: p4c's
    # BMv2 back end emits it as next_state null ("Explicit transition to reject not supported on this target")
    frame, _ = run_parser("pkt.extract(h.data); transition reject;", "", bytes(8) + b"P")
    assert frame == bytes(8) + bytes([0]) + b"P"
    frame, _ = run_parser("pkt.extract(h.data); transition select(h.data.a) { 1: accept; default: reject; }", "",
                          bytes(8))
    assert frame[8:] == bytes([0])
    frame, sw = run_parser("pkt.extract(h.data); verify(h.data.a == 1, error.MyError); transition accept;", "",
                           bytes(8))
    assert frame[8] == 0x77 and sw.compiled.errors["MyError"] == 7


def test_header_stack_extract_next_last_and_overflow():
    states = """
    state items {
        pkt.extract(h.items.next);
        meta.seen = meta.seen + 1;
        transition select(h.items.last.v) { 0: accept; default: items; }
    }
    """
    start = "pkt.extract(h.data); transition items;"
    frame, _ = run_parser(start, states, bytes(8) + bytes([5, 6, 0]) + b"P")
    assert frame == bytes(8) + bytes([5, 6, 0]) + bytes([0]) + b"P"
    # four non-zero items overflow the 3-element stack: StackOutOfBounds (3), 3 items kept
    frame, _ = run_parser(start, states, bytes(8) + bytes([5, 6, 7, 8]) + b"P")
    assert frame == bytes(8) + bytes([5, 6, 7]) + bytes([3]) + bytes([8]) + b"P"


def test_stack_ops_in_control_and_out_of_range_index():
    states = "state items { pkt.extract(h.items.next); pkt.extract(h.items.next); transition accept; }"
    ibody = """
        h.items.push_front(1);
        h.items[0].setValid();
        h.items[0].v = 9;
        bit<32> i = 2;
        h.items[i].v = 1;      // run-time index in range
        h.l.setValid();
        h.l.n = h.items[i].v;
    """
    frame, _ = run_parser("pkt.extract(h.data); transition items;", states, bytes(8) + bytes([1, 2]), ibody=ibody)
    assert frame == bytes(8) + bytes([1]) + bytes([9, 1, 1]) + bytes([0])
    # out of range (as p4c's BMv2 samples expect): the write is lost, a read gives 0, the packet goes on
    ibody_oob = """
        bit<32> i = 7;
        h.items[i].v = 1;
        h.l.setValid();
        h.l.n = h.items[i].v + 4;
    """
    frame, _ = run_parser("pkt.extract(h.data); transition items;", states, bytes(8) + bytes([1, 2]), ibody=ibody_oob)
    assert frame == bytes(8) + bytes([4]) + bytes([1, 2]) + bytes([0])
    ibody2 = "h.items.pop_front(1);"
    frame, _ = run_parser("pkt.extract(h.data); transition items;", states, bytes(8) + bytes([1, 2]), ibody=ibody2)
    assert frame == bytes(8) + bytes([2]) + bytes([0])


def test_lookahead_advance_and_varbit():
    states = """
    state opt {
        meta.la = pkt.lookahead<bit<8>>();
        pkt.advance(8);
        pkt.extract(h.l);
        pkt.extract(h.opt, (bit<32>)h.l.n * 8);
        transition accept;
    }
    """
    # data(8) | skipped byte | l.n=2 | opt.kind, opt.len, 2 data bytes ... wait: opt has kind/len then varbit
    pkt = bytes(8) + b"\xEE" + b"\x02" + b"\x0A\x0B" + b"\xCC\xDD" + b"P"
    frame, _ = run_parser("pkt.extract(h.data); transition opt;", states, pkt,
                          ibody="h.data.a = meta.la;")
    assert frame == bytes([0xEE]) + bytes(7) + b"\x02" + b"\x0A\x0B\xCC\xDD" + b"\x00" + b"P"


def test_value_set_in_select():
    states = """
    state s2 { transition select(h.data.a) { vs: one; default: accept; } }
    state one { h.l.setValid(); h.l.n = 1; transition accept; }
    """
    src = (PARSER_PROG.replace("$START", "pkt.extract(h.data); transition s2;").replace("$STATES", states)
           .replace("$PLOCALS", "value_set<bit<8>>(4) vs;").replace("$IBODY", "").replace("$TOP", ""))
    sw = V1Switch(load(src))
    vs = next(iter(sw.value_sets.values())) if sw.value_sets else None
    if vs is None:
        from emulator.target.codegen import ValueSetRuntime

        vs = next(o for o in sw.compiled.namespace.values() if isinstance(o, ValueSetRuntime))
    assert sw.process(0, bytes([7]) + bytes(7))[0][1][8:] == b"\x00"
    vs.add(7)
    assert sw.process(0, bytes([7]) + bytes(7))[0][1][8:] == b"\x01\x00"


def test_extract_into_dont_care_skips_the_header():
    states = "state s2 { pkt.extract<len_t>(_); pkt.extract(h.l); transition accept; }"
    frame, _ = run_parser("pkt.extract(h.data); transition s2;", states, bytes(8) + b"\x05\x07P")
    assert frame == bytes(8) + b"\x07" + b"\x00" + b"P"  # len_t 05 skipped, 07 extracted; tail x=0
    frame, _ = run_parser("pkt.extract(h.data); transition s2;", states, bytes(8))
    assert frame == bytes(8) + b"\x01"  # too short to skip: PacketTooShort


def test_extract_into_next_member_of_a_header_union_stack():
    src = PRELUDE.replace("struct headers { data_t data; extra_t extra; }", "") + """
header a_t { bit<8> kind; }
header b_t { bit<8> kind; bit<8> y; }
header_union ab_t { a_t a; b_t b; }
struct headers { ab_t[2] s; }
struct meta_t { }
parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { transition select(pkt.lookahead<bit<8>>()) { 1: ea; 2: eb; default: accept; } }
    state ea { pkt.extract(h.s.next.a); transition start; }
    state eb { pkt.extract(h.s.next.b); transition start; }
}
control VC(inout headers h, inout meta_t meta) { apply { } }
control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
    sw = V1Switch(load(src))
    # each extract fills the next element, then moves on; a third element is out of bounds (kept as payload)
    assert sw.process(0, bytes([2, 9, 1, 1, 7])) == [(1, bytes([2, 9, 1, 1, 7]))]
    assert sw.process(0, bytes([1, 2, 9, 5])) == [(1, bytes([1, 2, 9, 5]))]


def test_self_assignment_of_composites_keeps_their_values():
    # `sm = sm`, `h.data = h.data`, `meta = meta`: assigning a value to itself changes nothing
    frame, _ = run_parser("pkt.extract(h.data); transition accept;", "", bytes([5, 6, 0, 7]) + bytes(4),
                          ibody="sm = sm; h.data = h.data; meta = meta; h.data.a = h.data.a + 1;")
    assert frame[:4] == bytes([6, 6, 0, 7])


def test_struct_value_set_matches_a_tuple_select_given_as_one_integer():
    # a control plane that does not know the struct layout writes the fields back to back (16 + 8 bits here)
    top = "struct pair_t { bit<8> a; bit<8> n; }"
    states = """
    state s2 { pkt.extract(h.l); transition select(h.data.a, h.l.n) { vs: one; default: accept; } }
    state one { h.items[0].setValid(); h.items[0].v = 9; transition accept; }
    """
    src = (PARSER_PROG.replace("$START", "pkt.extract(h.data); transition s2;").replace("$STATES", states)
           .replace("$PLOCALS", "value_set<pair_t>(4) vs;").replace("$IBODY", "").replace("$TOP", top))
    sw = V1Switch(load(src))
    (vs,) = sw.value_sets.values()
    vs.add(0x0705)  # a=7, n=5
    vs.add(0x3000, 0xF000)  # a=0x3?, any n
    out = lambda a, n: sw.process(0, bytes([a]) + bytes(7) + bytes([n]))[0][1][8:]  # noqa: E731
    assert out(7, 5) == b"\x05\x09\x00"
    assert out(7, 6) == b"\x06\x00"
    assert out(0x3C, 0xEE) == b"\xee\x09\x00"


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


# ----------------------------------------------------------------------------------------------- sub-blocks, unions

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


def test_header_union_setvalid_invalidates_other_member():
    src = PRELUDE + """
    header a_t { bit<8> x; }
    header b_t { bit<16> y; }
    header_union u_t { a_t a; b_t b; }
    struct hs { data_t data; u_t u; }
    struct meta_t { bit<8> m; }
    parser P(packet_in pkt, out hs h, inout meta_t meta, inout standard_metadata_t sm) {
        state start { pkt.extract(h.data); transition select(h.data.a) { 1: pa; default: pb; } }
        state pa { pkt.extract(h.u.a); transition accept; }
        state pb { pkt.extract(h.u.b); transition accept; }
    }
    control VC(inout hs h, inout meta_t meta) { apply {} }
    control I(inout hs h, inout meta_t meta, inout standard_metadata_t sm) {
        apply {
            sm.egress_spec = 1;
            if (h.data.b == 1) { h.u.b.setValid(); h.u.b.y = 0xBBBB; }
            if (h.u.isValid()) { h.data.c = 1; }
        }
    }
    control E(inout hs h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
    control CC(inout hs h, inout meta_t meta) { apply {} }
    control D(packet_out pkt, in hs h) { apply { pkt.emit(h.data); pkt.emit(h.u); } }
    V1Switch(P(), VC(), I(), E(), CC(), D()) main;
    """
    sw = V1Switch(load(src))
    base = bytes([1, 0, 0, 0]) + bytes(4)
    assert sw.process(0, base + b"\x11P")[0][1] == bytes([1, 0, 0, 1]) + bytes(4) + b"\x11P"
    # a was extracted, then b made valid: a is invalidated and only b is emitted
    out = sw.process(0, bytes([1, 1, 0, 0]) + bytes(4) + b"\x11P")[0][1]
    assert out == bytes([1, 1, 0, 1]) + bytes(4) + b"\xbb\xbbP"


def test_sub_parser_apply():
    src = PRELUDE + """
    struct meta_t { bit<8> m; }
    parser Sub(packet_in pkt, inout headers h, inout bit<8> seen) {
        state start { pkt.extract(h.extra); seen = h.extra.x + 1; transition accept; }
    }
    parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
        Sub() sub;
        state start { pkt.extract(h.data); sub.apply(pkt, h, meta.m); transition accept; }
    }
    control VC(inout headers h, inout meta_t meta) { apply {} }
    control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
        apply { sm.egress_spec = 1; h.data.a = meta.m; }
    }
    control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
    control CC(inout headers h, inout meta_t meta) { apply {} }
    control D(packet_out pkt, in headers h) { apply { pkt.emit(h); } }
    V1Switch(P(), VC(), I(), E(), CC(), D()) main;
    """
    sw = V1Switch(load(src))
    out = sw.process(0, bytes(8) + b"\x05rest")[0][1]
    assert out == bytes([6]) + bytes(7) + b"\x05rest"  # emit of a struct emits its headers in order


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


# ----------------------------------------------------------------------------------------------- stateful externs

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


# ----------------------------------------------------------------------------------------------- property test

OPS_PROG = """
#include <core.p4>
#include <v1model.p4>
header in_t { bit<8> a; bit<8> b; }
header out_t {
    bit<8> add; bit<8> sub; bit<8> mul; bit<8> band; bit<8> bor; bit<8> bxor; bit<8> shl; bit<8> shr;
    bit<8> sadd; bit<8> ssub; bit<8> div; bit<8> mod; bit<8> neg; bit<8> inv;
    bit<8> s_add; bit<8> s_sub; bit<8> s_mul; bit<8> s_shr; bit<8> s_shl; bit<8> s_sadd; bit<8> s_ssub;
    bit<8> s_neg; bit<8> s_inv; bit<16> cat; bit<8> sl; bit<8> lt; bit<8> slt; bit<16> sext;
}
struct hs { in_t i; out_t o; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out hs h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(h.i); transition accept; }
}
control VC(inout hs h, inout meta_t meta) { apply {} }
control I(inout hs h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<8> a = h.i.a;
        bit<8> b = h.i.b;
        int<8> x = (int<8>)a;
        int<8> y = (int<8>)b;
        h.o.setValid();
        h.o.add = a + b; h.o.sub = a - b; h.o.mul = a * b;
        h.o.band = a & b; h.o.bor = a | b; h.o.bxor = a ^ b;
        h.o.shl = a << b; h.o.shr = a >> b;
        h.o.sadd = a |+| b; h.o.ssub = a |-| b;
        if (b != 0) { h.o.div = a / b; h.o.mod = a % b; }
        h.o.neg = -a; h.o.inv = ~a;
        h.o.s_add = (bit<8>)(x + y); h.o.s_sub = (bit<8>)(x - y); h.o.s_mul = (bit<8>)(x * y);
        h.o.s_shr = (bit<8>)(x >> b); h.o.s_shl = (bit<8>)(x << b);
        h.o.s_sadd = (bit<8>)(x |+| y); h.o.s_ssub = (bit<8>)(x |-| y);
        h.o.s_neg = (bit<8>)(-x); h.o.s_inv = (bit<8>)(~x);
        h.o.cat = a ++ b; h.o.sl = (a ++ b)[11:4];
        h.o.lt = (a < b) ? 8w1 : 8w0; h.o.slt = (x < y) ? 8w1 : 8w0;
        h.o.sext = (bit<16>)(int<16>)x;
    }
}
control E(inout hs h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout hs h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in hs h) { apply { pkt.emit(h.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
OPS_FIELDS = ["add", "sub", "mul", "band", "bor", "bxor", "shl", "shr", "sadd", "ssub", "div", "mod", "neg", "inv",
              "s_add", "s_sub", "s_mul", "s_shr", "s_shl", "s_sadd", "s_ssub", "s_neg", "s_inv", "cat", "sl", "lt",
              "slt", "sext"]
_ops_switch: list = []


def _reference(a: int, b: int) -> dict:
    """What the P4 spec says, computed with the front end's constant folder (an independent implementation)."""
    from emulator.p4 import constfold as cf
    from emulator.p4.types import Bits

    u8, s8 = Bits(8), Bits(8, True)
    x, y = cf.wrap(a, s8), cf.wrap(b, s8)
    r = {op: cf.binop(sym, a, b, u8) for op, sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("band", "&"),
                                                      ("bor", "|"), ("bxor", "^"), ("shl", "<<"), ("shr", ">>"),
                                                      ("sadd", "|+|"), ("ssub", "|-|"))}
    r["div"], r["mod"] = (a // b, a % b) if b else (0, 0)
    r["neg"], r["inv"] = cf.unop("-", a, u8), cf.unop("~", a, u8)
    for op, sym in (("s_add", "+"), ("s_sub", "-"), ("s_mul", "*"), ("s_sadd", "|+|"), ("s_ssub", "|-|")):
        r[op] = cf.wrap(cf.binop(sym, x, y, s8), u8)
    r["s_shr"] = cf.wrap(cf.binop(">>", x, b, s8), u8)
    r["s_shl"] = cf.wrap(cf.binop("<<", x, b, s8), u8)
    r["s_neg"], r["s_inv"] = cf.wrap(cf.unop("-", x, s8), u8), cf.wrap(cf.unop("~", x, s8), u8)
    r["cat"] = cf.concat(a, u8, b, u8)
    r["sl"] = cf.slice_bits(r["cat"], 11, 4)
    r["lt"], r["slt"] = int(a < b), int(x < y)
    r["sext"] = cf.wrap(x, Bits(16))
    return r


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 255), st.integers(0, 255))
def test_operators_match_constant_folder(a, b):
    if not _ops_switch:
        _ops_switch.append(V1Switch(load(OPS_PROG)))
    frame = _ops_switch[0].process(0, bytes([a, b]))[0][1]
    got = {}
    off = 0
    for name in OPS_FIELDS:
        n = 2 if name in ("cat", "sext") else 1
        got[name] = int.from_bytes(frame[off:off + n], "big")
        off += n
    assert got == _reference(a, b)


def test_tuples_struct_equality_and_nested_structs():
    top = "struct pair_t { bit<8> x; bit<8> y; }  struct outer_t { pair_t p; bit<8> z; }"
    body = """
        tuple<bit<8>, bit<16>> t = { h.data.a, 16w0x1234 };
        h.data.c = t[1];
        outer_t o = { { 1, 2 }, 3 };
        outer_t q = o;
        q.p.y = 9;
        if (o != q) { h.data.b = o.p.y + q.p.y + o.z; }
        pair_t pp = { x = 4, y = 5 };
        if (pp == { 8w4, 8w5 }) { h.data.d = 1; }
    """
    r = run_ingress(body, toplevel=top, data=(7, 0, 0, 0))
    assert (r["b"], r["c"], r["d"]) == (14, 0x1234, 1)


def test_short_circuit_and_mux_evaluate_side_effects_only_when_needed():
    top = "bool bump(inout bit<8> n) { n = n + 1; return true; }"
    body = """
        bool f = false;
        bool t = true;
        if (f && bump(h.data.a)) { h.data.d = 9; }     // not called
        if (t || bump(h.data.a)) { h.data.c = 1; }     // not called
        if (t && bump(h.data.b)) { h.data.c = h.data.c + 1; }  // called once
        bool m = f ? bump(h.data.a) : bump(h.data.b);  // only the else branch
    """
    r = run_ingress(body, toplevel=top, data=(0, 0, 0, 0))
    assert (r["a"], r["b"], r["c"], r["d"]) == (0, 2, 2, 0)


def test_left_operand_is_read_before_a_call_on_the_right_changes_it():
    top = "bit<8> bump(inout bit<8> n) { n = n + 10; return 1; }"
    r = run_ingress("h.data.b = h.data.a + bump(h.data.a);", toplevel=top, data=(5, 0, 0, 0))
    assert (r["a"], r["b"]) == (15, 6)


def test_an_argument_evaluated_ahead_prints_as_its_expression():
    """Arguments evaluated early for P4's left-to-right order (_Evaluated) show their P4 text in messages and
    traces, not the wrapper's name."""
    from emulator.p4 import ast as A
    from emulator.target.codegen import _Evaluated

    arg = A.Member(A.PathExpression("hdr"), "x")
    wrapped = _Evaluated("_t3", arg)
    assert A.to_source(wrapped) == "hdr.x"
    assert A.to_source(A.Binary("==", wrapped, A.IntLiteral(1))) == "hdr.x == 1"
