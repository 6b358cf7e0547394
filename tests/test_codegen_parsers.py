"""Code generation of parsers: parser errors, select, header stacks, lookahead, varbit, value sets and
sub-parsers, checked on the bytes out."""
from __future__ import annotations

from codegen_util import PARSER_PROG, PRELUDE, load, run_parser

from emulator.target.switch import V1Switch


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

