"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 2, session 21):
each compiles, and where it is a v1model program, runs."""
from __future__ import annotations

import pytest
from codegen_util import load, program, run_ingress

from emulator.errors import P4Error


def passes_front_end(src: str) -> None:
    """A program for a package of its own: the whole front end accepts it (only the v1model target, which
    is not asked here, refuses its `main`)."""
    load(src)


def test_int_parameter_of_a_sub_control_converts_to_the_width_where_used():
    # `int` directionless parameter: its value is known per apply; used as bit<8> it is converted (300 -> 44)
    top = """
    control Bump(int step, out bit<8> res) {
        apply { res = step + 8w1; }
    }
    """
    r = run_ingress("bit<8> v; Bump.apply(300, v); h.data.a = v; Bump.apply(7, v); h.data.b = v;",
                    toplevel=top)
    assert (r["a"], r["b"]) == ((300 + 1) % 256, 8)


def test_int_parameter_in_arithmetic_is_exact_then_converted():
    top = """
    control Calc(int k, out bit<8> sum, out bit<8> quot, out bit<8> big) {
        apply {
            sum = k + 1;
            quot = k / 300;
            if (k > 2) { big = (bit<8>)k; } else { big = 0; }
        }
    }
    """
    r = run_ingress("bit<8> x; bit<8> y; bit<8> z; Calc.apply(600, x, y, z); h.data.a = x; h.data.b = y;"
                    "h.data.c = (bit<16>)z;", toplevel=top)
    assert (r["a"], r["b"], r["c"]) == (601 % 256, 2, 600 % 256)


def test_int_parameter_of_an_instance_assigned_directly_is_wrapped():
    top = """
    control Put(int k, out bit<8> res) {
        apply { res = k; }
    }
    """
    r = run_ingress("bit<8> v; pu.apply(-1, v); h.data.a = v;", decls="Put() pu;", toplevel=top)
    assert r["a"] == 255


def test_size_methods_apply_to_bit_values_and_types():
    top = "typedef bit<12> id_t;"
    body = """
        bit<32> w;
        bool f;
        h.data.a = (bit<8>)(w.minSizeInBits() + id_t.maxSizeInBits());
        h.data.b = (bit<8>)(f.maxSizeInBits() + h.data.d.maxSizeInBytes());
    """
    r = run_ingress(body, toplevel=top)
    assert (r["a"], r["b"]) == (32 + 12, 1 + 4)


def test_default_argument_of_a_generic_package_names_its_type_parameters():
    passes_front_end("""
    control Stage<M>(inout M m);
    control Idle<M>(inout M m) { apply { } }
    struct ctx_t { bit<8> x; }
    package Box<M>(Stage<M> st = Idle<M>());
    Box<ctx_t>() main;
    """)


def test_string_literals_concatenate_in_expressions_and_in_name_annotations():
    decls = 'action nop() {} @name("edge" ++ "." ++ "acl") table t { actions = { nop; } default_action = nop; }'
    body = 't.apply(); log_msg("seen " ++ "packet"); h.data.a = 9;'
    assert [x.name for x in load(program(body, decls)).info.tables] == ["I.edge.acl"]
    assert run_ingress(body, decls=decls)["a"] == 9


HOOKS = """
extern Pacer<V> {
    Pacer(V start);
    V level();
    abstract V step(in V v);
    @optional abstract void drained();
    @optional abstract void spill(@optional in V v, in bool hard);
}
control Stage(inout bit<16> x);
package Top(Stage s);
"""


def test_abstract_methods_implemented_at_the_instance_pass_the_front_end():
    passes_front_end(HOOKS + """
    control Work(inout bit<16> x) {
        Pacer(16w3) pacer = {
            bit<16> step(in bit<16> v) { x = x + v; return this.level() + v; }
            void spill(in bool hard) { }  // its @optional parameter left out
        };
        apply { x = pacer.level(); }
    }
    Top(Work()) main;
    """)


def test_abstract_method_implementations_are_checked_against_the_extern():
    from checker_util import assert_error

    def prog(impl: str) -> str:
        return HOOKS + "control Work(inout bit<16> x) {\n Pacer(16w3) pacer = {\n" + impl + \
            "\n };\n apply { }\n}\nTop(Work()) main;\n"

    t = prog("bit<16> stepp(in bit<16> v) { return v; }")
    assert_error(t, "bit<16> stepp", "extern Pacer has no abstract method 'stepp'")
    t = prog("bit<8> step(in bit<16> v) { return 1; }")
    assert_error(t, "bit<8> step", "'step' does not match abstract method step")
    t = prog("bit<16> step(in bit<16> v) { return v; } void spill(in bit<16> v) { }")
    assert_error(t, "void spill", "'spill' does not match abstract method spill", nth=1)
    t = prog("void drained() { }")
    assert_error(t, "Pacer(16w3)", "abstract method 'step' of extern Pacer is not implemented")
    t = HOOKS + "control Work(inout bit<16> x) { apply { x = this.level(); } }\nTop(Work()) main;\n"
    assert_error(t, "this", "'this' is only allowed in an abstract method implementation")


def test_dont_care_type_arguments_of_a_package_parameter_are_each_free():
    arch = """
    struct ha_t { bit<8> x; }
    struct hb_t { bit<16> y; }
    struct tok_t { bit<4> z; }
    struct tok2_t { bit<2> w; }
    control Pipe<K, H>(inout H h, out K k);
    package Half<K, H>(Pipe<K, H> p);
    package Both<K>(Half<K, _> a, Half<K, _> b);
    control PA(inout ha_t h, out tok_t k) { apply { k.z = 1; } }
    """
    passes_front_end(arch + """
    control PB(inout hb_t h, out tok_t k) { apply { k.z = 2; } }
    Half(PA()) a;
    Half(PB()) b;
    Both(a, b) main;
    """)
    # the shared K still binds once: tok_t from the first half, so the second's tok2_t does not match
    with pytest.raises(P4Error, match="type mismatch"):
        load(arch + """
        control PB(inout hb_t h, out tok2_t k) { apply { k.w = 2; } }
        Half(PA()) a;
        Half(PB()) b;
        Both(a, b) main;
        """)
