"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 4, session 22):
each compiles, and where it is a v1model program, runs."""
from __future__ import annotations

import random

import pytest
from codegen_util import load, program, run_ingress

from emulator.errors import P4Error
from emulator.target.switch import V1Switch


def test_empty_tuple_type():
    # `tuple<>`: P4-16's type argument list may be empty; `{}` is its only value
    top = "typedef tuple<> nothing_t;"
    body = "nothing_t t = {}; if (t == {}) { h.data.a = 9; }"
    assert run_ingress(body, toplevel=top)["a"] == 9


def test_empty_type_argument_list_is_still_refused_elsewhere():
    with pytest.raises(P4Error):
        load(program("", toplevel="typedef list<> l_t;"))


EXTERN_DONT_CARE = """
extern Poly<T> { Poly(T coeff); }
extern Digest2<W> {
    Digest2(Poly<_> p);
    W get();
}
control C() {
    Digest2<bit<8>>(Poly(16w0x1021)) d1;
    Digest2<bit<8>>(Poly(8w7)) d2;
    apply { }
}
control proto();
package top(proto p);
top(C()) main;
"""


def test_extern_parameter_with_dont_care_type_argument_takes_any_specialization():
    load(EXTERN_DONT_CARE)


def test_extern_parameter_of_another_extern_is_still_refused():
    src = EXTERN_DONT_CARE.replace("Poly<_> p", "Digest2<_> p")
    with pytest.raises(P4Error, match="type mismatch"):
        load(src)


def test_header_stack_initialized_from_a_list_expression():
    decls = "header one_t { bit<8> v; }"
    body = """
    one_t[2] s = { (one_t){ h.data.a + 1 }, (one_t){ 8w7 } };
    h.data.a = s[0].v; h.data.b = s[1].v;
    if (s[1].isValid()) { h.data.c = 1; }
    """
    r = run_ingress(body, toplevel=decls, data=(5, 0, 0, 0))
    assert (r["a"], r["b"], r["c"]) == (6, 7, 1)


def test_header_stack_list_expression_needs_one_element_each():
    decls = "header one_t { bit<8> v; }"
    with pytest.raises(P4Error, match="expected 2 components"):
        load(program("one_t[2] s = { (one_t){ 8w1 } };", toplevel=decls))


def test_random_packets_through_stack_initializer():
    decls = "header one_t { bit<8> v; }"
    body = "one_t[2] s = { (one_t){ h.data.a }, (one_t){ h.data.b } }; h.data.a = s[1].v; h.data.b = s[0].v;"
    sw = V1Switch(load(program(body, toplevel=decls)))
    rnd = random.Random(1)
    for _ in range(60):
        n = rnd.randrange(0, 40)
        pkt = bytes(rnd.randrange(256) for _ in range(n))
        for _port, frame in sw.process(rnd.randrange(4), pkt):
            if n >= 8:
                assert frame[0:2] == pkt[1::-1]


GENERIC_BLOCK_ARG = """
control Bump(inout bit<8> x, in bit<8> y);
control bump_by<T>(inout T x, in T y) { apply { T keep = y; x = keep; } }
control Wrap(inout headers hh)(Bump b) { apply { b.apply(hh.data.a, hh.data.b); } }
"""


def test_generic_control_argument_takes_its_type_arguments_from_the_parameter():
    # `Wrap(bump_by())`: bump_by's T is inferred from Bump's parameter type, bit<8> (as p4c does)
    r = run_ingress("w.apply(h);", toplevel=GENERIC_BLOCK_ARG, decls="Wrap(bump_by()) w;", data=(4, 9, 0, 0))
    assert r["a"] == 9


def test_generic_control_argument_that_cannot_fit_is_still_refused():
    top = GENERIC_BLOCK_ARG.replace("Bump(inout bit<8> x,", "Bump(in bit<8> x,")
    with pytest.raises(P4Error, match="does not match control type Bump"):
        load(program("w.apply(h);", toplevel=top, decls="Wrap(bump_by()) w;"))


def test_generic_parser_argument_of_a_package_of_its_own():
    src = """
    parser keep<T>(in T a) { state start { T w = a; transition accept; } }
    parser two_bits(in bit<2> a);
    package pk(two_bits n);
    pk(keep()) main;
    """
    load(src)
