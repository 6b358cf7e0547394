"""The semantic checker: annotations (types, constants, declarations, callees) and diagnostics."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.frontend import load_program_text

HEAD = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<32> src; bit<32> dst; }
header vlan_t { bit<16> tci; bit<16> etype; }
struct headers_t { eth_t eth; vlan_t[2] vlans; ipv4_t ipv4; }
struct meta_t { bit<8> a; bit<16> b; bit<32> c; int<8> s; bool f; }
"""

PARSER = """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { pkt.extract(hdr.eth); transition accept; }
}
"""
REST = """
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
BLOCKS = PARSER + REST


def program(top: str = "", locals_: str = "", body: str = "") -> str:
    return (HEAD + top + "\ncontrol I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
            + locals_ + "\n  apply {\n" + body + "\n  }\n}\n" + BLOCKS)


def compile_(text: str):
    return load_program_text(text)


def ingress(prog):
    return next(d for d in prog.ast.declarations if isinstance(d, ast.ControlDecl) and d.name == "I")


def body_stmts(prog):
    return ingress(prog).body.statements


def loc_of(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def assert_error(text: str, needle: str, message: str, nth: int = 0) -> P4Error:
    with pytest.raises(P4Error) as ei:
        compile_(text)
    line, col = loc_of(text, needle, nth)
    s = str(ei.value)
    assert s.startswith(f"<string>:{line}:{col}: error: {message}"), s
    return ei.value


# ------------------------------------------------------------------------------------------------ annotations


def test_literal_gets_width_from_context():
    prog = compile_(program(body="meta.a = 5; meta.b = meta.b + 1;"))
    s1, s2 = body_stmts(prog)
    assert s1.right.type == T.Bits(8) and s1.right.const_value == 5
    assert s2.right.type == T.Bits(16)
    assert s2.right.right.type == T.Bits(16) and s2.right.right.const_value == 1
    assert s1.left.type == T.Bits(8)
    assert isinstance(s1.left.decl, ast.StructField) and s1.left.decl.name == "a"


def test_const_folding_infinite_precision_and_widths():
    prog = compile_(program(top="""
const int W = 7;
const bit<16> X = 0x800;
const bit<8> WRAP = 250 - 4;
const int BIG = (1 << 100) >> 98;
typedef bit<(W + 1)> byte_t;
""", body="byte_t v = 8w255; meta.a = v + WRAP; meta.c = (bit<32>)BIG; meta.b = X;"))
    decls = {d.name: d for d in prog.ast.declarations if isinstance(d, ast.ConstDecl)}
    assert decls["X"].value.const_value == 0x800
    assert decls["BIG"].value.const_value == 4
    assert decls["BIG"].value.type == T.INFINT
    assert decls["WRAP"].value.const_value == 246 and decls["WRAP"].value.type == T.Bits(8)
    v = body_stmts(prog)[0]
    assert v.decl_type.resolved == T.Bits(8)
    assert body_stmts(prog)[2].right.const_value == 4
    assert body_stmts(prog)[3].right.decl is decls["X"]


def test_operator_result_types():
    prog = compile_(program(body="""
bit<24> c = hdr.eth.src[23:0];
bit<40> cc = hdr.eth.src[23:0] ++ 8w1 ++ meta.a;
bool b1 = meta.a < 3;
bit<8> sh = meta.a << 3;
bit<16> sat = meta.b |+| 16w0xffff;
int<8> neg = -meta.s;
bit<1> one = (bit<1>)meta.f;
bool back = (bool)one;
int<8> si = (int<8>)meta.a;
"""))
    st = body_stmts(prog)
    assert st[0].init.type == T.Bits(24)
    assert st[1].init.type == T.Bits(40)
    assert st[2].init.type == T.BOOL
    assert st[3].init.type == T.Bits(8) and st[3].init.right.type == T.INFINT
    assert st[4].init.type == T.Bits(16)
    assert st[5].init.type == T.Bits(8, True)
    assert st[6].init.type == T.Bits(1)
    assert st[7].init.type == T.BOOL
    assert st[8].init.type == T.Bits(8, True)


def test_constant_ops_fold_with_wrapping():
    prog = compile_(program(top="""
