"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 3, session 22):
each compiles, and where it is a v1model program, runs."""
from __future__ import annotations

import pytest
from codegen_util import load, program, run_ingress

from emulator.errors import P4Error


def test_header_parameter_of_a_table_action_is_refused_by_the_v1model_target():
    # the front end accepts it (the previous test's form with a package of its own passes); P4Runtime cannot
    # give a header as an action parameter, so the v1model summary refuses it at the parameter
    decls = """
    action put(extra_t x) { h.data.b = 1; }
    table t { actions = { put; } default_action = put((extra_t){#}); }
    """
    with pytest.raises(P4Error, match="action parameter 'x' is a header"):
        load(program("t.apply();", decls=decls))


def test_invalid_header_binds_a_directionless_parameter_of_a_default_action():
    # `(h_t){#}` has no const_value but is a compile-time value (P4-16 8.26): a default action may take it
    src = """
    header h_t { bit<8> f; }
    control C() {
        action a(h_t h, bit<8> k) { }
        table t { actions = { a; } default_action = a((h_t){#}, 3); }
        apply { t.apply(); }
    }
    control proto();
    package top(proto p);
    top(C()) main;
    """
    load(src)


def test_static_assert_as_a_statement_runs_as_nothing():
    # core.p4's static_assert is checked at compile time; as a statement (in a control, an action, a
    # function, nested in another) code generation left it to an extern plugin and refused the program
    top = "void f() { static_assert(true); }"
    decls = 'action a() { static_assert(true, "m"); }'
    body = 'static_assert(static_assert(true, "")); f(); a(); h.data.a = 5;'
    assert run_ingress(body, decls=decls, toplevel=top)["a"] == 5


def test_false_static_assert_statement_is_still_refused():
    with pytest.raises(P4Error, match="static_assert"):
        load(program('static_assert(false, "no");'))


def test_serializable_enum_member_names_an_earlier_member():
    top = "enum bit<4> e { a = 3, b = 0, c = (bit<4>)a + 1, d = a }"
    r = run_ingress("h.data.a = (bit<8>)e.d; h.data.b = (bit<8>)e.c;", toplevel=top)
    assert (r["a"], r["b"]) == (3, 4)


def test_enum_member_cannot_name_a_later_member():
    with pytest.raises(P4Error, match="undeclared name 'b'"):
        load(program("", toplevel="enum bit<4> e { a = b, b = 1 }"))


def test_two_values_of_one_serializable_enum_compute_in_the_underlying_type():
    top = "enum bit<8> Ek { a = 200, b = 100 } header eh_t { Ek x; Ek y; }"
    body = ("eh_t v; v.setValid(); v.x = (Ek)h.data.a; v.y = (Ek)h.data.b; h.data.a = v.x + v.y; "
            "h.data.b = v.x & v.y; if (v.x < v.y) { h.data.c = 1; } else { h.data.c = 2; }")
    r = run_ingress(body, data=(200, 100, 0, 0), toplevel=top)
    assert (r["a"], r["b"], r["c"]) == (300 % 256, 200 & 100, 2)
    load(program("", toplevel="enum bit<4> e { a = 1, b = 2 } const bit<4> s = e.a + e.b;"))


def test_conditional_of_list_and_structure_expressions_takes_the_assigned_type():
    # `?:` branches that are list or structure expressions are typed by where the value goes, as untyped
    # integers already were (a header, a struct)
    top = "struct pair_t { bit<8> x; bit<8> y; }"
    body = ("extra_t e; e = h.data.a == 1 ? {8w7} : {8w9}; h.extra = e; "
            "pair_t p = h.data.b == 2 ? {x = 3, y = 4} : {x = 5, y = 6}; h.data.c = (bit<16>)(p.x ++ p.y);")
    hit, miss = run_ingress(body, toplevel=top), run_ingress(body, data=(5, 5, 5, 5), toplevel=top)
    assert (hit["rest"], hit["c"]) == (b"\x07", 0x0304)
    assert (miss["rest"], miss["c"]) == (b"\x09", 0x0506)



def test_conditional_of_lists_with_typed_and_untyped_elements_unifies_them():
    # `c ? {h.a, 8} : {1, 2}`: element by element, an untyped integer takes the other branch's width; elements
    # of different widths are still a mismatch
    body = ("tuple<bit<8>, bit<8>> t = h.data.a == 1 ? {h.data.a, 8} : {1, 2}; h.data.a = t[0]; h.data.b = t[1];")
    hit, miss = run_ingress(body, data=(1, 0, 0, 0)), run_ingress(body, data=(5, 0, 0, 0))
    assert (hit["a"], hit["b"]) == (1, 8)
    assert (miss["a"], miss["b"]) == (1, 2)
    with pytest.raises(P4Error, match="type mismatch: [?]: operands"):
        load(program("tuple<bit<8>, bit<16>> t = h.data.a == 1 ? {h.data.a, 16w8} : {h.data.a, 8w2};"))

SIZED = """
control Sub(inout bit<8> v)(bit<32> n) {
    register<bit<8>>(n) r;
    action set(bit<8> x) { v = x; }
    table t { key = { v : exact; } actions = { set; } size = n; }
    apply { t.apply(); r.write(n - 1, v + 1); r.read(v, n - 1); }
}
control Outer(inout bit<8> v)(bit<32> m) {
    Sub(m) inner;
    apply { inner.apply(v); }
}
"""


def test_constructor_parameter_sizes_a_table_and_a_register_per_instance():
    # `size = n` and `register<...>(n)` with `n` a constructor parameter: each instance's argument (passed on
    # to an inner instance too); the register was sized 0 (its writes lost) and the table size refused
    decls = "Sub(32w77) s1; Outer(32w5) s2;"
    body = "s1.apply(h.data.a); s2.apply(h.data.b);"
    info = load(program(body, decls=decls, toplevel=SIZED)).info
    assert [(t.name, t.size) for t in info.tables] == [("I.s1.t", 77), ("I.s2.inner.t", 5)]
    assert [(r.name, r.size) for r in info.registers] == [("I.s1.r", 77), ("I.s2.inner.r", 5)]
    r = run_ingress(body, decls=decls, toplevel=SIZED)
    assert (r["a"], r["b"]) == (2, 3)


def test_inner_action_that_cannot_take_the_arguments_does_not_hide_an_outer_callee():
    # an action named like v1model's `hash`, calling `hash` with five arguments: the extern is meant (the
    # action takes none); it was refused as a recursive call
    decls = """
    action hash() { hash(h.data.a, HashAlgorithm.identity, 8w0, { h.data.b }, 8w255); }
    action twice(bit<8> x) { h.data.b = x + x; }
    """
    r = run_ingress("hash(); twice(h.data.b);", data=(1, 9, 3, 4), decls=decls)
    assert (r["a"], r["b"]) == (9, 18)


def test_a_call_that_fits_no_declaration_is_still_refused():
    with pytest.raises(P4Error, match="recursive call"):
        load(program("", decls="action a() { a(); }"))
    with pytest.raises(P4Error, match="wrong number of arguments|argument"):
        load(program("a(1);", decls="action a() { }"))
