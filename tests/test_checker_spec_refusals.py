"""Programs the P4-16 specification calls errors, refused at the offending place (found by running p4c's
testdata/p4_16_errors through `rocelab compile`; each test is a small program of our own showing one rule)."""
from __future__ import annotations

from checker_util import assert_error, compile_, program

PRIO_TABLE = """
  action set_b(bit<16> v) { meta.b = v; }
  table prio_t {
    key = { meta.a : ternary; }
    actions = { set_b; }
    entries = {
%s
    }
  }
"""


def test_first_entry_without_priority_when_a_later_one_has_one():
    entries = "      0x10 &&& 0xf0 : set_b(1);\n      priority = 7 : 0x20 &&& 0xf0 : set_b(2);"
    text = program(locals_=PRIO_TABLE % entries, body="prio_t.apply();")
    assert_error(text, "0x10 &&& 0xf0", "the first entry of table prio_t has no priority, but the entry at line")


def test_priorities_on_the_first_entry_or_on_none_are_accepted():
    given = "      priority = 9 : 0x10 &&& 0xf0 : set_b(1);\n      0x20 &&& 0xf0 : set_b(2);"
    none = "      0x10 &&& 0xf0 : set_b(1);\n      0x20 &&& 0xf0 : set_b(2);"
    for entries in (given, none):
        compile_(program(locals_=PRIO_TABLE % entries, body="prio_t.apply();"))


def test_variable_at_the_top_level():
    text = program(top="bit<8> stray_v = 3;\n", body="meta.a = 1;")
    assert_error(text, "bit<8> stray_v", "variable 'stray_v' cannot be declared at the top level")


def test_duplicate_parameter_in_a_declaration_without_body():
    text = program(top="control tiny_ct(in bit<8> q);\npackage twin_pkg(tiny_ct one, tiny_ct one);\n",
                   body="meta.a = 1;")
    assert_error(text, "tiny_ct one);", "duplicate parameter 'one'")


def test_default_value_on_an_out_parameter():
    text = program(top="extern void fill_it(out bit<8> dst = 8w1);\n", body="fill_it(meta.a);")
    assert_error(text, "out bit<8> dst", "out parameter 'dst' cannot have a default value")


def test_default_value_on_an_optional_parameter():
    text = program(top="extern void opt_it(in bit<8> a, @optional in bit<8> b = 2);\n", body="opt_it(meta.a);")
    assert_error(text, "in bit<8> b = 2", "@optional parameter 'b' cannot have a default value")


def test_in_parameter_with_a_default_value_is_accepted():
    compile_(program(top="extern void dflt_it(in bit<8> a, in bit<8> b = 2);\n", body="dflt_it(meta.a);"))


def test_function_calling_an_action():
    top = "action bump_it() { }\nbit<8> helper_fn(in bit<8> v) { bump_it(); return v; }\n"
    text = program(top=top, body="meta.a = helper_fn(meta.a);")
    assert_error(text, "bump_it(); return", "actions cannot be called from a function")


def test_package_instantiated_in_a_control():
    top = "control leaf_ct();\npackage inner_pkg(leaf_ct c);\ncontrol leaf_impl() { apply { } }\n"
    text = program(top=top, locals_="  inner_pkg(leaf_impl()) nested_pkg;")
    assert_error(text, "inner_pkg(leaf_impl()) nested_pkg", "a package cannot be instantiated in a control")


def test_parser_instantiated_in_a_control():
    top = "parser sub_prs() { state start { transition accept; } }\n"
    text = program(top=top, locals_="  sub_prs() misplaced_prs;")
    assert_error(text, "sub_prs() misplaced_prs", "a parser cannot be instantiated in a control")


def test_control_instantiated_in_a_control_is_accepted():
    top = "control sub_ctl(inout bit<8> v) { apply { v = v + 1; } }\n"
    compile_(program(top=top, locals_="  sub_ctl() inner_ctl;", body="inner_ctl.apply(meta.a);"))


