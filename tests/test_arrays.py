"""Arrays whose elements are not headers (P4-16 1.2.5's generalized header stacks, p4c 2024+): the checker's
typing and refusals, and what the v1model target does with them."""
from __future__ import annotations

import pytest
from checker_util import assert_error, compile_
from checker_util import program as cprogram
from codegen_util import load, run_ingress

from emulator.errors import P4Error
from emulator.p4 import types as T


def test_array_types_and_size():
    prog = compile_(cprogram("struct S { bit<8>[2] x; bool[3] f; }",
                             "S[2] s; bit<8>[2][3] m;",
                             "s[1].x[0] = m[2][1]; s[0].f[2] = true; meta.f = s == s; meta.c = m.size;"))
    assert prog is not None
    # T[n][m] nests to the left: m elements of type T[n]
    assert str(T.HeaderStack(T.HeaderStack(T.Bits(8), 2), 3)) == "bit<8>[2][3]"


def test_array_field_of_a_header_is_accepted():
    compile_(cprogram("header hh { bool[2] q; bit<8>[3] a; } struct S2 { bit<4>[2] n; } header h2 { S2[2] s; }"))


@pytest.mark.parametrize("locals_, body, needle, message", [
    ("bit<8>[4] a;", "a.push_front(1);", "a.push_front", "'push_front' is an operation of header stacks"),
    ("bit<8>[4] a;", "a.pop_front(1);", "a.pop_front", "'pop_front' is an operation of header stacks"),
    ("bit<8>[4] a;", "a.next = 1;", "a.next", "'next' is an operation of header stacks"),
    ("bit<8>[4] a;", "meta.a = a.last;", "a.last", "'last' is an operation of header stacks"),
    ("bit<8>[4] a;", "meta.c = a.lastIndex;", "a.lastIndex", "'lastIndex' is an operation of header stacks"),
    ("bit<8>[4] a;", "if (a[0].isValid()) { meta.a = 1; }", "a[0].isValid",
     "expression of type bit<8> has no member 'isValid'"),
    ("", "bit<8> n = 2; bit<8>[n] a;", "n] a", "array size must be a compile-time integer constant"),
    ("int[3] a;", "", "int[3]", "an array element cannot have type int"),
    ("bit<8>[0] a;", "", "0] a", "array size must be positive, not 0"),
    ("bit<8>[4] a;", "a[4] = 1;", "4] = 1", "index 4 is out of range for bit<8>[4]"),
    ("bit<8>[4] a; bit<8>[3] b;", "a = b;", "b;\n", "type mismatch: expected bit<8>[4], got bit<8>[3]"),
    ("bit<8>[2] s;", "for (bit<16> v in s) { meta.b = v; }", "bit<16> v",
     "loop variable 'v' has type bit<16> but the array holds bit<8>"),
])
def test_misuse_is_refused_at_its_place(locals_, body, needle, message):
    text = cprogram("", locals_, body)
    nth = 1 if needle == "b;\n" else 0
    assert_error(text, needle, message, nth)


def test_varbit_array_is_not_a_header_field():
    with pytest.raises(P4Error, match="header field 'q' has type varbit<8>"):
        compile_(cprogram("header hh { varbit<8>[2] q; }"))


def test_scalar_array_read_write_copy_equality_loop():
    body = """
        bit<8>[4] a;
        a[0] = h.data.a; a[1] = h.data.b; a[2] = 7; a[3] = 9;
        a[h.data.b] = 0x40;                      // b = 2: run-time index
        bit<8>[4] c = a;
        c[0] = c[0] + 1;
        bit<8> s = 0;
        for (bit<8> v in a) { s = s + v; }
        h.data.a = s;
        h.data.b = (c == a ? 8w0x10 : 8w0) | (a == a ? 8w1 : 8w0);
        h.data.c = c[0] ++ a[2];
    """
    r = run_ingress(body, data=(1, 2, 0, 0))
    assert r["a"] == 1 + 2 + 0x40 + 9
    assert r["b"] == 0x01
    assert r["c"] == (2 << 8) | 0x40