const bit<8> A = 8w250 + 8w10;
const bit<8> S = 8w250 |+| 8w10;
const bit<8> DS = 8w5 |-| 8w10;
const int<8> N = (int<8>)8w200;
const bit<12> CAT = 4w0xA ++ 8w0xBC;
const bit<4> SL = CAT[7:4];
const bool B = A == 4 && !(S != 255);
const bit<32> M = ~32w0 >> 4;
"""))
    c = {d.name: d.value.const_value for d in prog.ast.declarations
         if isinstance(d, ast.ConstDecl) and not d.name.startswith("__")}
    assert c == {"A": 4, "S": 255, "DS": 0, "N": -56, "CAT": 0xABC, "SL": 0xB, "B": True, "M": 0x0FFFFFFF}


def test_enums_errors_and_serializable_enums():
    prog = compile_(program(top="""
enum bit<16> EtherType { IPV4 = 0x800, ARP = 0x806 }
enum Color { RED, GREEN, BLUE }
error { MyErr }
""", body="""
Color c = Color.BLUE;
bit<16> e = EtherType.ARP;
meta.b = hdr.eth.etype + EtherType.IPV4;
error err = error.MyErr;
"""))
    st = body_stmts(prog)
    assert st[0].init.const_value == 2 and isinstance(st[0].init.type, T.Enum)
    assert isinstance(st[0].init.decl, ast.IdDecl) and st[0].init.decl.name == "BLUE"
    assert st[1].init.const_value == 0x806 and isinstance(st[1].init.type, T.SerEnum)
    assert prog.error_type.members[-1] == "MyErr"
    err_arg = st[3].init
    assert err_arg.const_value == prog.error_type.members.index("MyErr")
    assert err_arg.decl.name == "MyErr"
    assert "NoError" in prog.error_type.members and "exact" in prog.match_kinds


def test_name_references_resolve_to_declarations():
    prog = compile_(program(locals_="""
  bit<8> tmp;
  action a(bit<8> v) { tmp = v; meta.a = tmp; }
  table t { key = { meta.a: exact; } actions = { a; NoAction; } }
""", body="t.apply(); a(3);"))
    ctl = ingress(prog)
    tmp, act, tbl = ctl.locals
    s1 = act.body.statements[0]
    assert s1.left.decl is tmp and s1.right.decl is act.params[0]
    call = body_stmts(prog)[0].call
    assert call.callee.kind == "table_apply" and call.callee.decl is tbl
    assert call.target.expr.decl is tbl
    assert isinstance(call.type, T.ApplyResult)
    acall = body_stmts(prog)[1].call
    assert acall.callee.kind == "action" and acall.callee.decl is act
    assert acall.callee.args[0].type == T.Bits(8) and acall.callee.args[0].const_value == 3
    assert tbl.key.elements[0].match_kind_decl.name == "exact"


def test_callee_extern_methods_and_generics():
    prog = compile_(program(locals_="""
  register<bit<32>>(64) reg;
  counter(16, CounterType.packets) cnt;
