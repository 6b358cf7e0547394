"""The checker on the language additions of P4-16 1.2.5 and p4c (docs/p4.md): compound assignment, generic
structs and headers, casts to and from int. Annotations and error messages with their locations."""
from __future__ import annotations

import pytest
from checker_util import assert_error, body_stmts, compile_, program  # noqa: I001 - pytest puts tests/ on sys.path

from emulator.p4 import types as T

# ------------------------------------------------------------------------------------------------ compound assignment


def test_compound_assignment_types_like_its_operator():
    prog = compile_(program(body="meta.a += 1; meta.s |-|= 3; meta.c >>= meta.a;"))
    s1, s2, s3 = body_stmts(prog)
    assert s1.compound == "+" and s1.right.type == T.Bits(8) and s1.right.right.type == T.Bits(8)
    assert s2.right.type == T.Bits(8, True)
    assert s3.right.type == T.Bits(32)


@pytest.mark.parametrize("body, needle, message", [
    ("meta.f += true;", "meta.f +=", "compound assignment '+=': operator + is not defined on bool"),
    ("meta.a += meta.b;", "meta.a +=", "compound assignment '+=': width mismatch"),
    ("hdr.eth ^= hdr.eth;", "hdr.eth ^=", "compound assignment '^=': operator ^ is not defined on eth_t"),
    ("sm.ingress_port = 1; hdr.eth.dst -= 1; 3 += 1;", "3 +=", "cannot assign to this expression"),
])
def test_compound_assignment_errors(body, needle, message):
    assert_error(program(body=body), needle, message)


def test_compound_assignment_to_an_in_parameter_is_refused():
    text = program(top="control Sub(in bit<8> x) { apply { x += 1; } }")
    assert_error(text, "x += 1", "cannot assign to")


# ------------------------------------------------------------------------------------------------ generic structs


def test_generic_struct_is_specialized_where_used():
    prog = compile_(program(top="struct Pair<T> { T x; T y; } struct Outer<T> { Pair<T> p; bit<8> z; }",
                            body="Outer<bit<16>> o = { p = { x = 1, y = 2 }, z = 3 }; meta.b = o.p.x;"))
    decl = body_stmts(prog)[0]
    t = decl.decl_type.resolved
    assert isinstance(t, T.Struct) and t.name == "Outer<bit<16>>" and t.type_args == (T.Bits(16),)
    inner = t.field_type("p")
    assert inner.name == "Pair<bit<16>>" and inner.field_type("x") == T.Bits(16)
    assert body_stmts(prog)[1].right.type == T.Bits(16)


@pytest.mark.parametrize("top, body, needle, message", [
    ("struct Pair<T> { T x; }", "Pair p;", "Pair p", "generic struct Pair needs type arguments"),
    ("struct Pair<T> { T x; }", "Pair<bit<8>, bool> p;", "Pair<bit<8>, bool> p", "struct Pair takes 1 type arguments, 2 given"),
    ("header G<T> { T x; }", "G<error> g;", "G<error> g", "header field 'x' of G<...> would have type error"),
    ("struct Pair<T> { T x; }", "Pair<bit<8>> p = { x = 1 }; Pair<bit<16>> q = p;", "p;",
     "type mismatch: expected Pair<bit<16>>, got Pair<bit<8>>"),
    ("struct W { bit<8> q; }", "W<bit<8>> w;", "W<bit<8>> w", "type W is not generic"),
])
def test_generic_struct_errors(top, body, needle, message):
    assert_error(program(top=top, body=body), needle, message)


# ------------------------------------------------------------------------------------------------ casts with int


def test_casts_to_and_from_int_fold_at_compile_time():
    prog = compile_(program(
        top="const int X = (int)8w200; const int Y = (int)(-8s3); const bit<16> Z = (bit<16>)(X + Y);",
        body="meta.b = Z; meta.s = (int<8>)((int)8s127 + 1); meta.a = (bit<8>)((int)(-8s1));"
             "meta.c = (bit<32>)((int)8w255 * (int)8w255);"))
    assert [s.right.const_value for s in body_stmts(prog)] == [197, -128, 255, 65025]


@pytest.mark.parametrize("body, needle, message", [
    ("meta.b = (bit<16>)(int)meta.a;", "(int)meta.a",
     "cannot cast bit<8> to int: only a compile-time constant can be cast to int"),
    ("meta.f = (bool)(int)2;", "(bool)(int)2", "cannot cast int to bool"),
    ("meta.b = (bit<16>)(int)meta.f;", "(int)meta.f", "cannot cast bool to int"),
])
def test_cast_to_int_errors(body, needle, message):
    assert_error(program(body=body), needle, message)


def test_default_value_takes_its_type_from_the_context():
    prog = compile_(program(body="meta.a = ...; bool z = meta.a == ...; meta_t m = ...;"))
    st = body_stmts(prog)
    assert st[0].right.type == T.Bits(8) and st[0].right.const_value == 0
    assert st[1].init.right.type == T.Bits(8)
    assert st[2].init.const_value == (0, 0, 0, 0, False)


@pytest.mark.parametrize("body, needle, message", [
    ("bool z = ... == 1;", "...", "cannot tell the type of '...' in ==: give the other operand a type"),
    ("meta.a = ... + ...;", "...", "cannot tell the type of '...' in +: give the other operand a type"),
])
def test_default_value_errors(body, needle, message):
    assert_error(program(body=body), needle, message)


@pytest.mark.parametrize("body, needle, message", [
    ("for (bit<8> x in (list<bit<16>>){1, 2}) { }", "bit<8> x",
     "loop variable 'x' has type bit<8> but the list holds bit<16> values"),
    ("for (bit<8> x in 5) { }", "5)",
     "a for-in loop iterates over a range 'lo .. hi', a list, a header stack or an array, not int"),
    ("for (bit<8> x in {true}) { }", "true", "type mismatch: expected bit<8>, got bool"),
])
def test_for_in_list_errors(body, needle, message):
    assert_error(program(body=body), needle, message)


def test_a_header_has_at_most_one_varbit_field():
    text = program(top="header two_vb_t { bit<8> n; varbit<16> a; varbit<16> b; }\n")
    assert_error(text, "varbit<16> b", "header two_vb_t has a second varbit field 'b': v1model headers have at most one")


@pytest.mark.parametrize("top, body, needle, message", [
    ("struct us_t { bit<8> _; }\n", "", "bit<8> _", "'_' is the don't-care: it cannot name a field of us_t"),
    ("", "bit<8> _ = 1;", "bit<8> _ = 1", "'_' is the don't-care: it cannot name a variable, constant or instance"),
])
def test_dont_care_is_no_name(top, body, needle, message):
    assert_error(program(top=top, body=body), needle, message)