def test_scalar_and_struct_arrays_are_initialized_from_list_expressions():
    # `E[n] a = {e0, e1, ...}` sets element k from component k, for any element type (as for header stacks)
    body = """
        bit<8>[3] a = {h.data.a, 5, h.data.b + 1};
        bool[2] f = {true, h.data.a == 0};
        h.data.a = a[0] + a[1];
        h.data.b = a[2];
        h.data.c = (f[0] && !f[1]) ? 16w1 : 16w0;
    """
    r = run_ingress(body, data=(3, 4, 0, 0))
    assert (r["a"], r["b"], r["c"]) == (8, 5, 1)


def test_out_of_range_index_in_a_control_reads_zero_and_drops_the_write():
    body = """
        bit<8>[2] a;
        a[0] = 5; a[1] = 6;
        a[h.data.a] = 0x77;                      // a = 9: lost
        h.data.b = a[h.data.a];                  // reads 0
        h.data.c = a[0] ++ a[1];
    """
    r = run_ingress(body, data=(9, 3, 0, 0))
    assert (r["b"], r["c"]) == (0, 0x0506)


def test_struct_array_in_metadata_and_inout_argument():
    top = """
    struct Pt { bit<8> x; bool y; }
    struct m2_t { Pt[3] ps; bit<8>[2] n; }
    control Fill(inout Pt[3] ps, in bit<8> i) {
        apply { ps[i].x = 0x30 + i; ps[i].y = true; }
    }
    """
    body = """
        m2_t m;
        Fill.apply(m.ps, h.data.a);
        Fill.apply(m.ps, 0);
        m.n[1] = m.ps[h.data.a].x;
        h.data.b = m.n[1];
        h.data.c = (m.ps[0].y ? 16w1 : 16w0) | (m.ps[1].y ? 16w2 : 16w0) | (m.ps[2].y ? 16w4 : 16w0);
        Pt[3] copy = m.ps;
        copy[0].x = 1;
        h.data.d = copy == m.ps ? 32w1 : 32w2;
    """
    r = run_ingress(body, data=(2, 0, 0, 0), toplevel=top)
    assert (r["b"], r["c"], r["d"]) == (0x32, 0b101, 2)


def test_header_field_array_is_extracted_and_emitted_in_index_order():
    src = """
    #include <core.p4>
    #include <v1model.p4>
    header g_t { bit<4>[2] n; bit<8>[2] b; }
    struct headers { g_t g; }
    struct meta_t { }
    parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
        state start { pkt.extract(h.g); transition accept; }
    }
    control VC(inout headers h, inout meta_t m) { apply {} }
    control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
        apply { sm.egress_spec = 1; h.g.b[0] = h.g.b[1]; h.g.n[1] = h.g.n[0]; }
    }
    control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply {} }
    control CC(inout headers h, inout meta_t m) { apply {} }
    control D(packet_out pkt, in headers h) { apply { pkt.emit(h.g); } }
    V1Switch(P(), VC(), I(), E(), CC(), D()) main;
    """
    from emulator.target.switch import V1Switch

    out = V1Switch(load(src)).process(0, bytes([0xAB, 0x11, 0x22]))
    assert out[0][1][:3] == bytes([0xAA, 0x22, 0x22])


def test_digest_of_a_struct_with_an_array_field_is_refused_at_the_field():
    # P4Runtime's P4DataTypeSpec has header stacks but no array of other elements: the digest cannot be described
    from emulator.p4.p4info import build_p4info

    text = cprogram("struct dg_t { bit<8>[2] q; bit<8> r; }", "",
                    "dg_t g; g.q[0] = 1; g.r = 2; digest<dg_t>(1, g);")
    with pytest.raises(P4Error) as ei:
        build_p4info(compile_(text).info)
    from checker_util import loc_of

    line, col = loc_of(text, "bit<8>[2] q")
    assert str(ei.value).startswith(f"<string>:{line}:{col}: error: field 'q' of struct dg_t has type bit<8>[2]")