""", body="""
reg.read(meta.c, 3);
reg.write((bit<32>)meta.a, meta.c |+| 1);
cnt.count(2);
hash(meta.b, HashAlgorithm.crc16, 16w0, { hdr.ipv4.src, hdr.ipv4.dst }, 32w1024);
digest<meta_t>(1, meta);
mark_to_drop(sm);
"""))
    reg, cnt = ingress(prog).locals
    assert reg.callee.kind == "constructor"
    assert reg.callee.extern == T.Extern("register", ("T",), (T.Bits(32),)) or \
        reg.callee.extern.type_args[0] == T.Bits(32)
    assert reg.callee.args[0].type == T.Bits(32) and reg.callee.args[0].const_value == 64
    st = body_stmts(prog)
    rd = st[0].call.callee
    assert rd.kind == "extern_method" and rd.name == "read" and rd.instance is reg
    assert rd.params[0].type == T.Bits(32) and rd.params[0].direction == "out"
    assert rd.args[1].type.width == 32 and rd.args[1].const_value == 3
    assert st[1].call.callee.args[1].right.type == T.Bits(32)
    assert st[2].call.callee.instance is cnt
    h = st[3].call.callee
    assert h.kind == "extern_function" and h.name == "hash"
    assert h.type_args["O"] == T.Bits(16) and h.type_args["M"] == T.Bits(32)
    assert h.type_args["D"] == T.Tuple((T.Bits(32), T.Bits(32)))
    assert h.args[3].type == T.Tuple((T.Bits(32), T.Bits(32)))
    dg = st[4].call.callee
    assert dg.type_args["T"].name == "meta_t"
    md = st[5].call.callee
    assert md.kind == "extern_function" and md.name == "mark_to_drop" and len(md.args) == 1


def test_packet_methods_and_lookahead():
    text = HEAD + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start {
    pkt.extract(hdr.eth);
    bit<16> la = pkt.lookahead<bit<16>>();
    transition select(la) { 0x8100 &&& 0xEFFF: vl; default: accept; }
  }
  state vl { pkt.extract(hdr.vlans.next); transition select(hdr.vlans.last.etype) { 0x8100: vl; default: accept; } }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
""" + REST
    prog = compile_(text)
    p = next(d for d in prog.ast.declarations if isinstance(d, ast.ParserDecl))
    start, vl = p.states
    ex = start.statements[0].call.callee
    assert ex.kind == "extern_method" and ex.extern.name == "packet_in" and ex.type_args["T"].name == "eth_t"
    la = start.statements[1].init
    assert la.type == T.Bits(16) and la.callee.name == "lookahead"
    sel = start.transition.target
    case = sel.cases[0]
    assert isinstance(case.keyset, ast.Mask) and case.keyset.value.type == T.Bits(16)
    assert case.state.decl is vl
    assert sel.cases[1].state.decl.name == "accept"
    nxt = vl.statements[0].call.callee.args[0]
    assert nxt.name == "next" and nxt.type.name == "vlan_t"


def test_header_and_stack_methods():
    prog = compile_(program(body="""
if (hdr.ipv4.isValid()) { hdr.ipv4.setInvalid(); }
hdr.vlans.push_front(1);
hdr.vlans[0].setValid();
meta.c = hdr.vlans.lastIndex;
meta.b = hdr.ipv4.minSizeInBytes();
meta.c = hdr.vlans.size;
"""))
    st = body_stmts(prog)
    assert st[0].cond.callee.kind == "header_method" and st[0].cond.type == T.BOOL
    assert st[1].call.callee.kind == "stack_method" and st[1].call.callee.args[0].const_value == 1
    assert st[2].call.callee.receiver.type.name == "vlan_t"
    assert st[3].right.type == T.Bits(32)
    assert st[4].right.const_value == 12 and st[4].right.type == T.Bits(16)
    assert st[5].right.const_value == 2


def test_switch_on_action_run_labels_resolve_to_actions():
    prog = compile_(program(locals_="""
  action a1() { } action a2() { }
  table t { key = { meta.a: exact; } actions = { a1; a2; } }
""", body="switch (t.apply().action_run) { a1: { meta.a = 1; } a2: { } default: { } }"))
    a1, a2, _ = ingress(prog).locals
    sw = body_stmts(prog)[0]
    assert isinstance(sw.expr.type, T.ActionEnum)
    assert sw.cases[0].label.decl is a1 and sw.cases[1].label.decl is a2


def test_named_arguments_and_default_values():
    prog = compile_(program(top="""
extern void ext_fn(in bit<8> x, in bit<16> y = 7);
action pa(bit<8> x, bit<16> y) { }
""", body="ext_fn(y = 3, x = 2); ext_fn(1);"))
    c1, c2 = (s.call.callee for s in body_stmts(prog))
    assert [a.const_value for a in c1.args] == [2, 3]
    assert c2.args[1].const_value == 7 and c2.args[1].type == T.Bits(16)


