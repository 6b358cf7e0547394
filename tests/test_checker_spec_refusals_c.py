"""Programs P4-16 calls errors that rocelab accepted, refused only at `main`, or refused without a location (found
with the second half of p4c's testdata/p4_16_errors, session 21); each is a small program of our own showing one
rule, refused where the error is."""
from __future__ import annotations

import pytest
from checker_util import assert_error, compile_, program

from emulator.errors import P4Error

SIDE = """
  action bump(inout bit<8> w, bit<8> k) { w = w + k; }
  action keep() { }
"""


def test_switch_inside_an_action():
    locals_ = "  action sw_act() { switch (meta.a) { 8w1: { meta.b = 2; } } }\n"
    text = program(locals_=locals_, body="sw_act();")
    assert_error(text, "switch (meta.a)", "a switch statement cannot be used in an action")


def test_default_label_before_another():
    locals_ = SIDE + "  table lbl_t { actions = { keep; } default_action = keep; }\n"
    body = "switch (lbl_t.apply().action_run) { default: keep: { meta.a = 1; } }"
    assert_error(program(locals_=locals_, body=body), "default:", "'default' must be the last label")


def test_default_label_last_is_accepted():
    locals_ = SIDE + "  table lbl_t { actions = { keep; } default_action = keep; }\n"
    body = "switch (lbl_t.apply().action_run) { keep: default: { meta.a = 1; } }"
    compile_(program(locals_=locals_, body=body))


def test_tableonly_action_as_default():
    locals_ = SIDE + ("  table only_t { key = { meta.a : exact; } actions = { @tableonly keep; bump(meta.a); }\n"
                      "    default_action = keep(); }\n")
    text = program(locals_=locals_, body="only_t.apply();")
    assert_error(text, "keep(); }", "action 'keep' is @tableonly in table only_t: it cannot be the default")


def test_defaultonly_action_in_an_entry():
    locals_ = SIDE + ("  table only_t { key = { meta.a : exact; } actions = { @defaultonly keep; bump(meta.a); }\n"
                      "    const entries = { 7 : keep(); } default_action = keep(); }\n")
    text = program(locals_=locals_, body="only_t.apply();")
    assert_error(text, "keep(); }", "action 'keep' is @defaultonly in table only_t: it cannot be the action")


def test_default_action_binding_another_directional_argument():
    locals_ = SIDE + ("  table bind_t { actions = { bump(meta.a); keep; }\n"
                      "    default_action = bump(hdr.ipv4.tos, 3); }\n")
    text = program(locals_=locals_, body="bind_t.apply();")
    assert_error(text, "hdr.ipv4.tos", "argument 'w' of the default action differs from the one the actions list")


def test_default_action_binding_the_same_argument_is_accepted():
    locals_ = SIDE + "  table bind_t { actions = { bump(meta.a); keep; } default_action = bump(meta.a, 3); }\n"
    compile_(program(locals_=locals_, body="bind_t.apply();"))


def test_priority_delta_not_positive():
    locals_ = SIDE + ("  table pd_t { key = { meta.a : ternary; } actions = { keep; }\n"
                      "    priority_delta = 0; }\n")
    text = program(locals_=locals_, body="pd_t.apply();")
    assert_error(text, "0; }", "table property priority_delta must be a positive integer, not 0")


def test_counted_priority_below_one():
    locals_ = SIDE + ("  table pd_t { key = { meta.a : ternary; } actions = { keep; } priority_delta = 4;\n"
                      "    entries = { priority = 5 : 1 &&& 1 : keep();\n"
                      "                2 &&& 2 : keep();\n"
                      "                3 &&& 3 : keep(); } }\n")
    text = program(locals_=locals_, body="pd_t.apply();")
    assert_error(text, "3 &&& 3", "this entry's priority would be -3")


def test_duplicate_member_of_a_serializable_enum():
    text = program(top="enum bit<4> twice_e { one = 1, one = 2 }\n", body="meta.a = 1;")
    assert_error(text, "one = 2", "duplicate enum member 'one'")


def test_division_by_constant_zero():
    for op in ("/", "%"):
        text = program(body=f"meta.a = meta.a {op} 0;")
        assert_error(text, "0;", f"division by zero ({op} 0)")