ARCH = """
extern Box<T> {
    Box(T init);
    T get();
}
parser Prs(out bit<16> r);
package Pkg(Prs p);
"""


def test_array_of_extern_instances_passes_the_front_end():
    # p4c's generic-extern-inference form: `X(args) xs[n];`, each element an instance, indexed by a constant
    load(ARCH + """
    parser MyP(out bit<16> r) {
        Box(16w4) boxes[2];
        Box<bit<16>>(16w5) more[3];
        state start { r = boxes[0].get() + more[2].get(); transition accept; }
    }
    Pkg(MyP()) main;
    """)


@pytest.mark.parametrize("decl, use, needle, message", [
    ("Box(16w4) boxes[2];", "bit<8> i = 1; r = boxes[i].get();", "i].get",
     "an index into an array of extern instances must be a compile-time constant"),
    ("Box(16w4) boxes[0];", "r = 1;", "0];", "instance array size must be positive, not 0"),
    ("Box(16w4) boxes[2];", "r = boxes[2].get();", "2].get", "index 2 is out of range"),
])
def test_misused_array_of_extern_instances_is_refused(decl, use, needle, message):
    from checker_util import loc_of

    text = ARCH + f"parser MyP(out bit<16> r) {{\n {decl}\n state start {{ {use} transition accept; }}\n}}\n" \
        "Pkg(MyP()) main;\n"
    with pytest.raises(P4Error) as ei:
        load(text)
    line, col = loc_of(text, needle)
    assert str(ei.value).startswith(f"<test>:{line}:{col}: error: {message}"), str(ei.value)


def test_v1model_target_refuses_an_array_of_extern_instances():
    text = cprogram("", "register<bit<8>>(4) rs[2];", "rs[1].write(0, 5);")
    with pytest.raises(P4Error, match=r"an array of extern instances \('rs\[...\]'\) is not supported by the v1model"):
        compile_(text)


@pytest.mark.parametrize("index, b, tail", [(1, 1, 0), (5, 2, 3)])
def test_run_time_index_in_a_parser_is_stack_out_of_bounds_out_of_range(index, b, tail):
    from codegen_util import run_parser

    start = "pkt.extract(h.data); arr[h.data.a] = 1; h.data.b = arr[1]; transition accept;"
    frame, _ = run_parser(start, "", bytes([index, 2, 0, 0, 0, 0, 0, 0]), plocals="bit<8>[2] arr;")
    assert (frame[1], frame[-1]) == (b, tail)


def test_array_in_a_hash_data_list_is_its_elements_in_order():
    r = run_ingress("bit<8>[2] a; a[0] = 1; a[1] = 2; bit<16> hv;"
                    "hash(hv, HashAlgorithm.identity, 16w0, { a }, 32w65536); h.data.c = hv;"
                    "h.data.a = (bit<8>)a.minSizeInBits();")
    assert (r["c"], r["a"]) == (0x0102, 16)


def test_emit_of_an_array_of_bits_is_refused_at_the_call():
    from codegen_util import program as gprogram

    from emulator.target.switch import V1Switch

    text = gprogram().replace("pkt.emit(h.data);", "pkt.emit(h.data); bit<8>[2] z; pkt.emit(z);")
    with pytest.raises(P4Error, match="cannot emit a value of type bit<8>"):
        V1Switch(load(text))


def test_nested_arrays_of_header_stacks_and_of_bits():
    r = run_ingress("extra_t[2][3] m; m[1][0].setValid(); m[1][0].x = 5; extra_t[2][3] n = m;"
                    "h.data.a = n[1][0].x; h.data.b = n[1][0].isValid() ? 8w1 : 8w0;"
                    "bit<8>[2][2] q; q[h.data.b][1] = 9; h.data.c = (bit<16>)q[1][1];"
                    "h.data.d = m == n ? 32w1 : 32w0;")
    assert (r["a"], r["b"], r["c"], r["d"]) == (5, 1, 9, 1)