def test_sub_control_apply_and_constructor_params():
    prog = compile_(program(top="""
control Sub(inout meta_t m)(bit<8> k) { apply { m.a = k; } }
""", locals_="Sub(8w3) s1;", body="s1.apply(meta);"))
    s1 = ingress(prog).locals[0]
    assert s1.callee.kind == "constructor" and s1.callee.args[0].const_value == 3
    ap = body_stmts(prog)[0].call.callee
    assert ap.kind == "block_apply" and ap.decl.name == "Sub" and ap.instance is s1


def test_table_const_entries_typed():
    prog = compile_(program(locals_="""
  action a(bit<8> v) { meta.a = v; }
  table t {
    key = { meta.b: ternary; meta.f: exact; }
    actions = { a; }
    const entries = { (0x10 &&& 0xf0, true): a(1); (_, false): a(2); }
  }
"""))
    t = ingress(prog).locals[1]
    e0 = t.entries.entries[0]
    assert e0.keyset.components[0].value.type == T.Bits(16)
    assert e0.action.callee.args[0].const_value == 1


def test_tuples_struct_initializers_and_lists():
    prog = compile_(program(body="""
tuple<bit<8>, bit<16>> tp = { 1, 2 };
meta.a = tp[0];
meta_t m2 = { a = 1, b = 2, c = 3, s = -1, f = true };
eth_t e2 = { 1, 2, 3 };
hdr.eth = {#};
"""))
    st = body_stmts(prog)
    assert st[0].init.type == T.Tuple((T.Bits(8), T.Bits(16))) and st[0].init.const_value == (1, 2)
    assert st[1].right.type == T.Bits(8)
    assert st[2].init.type.name == "meta_t" and st[2].init.const_value == (1, 2, 3, -1, True)
    assert st[3].init.type.name == "eth_t"
    assert st[4].right.type.name == "eth_t"


def test_newtype_is_nominal_and_typedef_transparent():
    prog = compile_(program(top="type bit<32> ip_t;\ntypedef bit<16> port_t;\n",
                            body="ip_t a = (ip_t)hdr.ipv4.src; port_t p = meta.b; meta.c = (bit<32>)a;"))
    st = body_stmts(prog)
    assert isinstance(st[0].init.type, T.NewType) and st[0].init.type.base == T.Bits(32)
    assert st[1].init.type == T.Bits(16)
    text = program(top="type bit<32> ip_t;\n", body="ip_t a = hdr.ipv4.src;")
    assert_error(text, "hdr.ipv4.src;", "type mismatch: expected ip_t, got bit<32>")


def test_whole_corpus_checks(tmp_path):
    """Every program in the STF corpus and p4src passes the checker and summary."""
    from pathlib import Path

    from emulator.p4.frontend import load_program

    root = Path(__file__).parent.parent
    files = sorted((root / "tests" / "stf").glob("*.p4")) + sorted((root / "p4src").glob("*.p4"))
    for f in files:
        load_program(f)


# ------------------------------------------------------------------------------------------------ diagnostics


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


def test_constant_too_wide_wraps_as_in_p4c():
    # p4c types the constant bit<8> and only warns ("value does not fit in 8 bits", IR::Constant::handleOverflow)
    prog = compile_(program(body="meta.a = 300; meta.s = 200; meta.s = meta.s << 8s2;"))
    a, s, _ = body_stmts(prog)
    assert a.right.type == T.Bits(8) and a.right.const_value == 300 % 256
    assert str(s.right.type) == "int<8>" and s.right.const_value == 200 - 256


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


def test_functions_and_constructor_parameter_defaults():
    prog = compile_(program(top="""
bit<8> add1(in bit<8> v) { return v + 1; }
bool both(in bool a, in bool b) { if (a) { return b; } return false; }
control Sub(inout meta_t m)(bit<8> k = 5) { apply { m.a = k; } }
""", locals_="Sub() s;", body="meta.a = add1(meta.a); meta.f = both(true, meta.a == 3); s.apply(meta);"))
    s = ingress(prog).locals[0]
    assert s.callee.args[0].const_value == 5 and s.callee.args[0].type == T.Bits(8)
    st = body_stmts(prog)
    assert st[0].right.callee.kind == "function" and st[0].right.type == T.Bits(8)
    assert st[1].right.callee.decl.name == "both"


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