def test_extract_arity_against_varbit():
    top = "header vb_t { bit<8> n; varbit<32> opt; }\nheader fx_t { bit<8> n; }\n"
    for call, needle, msg in (("pkt.extract(vb);", "pkt.extract(vb)", "header vb_t has a varbit field"),
                              ("pkt.extract(fx, 8);", "pkt.extract(fx, 8)", "header fx_t has no varbit field")):
        parser = ("parser xp(packet_in pkt) { vb_t vb; fx_t fx;\n  state start { " + call
                  + " transition accept; } }\n")
        assert_error(program(top=top + parser, body="meta.a = 1;"), needle, msg)


def test_action_parameter_of_extern_type():
    locals_ = "  action use_ctr(counter c) { c.count(0); }\n"
    text = program(locals_=locals_, body="meta.a = 1;")
    assert_error(text, "counter c)", "action parameter 'c' cannot have extern type")


def test_string_with_a_direction():
    text = program(top="extern void say_it(in string words);\n", body="meta.a = 1;")
    assert_error(text, "in string words", "parameter 'words' of type string cannot have a direction (in)")
    text = program(top="extern void say_any<Q>(in Q what);\n", body='say_any("hey");')
    assert_error(text, '"hey"', "a string cannot be passed to in parameter 'what'")


def test_negative_varbit_width():
    text = program(top="header neg_t { varbit<(-4)> v; }\n", body="meta.a = 1;")
    assert_error(text, "varbit<(-4)>", "invalid varbit width -4")


def test_comparing_a_void_call_or_an_apply_result():
    locals_ = SIDE + "  table cmp_t { actions = { keep; } }\n"
    body = "if (cmp_t.apply() == cmp_t.apply()) { meta.a = 1; }"
    assert_error(program(locals_=locals_, body=body), "cmp_t.apply() ==", "== cannot compare a table or its apply")
    body = "if (keep() != keep()) { meta.a = 1; }"
    assert_error(program(locals_=locals_, body=body), "keep() !=", "!= cannot compare a void call")


def test_control_applied_inside_an_action():
    top = "control inner_c(inout bit<8> v) { apply { v = v + 1; } }\n"
    locals_ = "  inner_c() in1;\n  action run_in() { in1.apply(meta.a); }\n"
    text = program(top=top, locals_=locals_, body="run_in();")
    assert_error(text, "in1.apply", "a parser or control cannot be applied inside actions")


def test_entries_with_an_empty_key():
    locals_ = SIDE + "  table nokey_t { key = { } actions = { keep; } const entries = { _ : keep(); } }\n"
    text = program(locals_=locals_, body="nokey_t.apply();")
    assert_error(text, "const entries", "table nokey_t has entries but no key")


def test_table_as_an_argument():
    top = "extern sink_e { sink_e(); void take<Q>(in Q q); }\n"
    locals_ = SIDE + "  table arg_t { actions = { keep; } }\n  sink_e() snk;\n"
    text = program(top=top, locals_=locals_, body="snk.take(arg_t);")
    assert_error(text, "arg_t);", "a table cannot be passed as an argument")


def test_run_time_constructor_argument():
    top = "control sized_c(inout bit<8> v)(bit<8> step) { apply { v = v + step; } }\n"
    text = program(top=top, locals_="  sized_c(meta.a) sz;\n", body="sz.apply(meta.a);")
    assert_error(text, "meta.a) sz", "constructor argument of sized_c must be a compile-time value")


def test_constructor_parameter_passed_on_is_accepted():
    top = ("control sized_c(inout bit<8> v)(bit<8> step) { apply { v = v + step; } }\n"
           "control outer_c(inout bit<8> v)(bit<8> n) { sized_c(n + 1) sz; apply { sz.apply(v); } }\n")
    compile_(program(top=top, locals_="  outer_c(3) oc;\n", body="oc.apply(meta.a);"))


def test_parameter_named_like_a_type_parameter():
    text = program(top="control gen_c<W>(inout bit<8> W) { apply { } }\n", body="meta.a = 1;")
    assert_error(text, "inout bit<8> W", "parameter 'W' has the name of a type parameter of gen_c")


def test_function_missing_a_return():
    top = "bit<8> pick(in bit<8> x) { if (x > 2) { return x; } }\n"
    text = program(top=top, body="meta.a = pick(meta.a);")
    assert_error(text, "bit<8> pick", "function pick does not return a value on every path")


def test_function_returning_on_every_path_is_accepted():
    top = ("bit<8> pick(in bit<8> x) { if (x > 2) { return x; } else { return 1; } }\n"
           "bit<8> pick2(in bit<8> x) { if (x > 2) { return x; } return 0; }\n")
    compile_(program(top=top, body="meta.a = pick(meta.a) + pick2(meta.a);"))


