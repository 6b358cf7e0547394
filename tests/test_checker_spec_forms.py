"""Forms the P4-16 grammar allows that p4c's sample programs use and the front end once refused: a string
literal spanning lines, annotations on the apply block, ... Each test is a minimal program of our own."""
from __future__ import annotations

from checker_util import assert_error, compile_, ingress, program
from codegen_util import run_ingress


def test_string_literal_may_span_lines():
    # the spec's own example: "string with embedded<newline>line terminator"
    top = '@name("two\nlines") const bit<8> K1 = 3;\n@name("esc \\" quote \\\nnext") const bit<8> K2 = 4;\n'
    compile_(program(top=top, body="meta.a = K1 + K2;"))


def test_line_numbers_after_a_multiline_string_stay_right():
    top = '@name("a\nb\nc") const bit<8> K1 = 3;\nconst bit<8> K3 = 1w1;\n'
    text = program(top=top)
    assert_error(text, "1w1", "type mismatch")


def test_apply_block_may_carry_annotations():
    prog = compile_(program(body="meta.a = 1;").replace("apply {", 'apply @noWarn("unused") @hint {', 1))
    names = [a.name for a in ingress(prog).body.annotations]
    assert names == ["noWarn", "hint"]


def test_indexed_slice_reads_and_writes_width_bits_from_a_constant_base():
    # d = 0x12345678: d[8 +: 8] is bits 15..8 = 0x56; writing c[4 +: 8] replaces bits 11..4 of c
    body = """
        h.data.a = h.data.d[8 +: 8];
        h.data.c[4 +: 8] = 8w0xAB;
        h.data.b = h.data.d[2 * 8 +: 4 + 4];
    """
    r = run_ingress(body, data=(0, 0, 0xF00F, 0x12345678))
    assert (r["a"], r["c"], r["b"]) == (0x56, 0xFABF, 0x34)


def test_indexed_slice_with_a_run_time_base_reads_from_that_bit():
    # the base is a header field (run time): d[a +: 8] with a = 12 is bits 19..12 of 0x12345678 = 0x45;
    # the base binds looser than `&`: d[b & 0xf +: 4] with b = 0x14 is d[4 +: 4] = 0x7
    r = run_ingress("h.data.c = (bit<16>)h.data.d[h.data.a +: 8]; h.data.b = (bit<8>)h.data.d[h.data.b & 0xf +: 4];",
                    data=(12, 0x14, 0, 0x12345678))
    assert (r["c"], r["b"]) == (0x45, 0x7)


def test_indexed_slice_width_must_be_a_positive_constant():
    text = program(body="meta.a = hdr.ipv4.src[0 +: meta.a];")
    assert_error(text, "meta.a];", "slice width must be a compile-time integer constant")
    text = program(body="meta.a = (bit<8>)hdr.ipv4.src[3 +: 0];")
    assert_error(text, "0];", "slice width must be positive")


PRIO_TABLE = """
    action set_a(bit<8> v) { h.data.a = v; }
    table t {
        key = { h.data.b : ternary; }
        actions = { set_a; NoAction; }
        const entries = {
            priority = 10 (0x00 &&& 0x00) : set_a(1);
            priority = 20 (0x05 &&& 0x0F) : set_a(2);
            priority = (5 + 25) (0x15 &&& 0xFF) : set_a(3);
            priority = 40: (0x77 &&& 0xFF) : set_a(4);
        }
    }
"""


def test_entry_priority_may_be_followed_directly_by_the_keyset():
    # `priority = 20 (k) : a;` (no ':' after the value, p4c's form) next to the spec's `priority = 40: (k) : a;`;
    # the largest matching priority wins
    got = [run_ingress("t.apply();", data=(0, b, 0, 0), decls=PRIO_TABLE)["a"] for b in (0x33, 0x05, 0x15, 0x77)]
    assert got == [1, 2, 3, 4]


def test_an_extern_without_a_constructor_is_instantiated_with_no_arguments():
    top = "extern Gauge { void note(); }\nextern Cell<T> { T peek(); }\n"
    compile_(program(top=top, locals_="Gauge() g;\nCell<bit<8>>() c;"))
    text = program(top=top, locals_="Gauge(8w1) g;")
    assert_error(text, "Gauge(8w1)", "extern Gauge declares no constructor, so it takes no arguments")
    text = program(top=top, locals_="Cell() c;")
    assert_error(text, "Cell() c", "extern Cell declares no constructor: give its type arguments")


LANES = """
#include <core.p4>
header ha_t { bit<8> x; }
header hb_t { bit<16> y; }
control Stage<H>(inout H h);
package Lane<H>(Stage<H> s);
package Both<H>(Lane<H> l0, Lane<H> l1);
control SA(inout ha_t h) { apply { h.x = 1; } }
control SB(inout hb_t h) { apply { h.y = 2; } }
Lane(SA()) la;
Lane(SA()) la2;
Lane(SB()) lb;
Both(la, LAST) main;
"""


def test_package_instances_bind_a_generic_packages_type_parameters():
    compile_(LANES.replace("LAST", "la2"))
    # H is ha_t from the first lane, so a lane of hb_t does not fit the second parameter
    text = LANES.replace("LAST", "lb")
    assert_error(text, "lb) main", "type mismatch: expected Lane(Stage(ha_t)), got Lane(Stage(hb_t))")