def test_explicit_generic_arguments_and_overloads():
    prog = compile_(program(body="""
hash<bit<16>, bit<16>, tuple<bit<32>, bit<32>>, bit<32>>(meta.b, HashAlgorithm.crc16, 0,
                                                          { hdr.ipv4.src, hdr.ipv4.dst }, 1024);
log_msg("plain");
log_msg("with {}", { meta.a });
"""))
    st = body_stmts(prog)
    h = st[0].call.callee
    assert h.args[2].type == T.Bits(16) and h.args[2].const_value == 0
    assert h.args[3].type == T.Tuple((T.Bits(32), T.Bits(32)))
    assert h.args[4].type == T.Bits(32) and h.args[4].const_value == 1024
    assert len(st[1].call.callee.params) == 1 and len(st[2].call.callee.params) == 2
    assert st[2].call.callee.type_args["T"] == T.Tuple((T.Bits(8),))


def test_optional_parameters():
    prog = compile_(program(top="extern void opt_fn(in bit<8> a, @optional in bit<8> b);\n",
                            body="opt_fn(1); opt_fn(1, 2);"))
    c1, c2 = (s.call.callee for s in body_stmts(prog))
    assert c1.args[1] is None and c2.args[1].const_value == 2



def test_types_helpers_and_folding_primitives():
    from emulator.p4 import constfold as cf

    eth = T.Header("eth_t", (T.FieldT("dst", T.Bits(48)), T.FieldT("src", T.Bits(48)), T.FieldT("t", T.Bits(16))))
    opt = T.Header("opt_t", (T.FieldT("len", T.Bits(8)), T.FieldT("data", T.VarBits(32))))
    assert T.width_of(eth) == 112 and T.is_header(eth) and not T.is_header(T.Struct("s", ()))
    assert T.width_of(T.HeaderStack(eth, 3)) == 336
    assert T.width_of(opt) == 40 and T.min_width_of(opt) == 8
    assert T.width_of(T.Bool()) == 1 and T.width_of(T.NewType("ip_t", T.Bits(32))) == 32
    assert str(T.Bits(8, True)) == "int<8>" and str(T.Tuple((T.Bits(1), T.BOOL))) == "tuple<bit<1>, bool>"
    assert T.substitute(T.Tuple((T.TypeVar("T"),)), {"T": T.Bits(4)}) == T.Tuple((T.Bits(4),))
    assert cf.wrap(256, T.Bits(8)) == 0 and cf.wrap(200, T.Bits(8, True)) == -56
    assert cf.binop("|+|", 250, 10, T.Bits(8)) == 255 and cf.binop("|-|", -128, 1, T.Bits(8, True)) == -128
    assert cf.binop("<<", 1, 8, T.Bits(8)) == 0 and cf.binop(">>", -8, 1, T.Bits(8, True)) == -4
    assert cf.concat(0xA, T.Bits(4), 0xBC, T.Bits(8)) == 0xABC and cf.slice_bits(0xABC, 7, 4) == 0xB
    assert cf.cast(True, T.BOOL, T.Bits(1)) == 1 and cf.cast(-1, T.INFINT, T.Bits(16)) == 0xFFFF
    with pytest.raises(cf.FoldError):
        cf.binop("/", 1, 0, T.INFINT)


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


def test_static_assert_is_evaluated():
    prog = compile_(program(top="const int W = 8;\nconst bool ok = static_assert(W == 8, \"W is 8\");\n"))
    ok = next(d for d in prog.ast.declarations if getattr(d, "name", "") == "ok")
    assert ok.value.const_value is True
    text = program(top="const int W = 8;\nconst bool ok = static_assert(W > 8, \"W too small\");\n")
    assert_error(text, "static_assert(W > 8", "static assertion failed: W too small")


