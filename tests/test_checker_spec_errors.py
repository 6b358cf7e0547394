"""Errors the P4-16 specification requires that the checker once let through (found by compiling p4c's
testdata/p4_16_errors): each test is a minimal program of our own showing one rule, with its file:line:col."""
from __future__ import annotations

from checker_util import HEAD, REST, assert_error

INGRESS = "\ncontrol I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }\n"


def with_parser(top: str, start_body: str) -> str:
    return (HEAD + top + "\nparser P(packet_in pkt, out headers_t hdr, inout meta_t meta, "
            "inout standard_metadata_t sm) {\n  state start {\n" + start_body + "\n    transition accept;\n  }\n}\n"
            + INGRESS + REST)


def test_lookahead_of_void_is_refused_not_a_crash():
    text = with_parser("", "    pkt.lookahead<void>();")
    assert_error(text, "pkt.lookahead", "lookahead: the type must have a fixed width, not void")


def test_lookahead_of_a_header_with_a_varbit_is_refused():
    text = with_parser("header opts_t { bit<8> kind; varbit<64> body; }",
                       "    opts_t o = pkt.lookahead<opts_t>();")
    assert_error(text, "pkt.lookahead", "lookahead: the type must have a fixed width, not opts_t (it holds a varbit)")


def test_lookahead_of_fixed_width_types_still_compiles():
    from checker_util import compile_
    compile_(with_parser("struct pair_t { bit<4> a; bool b; }",
                         "    bit<16> t = pkt.lookahead<bit<16>>();\n    pair_t p = pkt.lookahead<pair_t>();\n"
                         "    eth_t e = pkt.lookahead<eth_t>();"))


def test_table_applied_in_another_tables_action_list_is_refused():
    from checker_util import program
    text = program(locals_="""
  table probe { key = { hdr.eth.etype : exact; } actions = { NoAction; } }
  action mark(in bool seen) { meta.f = seen; }
  table outer { key = { hdr.eth.dst : exact; } actions = { mark(probe.apply().hit); } }""",
                   body="outer.apply();")
    assert_error(text, "probe.apply()", "tables cannot be applied inside a table's actions or properties")


def test_table_applied_in_a_key_compiles():
    """p4c accepts it (issue2362-bmv2); tests/test_table_apply_in_key.py runs it."""
    from checker_util import compile_, program
    compile_(program(locals_="""
  table probe { key = { hdr.eth.etype : exact; } actions = { NoAction; } }
  table outer { key = { probe.apply().hit : exact; } actions = { NoAction; } }""",
                     body="outer.apply();"))


def test_action_list_arguments_from_the_apply_blocks_scope_still_compile():
    from checker_util import compile_, program
    compile_(program(locals_="""
  action mark(in bool seen) { meta.f = seen; }
  table outer { key = { hdr.eth.dst : exact; } actions = { mark(hdr.eth.isValid()); } }""",
                     body="outer.apply();"))


def test_extract_of_dont_care_without_a_type_argument_is_refused_with_a_location():
    text = with_parser("", "    pkt.extract(_);")
    assert_error(text, "_);", "cannot infer the type of '_' passed to extract; give the type argument explicitly")


def test_extract_of_dont_care_with_a_type_argument_still_compiles():
    from checker_util import compile_
    compile_(with_parser("", "    pkt.extract<eth_t>(_);"))


def test_tuple_of_a_control_type_is_refused():
    from checker_util import program
    text = program(top="control Stage();\nconst bit<8> unused = 0;\nvoid run_all(tuple<Stage> stages) { }")
    assert_error(text, "tuple<Stage>", "a tuple element cannot have type Stage")


def test_struct_field_of_an_extern_type_is_refused():
    from checker_util import program
    text = program(top="struct holder_t { bit<8> n; register<bit<8>> r; }")
    assert_error(text, "register<bit<8>> r;", "field 'r' of struct holder_t cannot have type register")


def test_generic_header_union_specialized_with_a_non_header_is_refused():
    from checker_util import program
    text = program(top="header_union either_t<X> { X one; }", body="either_t<bit<8>> u;")
    assert_error(text, "either_t<bit<8>> u", "header_union member 'one' of either_t<...> would have type bit<8>")


def test_generic_header_union_of_headers_still_compiles():
    from checker_util import compile_, program
    compile_(program(top="header_union either_t<X, Y> { X one; Y two; }",
                     body="either_t<eth_t, vlan_t> u; u.one.setValid();"))


def test_string_variable_is_refused():
    from checker_util import program
    text = program(body='string greeting = "hi";')
    assert_error(text, "string greeting", "variable 'greeting' cannot have type string")


def test_string_struct_field_is_refused():
    from checker_util import program
    text = program(top="struct note_t { bit<8> n; string text; }")
    assert_error(text, "string text;", "field 'text' of struct note_t cannot have type string")


def test_string_constants_and_extern_arguments_still_compile():
    from checker_util import compile_, program
    compile_(program(top='const string GREETING = "hi";', body="log_msg(GREETING);"))


def test_cast_to_a_new_type_from_another_width_is_refused():
    from checker_util import program
    text = program(top="type bit<4> nibble_t;", body="nibble_t n = (nibble_t)meta.a;")
    assert_error(text, "(nibble_t)meta.a", "cannot cast bit<8> to nibble_t")


def test_cast_to_a_new_type_from_its_own_type_or_a_constant_still_compiles():
    from checker_util import compile_, program
    compile_(program(top="type bit<8> octet_t;", body="octet_t n = (octet_t)meta.a; octet_t k = (octet_t)3;"
                     " meta.a = (bit<8>)n; n = (octet_t)(bit<8>)meta.b;"))


def test_action_run_compared_with_eq_is_refused():
    from checker_util import program
    text = program(locals_="  table t { key = { hdr.eth.etype : exact; } actions = { NoAction; } }",
                   body="if (t.apply().action_run == t.apply().action_run) { meta.a = 1; }")
    assert_error(text, "t.apply().action_run ==", "== is not defined on action_run")


def test_largest_priority_wins_must_be_a_bool():
    from checker_util import program
    text = program(locals_='  table t { key = { hdr.eth.etype : ternary; } actions = { NoAction; } '
                           'largest_priority_wins = 1; }', body="t.apply();")
    assert_error(text, "1; }", "table property largest_priority_wins must be a compile-time bool, not int")


def test_name_annotation_must_be_a_string():
    from checker_util import program
    text = program(locals_='  @name(7) action mark() { }\n  table t { key = { hdr.eth.etype : exact; } '
                           'actions = { mark; } }', body="t.apply();")
    assert_error(text, "@name(7)", "@name takes a string literal, not '7'")


def test_action_run_switch_label_that_is_an_expression_is_named_as_such():
    from checker_util import program
    text = program(locals_="  table t { key = { hdr.eth.etype : exact; } actions = { NoAction; } }",
                   body="switch (t.apply().action_run) { 3: { meta.a = 1; } default: { } }")
    assert_error(text, "3: {", "a switch on t.apply().action_run takes action names of table t (or default) as "
                 "labels, not an expression")
