"""The semantic checker's name resolution and callees: declarations, extern methods, generics, packet and
header methods, tables, sub-blocks, functions, loops; and the whole corpus checks."""
from __future__ import annotations

import pytest
from checker_util import HEAD, REST, assert_error, body_stmts, compile_, ingress, program

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T


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
meta.c = hdr.vlans.size - 1;
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


def test_whole_corpus_checks(tmp_path):
    """Every program in the STF corpus and p4src passes the checker and summary."""
    from pathlib import Path

    from emulator.p4.frontend import load_program

    root = Path(__file__).parent.parent
    files = sorted((root / "tests" / "stf").glob("*.p4")) + sorted((root / "p4src").glob("*.p4"))
    for f in files:
        load_program(f)