def test_generic_functions_are_specialized_per_type():
    prog = compile_(program(top="""
T pick_max<T>(in T x, in T y) { return x > y ? x : y; }
""", body="meta.a = pick_max(meta.a, 8w3); meta.b = pick_max(meta.b, meta.b); meta.a = pick_max(meta.a, meta.a);"))
    c1, c2, c3 = (s.right.callee for s in body_stmts(prog))
    assert c1.decl is not c2.decl and c1.decl is c3.decl
    assert c1.decl.type_params == [] and c1.decl._type_args == {"T": T.Bits(8)}
    assert c2.decl.params[0].param_type.resolved == T.Bits(16)
    ret = c2.decl.body.statements[0].value
    assert ret.type == T.Bits(16) and ret.cond.type == T.BOOL
    assert len(prog.specializations) == 2 and c1.ret == T.Bits(8)
    text = program(top="T f<T>(in T x) { return x + true; }\n", body="meta.a = f(meta.a);")
    assert_error(text, "x + true", "type mismatch: + operands have types bit<8> and bool")


def test_struct_expression_with_dots_and_missing_field():
    prog = compile_(program(body="meta_t m2 = { a = 1, ... }; meta_t m3 = { b = 2, a = 1, c = 3, s = 0, f = false };"))
    st = body_stmts(prog)
    assert st[0].init.type.name == "meta_t"
    assert st[0].init.const_value == (1, 0, 0, 0, False)  # `...`: the other fields take their default values
    assert st[1].init.const_value == (1, 2, 3, 0, False)  # declaration order, not written order
    text = program(body="meta_t m2 = { a = 1 };")
    assert_error(text, "{ a = 1 }", "field 'b' of meta_t is missing")


# ------------------------------------------------------------------------------------------------ for loops

def test_for_loops_check_scopes_types_and_break_placement():
    prog = compile_(program(body="""
    bit<8> total = 0;
    for (bit<8> i = 0; i < 4; i = i + 1) { total = total + i; if (total > 3) { break; } }
    for (bit<8> i in 1 .. 3) { total = total + i; }
    """))
    loops = [s for s in body_stmts(prog) if isinstance(s, (ast.ForStatement, ast.ForInStatement))]
    assert len(loops) == 2 and loops[1].collection.type == T.Bits(8)
    assert_error(program(body="break;"), "break", "break outside a for loop")
    assert_error(program(body="for (bit<8> i = 0; i; i = i + 1) { }"), "i; i", "for condition must be bool")
    text = program(body="for (bit<8> i = 0; i < 2; i = i + 1) { } sm.egress_spec = (bit<9>)i;")
    with pytest.raises(P4Error, match="'i'"):
        compile_(text)  # the loop variable is scoped to the loop
    assert_error(program(body="for (bit<8> x in hdr) { }"), "hdr)", "a for-in loop iterates over")


# ------------------------------------------------------------------------------------------------ header fields

def test_headers_may_hold_structs_of_fixed_width_fields():
    # P4-16 1.2.2: a header field may be a struct whose fields are (recursively) fixed-width
    prog = compile_(program(top="struct in_t { bit<3> x; bool f; }\nstruct row_t { bit<4> e; in_t i; }\n"
                                "header rh_t { row_t row; }\nstruct h2_t { rh_t r; }",
                            body="rh_t r; r.setValid(); r.row.i.x = 1;"))
    assert prog is not None
    text = program(top="struct bad_t { varbit<8> v; }\nheader bh_t { bad_t b; }")
    with pytest.raises(P4Error, match="header field 'b' has type bad_t"):
        compile_(text)


# ------------------------------------------------------------------------------------------------ direct invocation

def test_direct_type_invocation_declares_an_instance_named_after_the_type():
    prog = compile_(program(top="control Sub(inout bit<8> x) { apply { x = x + 1; } }",
                            body="Sub.apply(meta.a); Sub.apply(meta.a);"))
    inst = [d for d in ingress(prog).locals if isinstance(d, ast.Instantiation)]
    assert [(d.name, d.inst_type.path) for d in inst] == [("Sub", "Sub")]  # both calls share it
    calls = [s.call for s in body_stmts(prog)]
    assert all(c.target.expr.decl is inst[0] for c in calls)
    text = program(top="control Sub2(inout bit<8> x)(bit<8> k) { apply { x = x + k; } }", body="Sub2.apply(meta.a);")
    with pytest.raises(P4Error, match="takes constructor arguments"):
        compile_(text)
