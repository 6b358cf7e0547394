"""Differences from p4c's front end closed in session 22 (docs/p4.md, "p4c differences closed"): forms p4c
accepts that rocelab refused, and forms p4c and P4-16 refuse that rocelab accepted. Each is a small program of
our own."""
from __future__ import annotations

from checker_util import assert_error, compile_
from codegen_util import program, run_ingress

# a package of our own whose control type gives its last parameter a default value
DEFAULTED = """
struct pair_t { bit<8> lo; bit<8> hi; }
struct h_t { }
control Stage<H>(inout H h, inout pair_t extra = {1, 2});
package Pipe<H>(Stage<H> s);
control Mine(inout h_t h) { apply { } }
"""


def test_control_may_leave_out_a_defaulted_parameter_of_its_type():
    # the front end accepts it (the v1model target would then refuse `main`: the package is not V1Switch)
    compile_(DEFAULTED + "Pipe(Mine()) main;\n")


def test_control_may_not_leave_out_a_parameter_without_default():
    text = DEFAULTED.replace(" = {1, 2}", "") + "Pipe(Mine()) main;\n"
    assert_error(text, "Mine()", "control Mine does not match control type Stage: it has 1 parameters, 2 expected")


def test_error_constant_named_without_error_prefix():
    top = "error { Oversize }"
    body = "error e = Oversize; if (e == error.Oversize) { h.data.a = 7; }"
    assert run_ingress(body, toplevel=top)["a"] == 7


def test_declared_name_wins_over_error_constant():
    top = "error { Oversize }  const bit<8> Oversize_k = 3;"
    body = "bit<8> Oversize = 9; h.data.a = Oversize;"
    assert run_ingress(body, toplevel=top)["a"] == 9


def test_struct_compared_with_tuple_of_its_field_types():
    top = ("struct two_t { bit<8> l; bit<8> r; }  const tuple<bit<8>, bit<8>> PAIR = {1, 2};\n"
           "const two_t TWO = {1, 2};  const bool SAME = TWO == PAIR;")
    body = ("two_t s = {h.data.a, h.data.b};\n"
            "if (s == PAIR) { h.data.c = 1; } if (s != PAIR) { h.data.c = 2; }\n"
            "if (SAME) { h.data.d = 5; }")
    assert run_ingress(body, data=(1, 2, 0, 0), toplevel=top)["c"] == 1
    r = run_ingress(body, data=(1, 3, 0, 0), toplevel=top)
    assert (r["c"], r["d"]) == (2, 5)


def test_struct_compared_with_tuple_of_other_types_is_refused():
    top = "struct two_t { bit<8> l; bit<8> r; }  const tuple<bit<8>, bit<16>> PAIR = {1, 2};"
    text = program("two_t s = {1, 2}; if (s == PAIR) { h.data.a = 1; }", "", top)
    assert_error(text, "s == PAIR", "type mismatch: == operands have types two_t and tuple<bit<8>, bit<16>>")


STACK_TOP = "header item_t { bit<8> v; }  struct items_t { item_t[3] items; }"


def test_last_index_outside_a_parser_is_refused():
    text = program("h.data.a = (bit<8>)hdr_items.items.lastIndex;",
                   "items_t hdr_items;", STACK_TOP)
    assert_error(text, "hdr_items.items.lastIndex", "header stack 'lastIndex' is only allowed in parsers")


def test_last_in_a_function_is_refused():
    top = STACK_TOP + "\nbit<8> top_of(in items_t s) { return s.items.last.v; }"
    assert_error(program("", "", top), "s.items.last", "header stack 'last' is only allowed in parsers")


SUB = """
parser Peek(packet_in pkt);
parser PeekImpl(packet_in pkt) { state start { transition accept; } }
control Uses(inout bit<8> x)(Peek p) { apply { x = 1; } }
"""


def test_parser_as_constructor_parameter_of_a_control_is_refused():
    assert_error(program("", "", SUB), "Peek p)", "constructor parameter 'p': a parser cannot be instantiated in a "
                 "control")


def test_variable_of_a_parser_type_is_refused():
    top = "parser Peek(packet_in pkt);\nparser PeekImpl(packet_in pkt) { state start { transition accept; } }"
    assert_error(program("", "Peek pk;", top), "Peek pk;", "variable 'pk' cannot have type Peek")


def test_untyped_constant_for_an_extern_type_parameter_is_refused():
    body = "bit<16> r; hash(r, HashAlgorithm.crc16, 0, {h.data.a}, 16w64); h.data.c = r;"
    assert_error(program(body), "0, {h.data.a}", "could not infer a width for T of hash")


def test_untyped_constant_inside_a_list_for_an_extern_type_parameter_is_refused():
    # code generation failed on it ("TypeError: type int has no width") where the checker let it through
    body = "bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, {h.data.a, 0, h.data.b}, 32w64); h.data.c = r;"
    assert_error(program(body), "0, h.data.b}", "could not infer a width for D of hash")


def test_typed_constants_for_extern_type_parameters_are_accepted():
    body = "bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, {h.data.a}, 32w64); h.data.c = r;"
    assert run_ingress(body)["c"] < 64


def test_extern_with_itself_as_type_argument_is_refused():
    top = "extern Box<T> { Box(); void put(in T v); }\nBox<Box<bit<8>>>() nested_box;"
    assert_error(program("", "", top), "Box<Box<bit<8>>>()", "extern Box cannot have itself in its type arguments")


def test_tuple_compared_with_a_constant_struct():
    top = "struct two_t { bit<8> l; bit<8> r; }  const two_t TWO = {1, 2};"
    body = ("tuple<bit<8>, bit<8>> t = {h.data.a, h.data.b};\n"
            "if (t == TWO) { h.data.c = 1; } else { h.data.c = 2; }")
    assert run_ingress(body, data=(1, 2, 0, 0), toplevel=top)["c"] == 1
    assert run_ingress(body, data=(1, 3, 0, 0), toplevel=top)["c"] == 2


def test_generic_struct_with_itself_as_type_argument_is_refused():
    top = "struct cell_t<T> { T v; }\ntypedef cell_t<bit<8>> byte_cell_t;\ntypedef cell_t<byte_cell_t> nested_t;"
    assert_error(program("", "", top), "cell_t<byte_cell_t>", "struct cell_t cannot have itself in its type arguments")


def test_generic_struct_of_another_generic_struct_is_accepted():
    top = ("struct cell_t<T> { T v; }  struct pair_t<T> { T a; T b; }\n"
           "typedef pair_t<cell_t<bit<8>>> cells_t;")
    body = "cells_t c = {{h.data.a}, {h.data.b}}; h.data.c = (bit<16>)(c.a.v + c.b.v);"
    assert run_ingress(body, toplevel=top)["c"] == 3


def test_uncalled_generic_function_writing_its_in_parameter_is_refused():
    top = "void bump<T>(inout T x) { }\nvoid use<T>(in T y) { bump(y); }"
    assert_error(program("", "", top), "y); }", "cannot pass in parameter 'y' as an inout argument")


def test_uncalled_generic_function_assigning_its_in_parameter_is_refused():
    top = "void clear<T>(in T y, out T z) { z = y; y = z; }"
    assert_error(program("", "", top), "y = z", "cannot assign to in parameter 'y'")


def test_generic_function_writing_its_inout_parameter_is_accepted():
    top = "void bump<T>(inout T x) { }\nvoid use<T>(inout T y, in T k) { bump(y); }"
    assert run_ingress("use(h.data.a, h.data.b);", toplevel=top)["a"] == 1