def test_match_annotation_naming_no_match_kind():
    top = "struct vs_key_t { @match(ternary) bit<8> lo; @match(sideways) bit<8> hi; }\n"
    text = program(top=top, body="meta.a = 1;")
    assert_error(text, "@match(sideways)", "@match needs a match_kind (exact, ternary, ...), not 'sideways'")


def test_match_annotation_with_a_match_kind_is_accepted():
    compile_(program(top="struct vs_ok_t { @match(ternary) bit<8> lo; @match(lpm) bit<8> hi; }\n"))


def test_extern_constructor_with_a_return_type():
    text = program(top="extern gadget_x {\n  gadget_x();\n  bit<8> gadget_x(in bit<8> v);\n}\n")
    assert_error(text, "bit<8> gadget_x(in", "the constructor of extern gadget_x cannot have a return type")


def test_ambiguous_call_of_overloaded_extern_methods():
    top = ("extern twin_src {\n  twin_src();\n  void take<T>(out T first);\n  void take<T>(out T second);\n}\n")
    text = program(top=top, locals_="  twin_src() src_i;", body="src_i.take(meta.a);")
    assert_error(text, "src_i.take(meta.a)", "call of twin_src.take is ambiguous")
    compile_(program(top=top, locals_="  twin_src() src_i;", body="src_i.take(second = meta.a);"))


def test_extern_typed_parameter_with_a_direction():
    top = "extern tally_x { tally_x(); void bump(); }\ncontrol uses_tally(in tally_x tx) { apply { tx.bump(); } }\n"
    text = program(top=top, body="meta.a = 1;")
    assert_error(text, "in tally_x tx", "parameter 'tx' of extern type tally_x cannot have a direction (in)")


def test_dont_care_in_the_type_of_a_constant():
    top = "struct pair_s<T> { T left; T right; }\nconst pair_s<_> vague_c = { left = 1, right = 2 };\n"
    text = program(top=top, body="meta.a = 1;")
    assert_error(text, "const pair_s<_>", "the type of constant 'vague_c' cannot contain '_'")


def test_header_union_member_that_can_never_be_a_header():
    top = "header_union loose_u<T> {\n  tuple<T, T> both;\n}\n"
    text = program(top=top, body="meta.a = 1;")
    assert_error(text, "tuple<T, T> both", "header_union member 'both' has type tuple<T, T>")


def test_header_union_specialized_with_a_non_header():
    top = "header one_h { bit<8> v; }\nheader_union gen_u<T> { one_h a; T b; }\n"
    text = program(top=top, locals_="  gen_u<bit<8>> bad_u;", body="meta.a = 1;")
    assert_error(text, "gen_u<bit<8>> bad_u", "header_union member 'b' of gen_u<...> would have type bit<8>")
    compile_(program(top=top, locals_="  gen_u<one_h> good_u;", body="meta.a = 1;"))


def test_type_arguments_on_a_typedef_of_a_specialized_extern():
    top = "extern holder_x<V> { holder_x(V init); V read(); }\ntypedef holder_x<bit<8>> holder8_t;\n"
    text = program(top=top, locals_="  holder8_t<bit<8>>(8w1) twice_h;", body="meta.a = 1;")
    assert_error(text, "holder8_t<bit<8>>", "type holder8_t is not generic: it is holder_x<bit<8>>")
    compile_(program(top=top, locals_="  holder8_t(8w1) once_h;", body="meta.a = once_h.read();"))


def test_default_value_on_an_inout_parameter_of_a_control_type_compiles():
    """p4c accepts it (its default-control-argument sample); only out parameters cannot have one."""
    compile_(program(top="control with_dflt_t(inout bit<8> x = 8w3);\n", body="meta.a = 1;"))


def test_a_call_leaving_out_an_inout_parameter_with_a_default_is_refused_at_the_call():
    """Code generation failed at the default ('not an lvalue: IntLiteral')."""
    text = program(top="bit<8> bump_it(inout bit<8> v = 8w5) { v = v + 1; return v; }\n",
                   body="meta.a = bump_it();")
    assert_error(text, "bump_it();", "bump_it: inout parameter 'v' needs an argument")