def test_underscore_as_a_function_name_or_a_field_type():
    text = program(top="extern void _(in bit<8> v);\n", body="meta.a = 1;")
    assert_error(text, "extern void _", "'_' is the don't-care: it cannot name a declaration")
    text = program(top="struct wild_s { _ f; }\n", body="meta.a = 1;")
    assert_error(text, "_ f;", "field 'f' cannot have the don't-care type '_'")


def test_out_parameter_of_an_action_with_a_default():
    locals_ = "  action dflt_out(out bit<8> r = 4) { r = 1; }\n"
    text = program(locals_=locals_, body="dflt_out(meta.a);")
    assert_error(text, "out bit<8> r = 4", "out parameter 'r' cannot have a default value")


def test_function_parameter_named_like_its_type_parameter():
    text = program(top="void gen_f<Z>(in bit<8> Z) { }\n", body="meta.a = 1;")
    assert_error(text, "in bit<8> Z", "parameter 'Z' has the name of a type parameter of gen_f")


def test_optional_parameter_of_a_function_with_a_body():
    text = program(top="bit<8> opt_f(@optional in bit<8> q) { return q; }\n", body="meta.a = opt_f(1);")
    assert_error(text, "in bit<8> q) {", "parameter 'q' of function opt_f cannot be @optional")


def test_cast_changing_sign_and_width():
    assert_error(program(body="meta.s = (int<8>) meta.b;"), "(int<8>) meta.b",
                 "cannot cast bit<16> to int<8> directly")


def test_cast_changing_sign_or_width_is_accepted():
    compile_(program(body="meta.s = (int<8>) meta.a; meta.c = (bit<32>) meta.b; meta.s = (int<8>) (bit<8>) meta.b;"))


def test_entry_binding_another_directional_argument():
    locals_ = SIDE + ("  table bind_t { key = { meta.b : exact; } actions = { bump(meta.a); keep; }\n"
                      "    const entries = { 5 : bump(hdr.ipv4.tos, 2); } }\n")
    text = program(locals_=locals_, body="bind_t.apply();")
    assert_error(text, "hdr.ipv4.tos", "argument 'w' of this entry's action differs from the one the actions list")


def test_select_on_a_default_value_or_a_varbit():
    top = "header vsel_t { varbit<16> v; }\n"
    parser = ("parser sp(packet_in pkt, in bit<8> k) { vsel_t vh;\n"
              "  state start { pkt.extract(vh, 8); transition select(%s) { %s: accept; default: reject; } } }\n")
    text = program(top=top + parser % ("k, ...", "(1, 2)"), body="meta.a = 1;")
    assert_error(text, "...)", "this select expression has no type of its own")
    text = program(top=top + parser % ("vh.v", "vh.v"), body="meta.a = 1;")
    assert_error(text, "vh.v)", "a select expression cannot be a varbit<16>")


def test_void_tuple_element():
    text = program(top="extern tv_e { tv_e(); tuple<bit<8>, void> get(); }\n", body="meta.a = 1;")
    assert_error(text, "tuple<bit<8>, void>", "a tuple element cannot have type void")


def _translated(to: str):
    from emulator.p4.p4info import build_p4info

    top = f'@p4runtime_translation("example.org/tr_t", {to})\ntype bit<8> tr_t;\n'
    locals_ = "  action set_tr(tr_t v) { meta.a = (bit<8>) v; }\n  table tr_tab { actions = { set_tr; } }\n"
    text = program(top=top, locals_=locals_, body="tr_tab.apply();")
    return text, lambda: build_p4info(compile_(text).info)


def test_translation_to_another_type_than_bit_or_string():
    # P4Runtime translates to bit<W> or string; `bool` and `int<W>` were taken for string
    for to in ("bool", "int<32>"):
        text, build = _translated(to)
        with pytest.raises(P4Error) as ei:
            build()
        line = text[:text.index("@p4runtime_translation")].count("\n") + 1
        assert str(ei.value).startswith(f"<string>:{line}:1: error: @p4runtime_translation translates to bit<W> "
                                        f"or string, not '{to}'"), str(ei.value)


def test_translation_to_a_computed_width():
    _, build = _translated("bit<5+3>")
    assert build().type_info.new_types["tr_t"].translated_type.sdn_bitwidth == 8
