"""The semantic checker's diagnostics: each error's message and its file:line:col."""
from __future__ import annotations

import pytest
from checker_util import HEAD, assert_error, body_stmts, compile_, program

from emulator.errors import P4Error
from emulator.p4 import types as T


def test_error_undeclared_name():
    text = program(body="meta.a = nosuch;")
    assert_error(text, "nosuch", "undeclared name 'nosuch'")


def test_error_undeclared_type():
    text = program(body="nosuch_t x;")
    assert_error(text, "nosuch_t", "undeclared type 'nosuch_t'")


def test_error_width_mismatch():
    text = program(body="meta.b = meta.a + meta.b;")
    assert_error(text, "meta.a + meta.b", "width mismatch: + operands have types bit<8> and bit<16>")


def test_error_assignment_type_mismatch():
    text = program(body="meta.b = meta.a;")
    assert_error(text, "meta.a;", "type mismatch: expected bit<16>, got bit<8>")


def test_error_bool_int_mismatch():
    text = program(body="meta.f = 1;")
    assert_error(text, "1;", "type mismatch: expected bool, got int")


def test_error_assign_to_in_parameter():
    text = HEAD + """
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { hdr.eth.dst = 1; pkt.emit(hdr); } }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { transition accept; } }
"""
    assert_error(text, "hdr.eth.dst = 1", "cannot assign to in parameter 'hdr'")


def test_error_assign_to_action_data_parameter():
    text = program(locals_="action a(bit<8> v) { v = 1; }")
    assert_error(text, "v = 1", "cannot assign to directionless parameter 'v'")


def test_error_assign_to_constant():
    text = program(top="const bit<8> K = 1;\n", body="K = 2;")
    assert_error(text, "K = 2", "cannot assign to constant 'K'")


def test_error_wrong_number_of_arguments():
    text = program(locals_="action a(bit<8> v) { }", body="a(1, 2);")
    assert_error(text, "a(1, 2)", "wrong number of arguments for a: expected 1, got 2")


def test_error_duplicate_declaration():
    text = program(locals_="bit<8> x; bit<16> x;")
    assert_error(text, "bit<16> x", "duplicate declaration of 'x'")


def test_error_unknown_match_kind():
    text = program(locals_="table t { key = { meta.a: fuzzy; } actions = { NoAction; } }")
    assert_error(text, "meta.a: fuzzy", "unknown match kind 'fuzzy'")


def test_error_default_action_not_in_actions():
    text = program(locals_="action a() { } action b() { } table t { actions = { a; } default_action = b(); }")
    assert_error(text, "b();", "default action 'b' is not in the actions list of table t")


def test_error_non_constant_width():
    text = program(body="bit<(meta.a)> x;")
    assert_error(text, "meta.a)>", "width must be a compile-time integer constant")


def test_error_non_constant_entry_key():
    text = program(locals_="""action a() { }
table t { key = { meta.a: exact; } actions = { a; } const entries = { meta.a : a(); } }""")
    assert_error(text, "meta.a : a()", "table entry keys must be compile-time constants")


def test_error_concat_needs_width():
    text = program(body="meta.b = meta.a ++ 1;")
    assert_error(text, "1;", "operand of ++ needs a width (cast the constant)")


def test_error_slice_out_of_range():
    text = program(body="meta.a = meta.b[16:9];")
    assert_error(text, "meta.b[16:9]", "slice [16:9] is out of range for bit<16>")


def test_error_no_such_field():
    text = program(body="meta.zz = 1;")
    assert_error(text, "meta.zz", "struct meta_t has no field 'zz'")


def test_error_switch_label_not_an_action():
    text = program(locals_="action a() { } action b() { } table t { actions = { a; } }",
                   body="switch (t.apply().action_run) { b: { } }")
    assert_error(text, "b: {", "'b' is not an action of table t")


def test_error_if_condition_not_bool():
    text = program(body="if (meta.a) { }")
    assert_error(text, "meta.a)", "if condition must be bool, not bit<8>")


def test_error_out_argument_must_be_lvalue():
    text = program(locals_="register<bit<32>>(4) r;", body="r.read(meta.c + 1, 0);")
    assert_error(text, "meta.c + 1", "cannot pass this expression as an out argument")


def test_error_in_parameter_passed_as_inout():
    text = HEAD + """
control D(packet_out pkt, in headers_t hdr) {
  action a(inout bit<48> x) { }
  apply { a(hdr.eth.dst); pkt.emit(hdr); }
}
"""
    assert_error(text, "hdr.eth.dst)", "cannot pass in parameter 'hdr' as an inout argument")


def test_error_unsupported_construct_named():
    text = program(locals_="register<bit<32>>(4) r = { void apply() { } };")
    with pytest.raises(P4Error) as ei:
        compile_(text)
    assert "not supported" in str(ei.value) or "error" in str(ei.value)


