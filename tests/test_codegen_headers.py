"""Code generation of headers, structs, unions and tuples: validity, copies, equality, initializers."""
from __future__ import annotations

from codegen_util import PRELUDE, load, run_ingress, run_parser

from emulator.target.switch import V1Switch


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


def test_self_assignment_of_composites_keeps_their_values():
    # `sm = sm`, `h.data = h.data`, `meta = meta`: assigning a value to itself changes nothing
    frame, _ = run_parser("pkt.extract(h.data); transition accept;", "", bytes([5, 6, 0, 7]) + bytes(4),
                          ibody="sm = sm; h.data = h.data; meta = meta; h.data.a = h.data.a + 1;")
    assert frame[:4] == bytes([6, 6, 0, 7])

