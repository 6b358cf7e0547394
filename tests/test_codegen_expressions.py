"""Code generation of expressions: bit and signed arithmetic, shifts, slices, casts, comparisons and
evaluation order, checked on the bytes out; a property test against the constant folder."""
from __future__ import annotations

import pytest
from codegen_util import load, run_ingress
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.switch import V1Switch


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


@pytest.mark.parametrize("a,b", [(0, 0), (255, 1), (128, 128)])
def test_add_matches_reference(a, b):
    r = run_ingress("h.data.a = h.data.a + h.data.b;", data=(a, b, 0, 0))
    assert r["a"] == (a + b) & 0xFF


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


# ---------------------------------------------------------------------------------------------- property test


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