def test_error_generic_inference_failure():
    text = program(body="bit<8> x = 0; random(x, 0, 1);")
    prog = compile_(text)  # InfInt arguments next to a bound T take its width
    call = body_stmts(prog)[1].call
    assert call.callee.args[1].type == T.Bits(8)
    text = program(body="meta.a = hdr.eth.src;")
    assert_error(text, "hdr.eth.src;", "type mismatch: expected bit<8>, got bit<48>")


def test_error_extern_type_argument_not_inferable():
    text = program(locals_="register(8) r;")
    assert_error(text, "register(8) r", "cannot infer type argument T of extern register; give it explicitly")


def test_error_return_value_in_control():
    text = program(body="return 1;")
    assert_error(text, "return 1", "return with a value in a block that returns nothing")


def test_error_function_return_type():
    text = program(top="bit<8> f(in bit<8> v) { return v == 1; }\n")
    assert_error(text, "v == 1", "type mismatch: expected bit<8>, got bool")


def test_error_table_applied_in_action():
    text = program(locals_="table t { actions = { NoAction; } } action a() { t.apply(); }")
    assert_error(text, "t.apply(); }", "tables cannot be applied inside actions")


def test_error_unknown_enum_member_and_error():
    text = program(top="enum Color { RED }\n", body="Color c = Color.BLUE;")
    assert_error(text, "Color.BLUE", "enum Color has no member 'BLUE'")
    text = program(body="verify(true, error.NoSuch);")
    assert_error(text, "error.NoSuch", "error.NoSuch is not declared")


def test_error_parser_state_undeclared_and_missing_start():
    text = HEAD + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { transition nowhere; }
}
"""
    assert_error(text, "nowhere", "undeclared state 'nowhere'")
    text = HEAD + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state other { transition accept; }
}
"""
    assert_error(text, "parser P", "parser P has no 'start' state")


def test_error_select_keyset_width():
    text = HEAD + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 24w0x1: accept; default: reject; } }
}
"""
    assert_error(text, "24w0x1", "type mismatch: expected bit<16>, got bit<24>")


def test_error_shift_by_signed_and_division_of_signed():
    text = program(body="meta.a = meta.a << meta.s;")
    assert_error(text, "meta.s;", "shift amount must be an unsigned integer, not int<8>")
    text = program(body="meta.s = meta.s / 2;")
    assert_error(text, "meta.s / 2", "operator / is not defined on signed int<8>")


def test_error_named_argument_unknown():
    text = program(top="extern void ext_fn(in bit<8> x);\n", body="ext_fn(z = 1);")
    with pytest.raises(P4Error) as ei:
        compile_(text)
    assert "error: ext_fn has no parameter named 'z'" in str(ei.value)


def test_error_bad_cast():
    text = program(body="meta.f = (bool)meta.a;")
    assert_error(text, "(bool)meta.a", "cannot cast bit<8> to bool")


def test_error_header_stack_index_out_of_range():
    text = program(body="hdr.vlans[2].setValid();")
    assert_error(text, "2].setValid", "index 2 is out of range for vlan_t[2]")


def test_error_block_does_not_match_package_parameter():
    text = HEAD + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { transition accept; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, in meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    assert_error(text, "E(), C()", "control E does not match control type Egress: parameter 2 'meta' is in, "
                 "inout expected")


def test_error_block_parameter_type_differs_from_package_binding():
    text = HEAD + """
struct other_t { bit<8> z; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { transition accept; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout other_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    assert_error(text, "E(), C()", "control E does not match control type Egress: parameter 2 'meta' has type "
                 "other_t, meta_t expected")


def test_frontend_file_errors_name_the_file_and_include_dirs(tmp_path):
    from emulator.p4.frontend import load_preprocessed_text, load_program

    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "defs.p4").write_text("const bit<8> K = 3;\n")
    src = tmp_path / "prog.p4"
    src.write_text('#include <core.p4>\n#include "defs.p4"\nconst bit<8> J = K + 1;\nconst bit<8> BAD = undefined_name;\n')
    with pytest.raises(P4Error) as ei:
        load_program(src, include_dirs=[inc])
    assert str(ei.value).startswith(f"{src}:4:20: error: undeclared name 'undefined_name'")
    assert "const bit<8> BAD" in str(ei.value)  # the source line and a caret follow
    src.write_text('#include <core.p4>\n#include "defs.p4"\nconst bit<8> J = K + 1;\n')
    prog = load_program(src, include_dirs=[inc])
    j = next(d for d in prog.ast.declarations if getattr(d, "name", "") == "J")
    assert j.value.const_value == 4 and prog.source_path == str(src)
    again = load_preprocessed_text(prog.preprocessed.text, "prog.p4")
    assert any(getattr(d, "name", "") == "J" for d in again.ast.declarations)
    with pytest.raises(P4Error):
        load_program(tmp_path / "missing.p4")

