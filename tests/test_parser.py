"""The P4-16 lexer and parser: AST shapes of every construct, diagnostics with file:line:col and caret, the
whole of our v1model.p4, a realistic program, and parsing speed."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.lexer import SourceText, tokenize
from emulator.p4.parser import parse_expression, parse_program
from emulator.p4.preprocess import INCLUDE_DIR, preprocess, preprocess_text

D = ast.dump


def P(name):
    return ("PathExpression", name, False)


def I(value, width=None, signed=False, base=10):  # noqa: E743
    return ("IntLiteral", value, width, signed, base)


def expr(text, types=()):
    return D(parse_expression(text, type_names=types))


def decls(text):
    return parse_program(text).declarations


def one(text):
    ds = decls(text)
    assert len(ds) == 1
    return ds[0]


def body(stmts, preamble=""):
    """Statements parsed inside a control's apply block."""
    c = one(preamble + "control C(inout bit<8> x) { apply { " + stmts + " } }") if not preamble else \
        decls(preamble + "control C(inout bit<8> x) { apply { " + stmts + " } }")[-1]
    return c.body.statements


# ---------------------------------------------------------------------------------------------- lexer


def test_integer_literal_forms():
    assert expr("5") == I(5)
    assert expr("0x1F") == I(31, base=16)
    assert expr("0b1010") == I(10, base=2)
    assert expr("0o17") == I(15, base=8)
    assert expr("0d99") == I(99)
    assert expr("1_000_000") == I(1000000)
    assert expr("8w5") == I(5, 8)
    assert expr("8w0xFF") == I(255, 8, False, 16)
    assert expr("4s3") == I(3, 4, True)
    assert expr("16w0b1111_0000") == I(0xF0, 16, False, 2)
    assert expr("-8s1") == ("Unary", "-", I(1, 8, True))


def test_strings_comments_and_locations():
    src = SourceText('a /* c\n c */ "x\\"y\\n" // z\n  b', "f.p4")
    toks = tokenize(src)
    assert [t.kind for t in toks] == ["ID", "STRING", "ID", "EOF"]
    assert toks[1].value == 'x"y\n'
    assert (toks[1].loc.line, toks[1].loc.col) == (2, 7)
    assert (toks[2].loc.line, toks[2].loc.col) == (3, 3)


def test_keywords_and_soft_keywords():
    toks = tokenize(SourceText("table key actions apply state entries header_union _"))
    assert [t.kind for t in toks[:-1]] == ["table", "ID", "ID", "ID", "ID", "ID", "header_union", "ID"]


def test_line_markers_in_raw_text_map_locations():
    text = '# 10 "orig.p4"\nconst bit<8> x = 1;\n#line 40 "other.p4"\nconst bit<8> y = $;\n'
    with pytest.raises(P4Error) as ei:
        parse_program(text, "pre.p4")
    assert (ei.value.loc.file, ei.value.loc.line, ei.value.loc.col) == ("other.p4", 40, 18)
    prog = parse_program(text.replace("$", "2"), "pre.p4")
    assert prog.declarations[0].loc.file == "orig.p4" and prog.declarations[0].loc.line == 10


# ---------------------------------------------------------------------------------------------- expressions


def test_precedence_follows_p4():
    assert expr("a + b * c") == ("Binary", "+", P("a"), ("Binary", "*", P("b"), P("c")))
    # in P4, & binds tighter than ==, and == tighter than &&
    assert expr("a & b == c && d") == (
        "Binary", "&&", ("Binary", "==", ("Binary", "&", P("a"), P("b")), P("c")), P("d"))
    assert expr("a || b && c") == ("Binary", "||", P("a"), ("Binary", "&&", P("b"), P("c")))
    assert expr("a ++ b + c") == ("Binary", "++", P("a"), ("Binary", "+", P("b"), P("c")))
    assert expr("a << 1 ++ b") == ("Binary", "<<", P("a"), ("Binary", "++", I(1), P("b")))
    assert expr("a - b - c") == ("Binary", "-", ("Binary", "-", P("a"), P("b")), P("c"))
    assert expr("a |+| b |-| c") == ("Binary", "|-|", ("Binary", "|+|", P("a"), P("b")), P("c"))
    assert expr("!a == ~b") == ("Binary", "==", ("Unary", "!", P("a")), ("Unary", "~", P("b")))
    assert expr("a ^ b | c & d") == ("Binary", "|", ("Binary", "^", P("a"), P("b")), ("Binary", "&", P("c"), P("d")))


def test_shift_right_is_two_adjacent_angles():
    assert expr("x >> 2") == ("Binary", ">>", P("x"), I(2))
    assert expr("x > 2") == ("Binary", ">", P("x"), I(2))
    assert expr("x >= 2") == ("Binary", ">=", P("x"), I(2))
    assert expr("a >> b >> c") == ("Binary", ">>", ("Binary", ">>", P("a"), P("b")), P("c"))
    # `> >` with a space is two comparisons, not a shift (and is a syntax error as an operand)
    with pytest.raises(P4Error):
        parse_expression("x > > 2")


def test_mux_is_right_associative_and_lowest():
    assert expr("c ? a : d ? e : f") == ("Mux", P("c"), P("a"), ("Mux", P("d"), P("e"), P("f")))
    assert expr("a == b ? 1 : 2") == ("Mux", ("Binary", "==", P("a"), P("b")), I(1), I(2))


def test_generic_calls_versus_less_than():
    assert expr("f<bit<8>>(x)") == ("MethodCall", P("f"), [("BitType", I(8), False)],
                                    [("Argument", None, P("x"))])
    assert expr("p.lookahead<tuple<bit<8>, H>>()", types={"H"}) == (
        "MethodCall", ("Member", P("p"), "lookahead"),
        [("TupleType", [("BitType", I(8), False), ("TypeName", "H", [], False)])], [])
    assert expr("a < b") == ("Binary", "<", P("a"), P("b"))
    assert expr("a < b && c > (d)") == (
        "Binary", "&&", ("Binary", "<", P("a"), P("b")), ("Binary", ">", P("c"), P("d")))


def test_casts_versus_parentheses():
    assert expr("(bit<8>) x") == ("Cast", ("BitType", I(8), False), P("x"))
    assert expr("(bit<8>) x + 1") == ("Binary", "+", ("Cast", ("BitType", I(8), False), P("x")), I(1))
    assert expr("(int<4>)(a)") == ("Cast", ("BitType", I(4), True), P("a"))
    assert expr("(bool) b") == ("Cast", ("BoolType",), P("b"))
    assert expr("(T) x", types={"T"}) == ("Cast", ("TypeName", "T", [], False), P("x"))
    with pytest.raises(P4Error):
        parse_expression("(T) x")  # `(T)` followed by `x` when T is not a type is a syntax error
    assert expr("(x)") == P("x")
    assert expr("(E.A == x)", types={"E"}) == ("Binary", "==", ("Member", P("E"), "A"), P("x"))


def test_members_index_slice_calls():
    assert expr("h.vlan[1].vid[11:4]") == (
        "Slice", ("Member", ("ArrayIndex", ("Member", P("h"), "vlan"), I(1)), "vid"), I(11), I(4))
    assert expr("t.apply().hit") == ("Member", ("MethodCall", ("Member", P("t"), "apply"), [], []), "hit")
    assert expr("error.NoError") == ("Member", ("TypeExpression", ("ErrorTypeRef",)), "NoError")
    assert expr(".NoAction()") == ("MethodCall", ("PathExpression", "NoAction", True), [], [])
    assert expr("f(a, x = 1, _)") == ("MethodCall", P("f"), [], [
        ("Argument", None, P("a")), ("Argument", "x", I(1)), ("Argument", None, ("DontCare",))])
    assert expr("this.f()") == ("MethodCall", ("Member", ("This",), "f"), [], [])
    assert expr('"s"') == ("StringLiteral", "s")
    assert expr("true && false") == ("Binary", "&&", ("BoolLiteral", True), ("BoolLiteral", False))


def test_constructor_calls_of_types():
    assert expr("Checksum16()", types={"Checksum16"}) == ("ConstructorCall", ("TypeName", "Checksum16", [], False), [])
    assert expr("register<bit<8>>(4)", types={"register"}) == (
        "ConstructorCall", ("TypeName", "register", [("BitType", I(8), False)], False), [("Argument", None, I(4))])


def test_list_struct_and_invalid_expressions():
    assert expr("{a, b}") == ("ListExpression", [P("a"), P("b")], False)
    assert expr("{}") == ("ListExpression", [], False)
    assert expr("{a, ...}") == ("ListExpression", [P("a")], True)
    assert expr("{f = 1, g = x}") == ("StructExpression", [("NamedExpression", "f", I(1)),
                                                           ("NamedExpression", "g", P("x"))], False, None)
    assert expr("{f = 1, ...}") == ("StructExpression", [("NamedExpression", "f", I(1))], True, None)
    assert expr("{#}") == ("InvalidHeaderExpression",)


def test_expression_locations():
    e = parse_expression("a +\n  b[3]", "e.p4")
    assert (e.loc.line, e.loc.col) == (1, 3)
    assert (e.right.loc.line, e.right.loc.col) == (2, 4)
    assert (e.right.expr.loc.line, e.right.expr.loc.col) == (2, 3)


def test_expression_slots_exist():
    e = parse_expression("x.y")
    assert e.type is None and e.const_value is None and e.decl is None and e.expr.decl is None


# ---------------------------------------------------------------------------------------------- types


def test_types_as_written():
    d = one("struct S { bit<8> a; int<4> b; bit c; varbit<32> d; bool e; error f; string g; "
            "tuple<bit<8>, bool> h; H[4] i; bit<(W + 1)> j; bit<W> k; .H l; R<bit<8>, _> m; list<bit<8>> n; }")
    got = [D(f.field_type) for f in d.fields]
    assert got == [
        ("BitType", I(8), False), ("BitType", I(4), True), ("BitType", I(1), False), ("VarbitType", I(32)),
        ("BoolType",), ("ErrorTypeRef",), ("StringType",),
        ("TupleType", [("BitType", I(8), False), ("BoolType",)]),
        ("HeaderStackType", ("TypeName", "H", [], False), I(4)),
        ("BitType", ("Binary", "+", P("W"), I(1)), False),
        ("BitType", P("W"), False),
        ("TypeName", "H", [], True),
        ("TypeName", "R", [("BitType", I(8), False), ("DontCareType",)], False),
        ("ListType", ("BitType", I(8), False)),
    ]
    assert [f.name for f in d.fields] == list("abcdefghijklmn")


# ---------------------------------------------------------------------------------------------- declarations


def test_constants_typedefs_and_newtypes():
    ds = decls("const bit<16> T = 0x800; typedef bit<48> mac_t; type bit<9> port_t; const mac_t M = 1;")
    assert D(ds[0]) == ("ConstDecl", ("BitType", I(16), False), "T", I(2048, base=16), [])
    assert D(ds[1]) == ("TypedefDecl", ("BitType", I(48), False), "mac_t", [])
    assert D(ds[2]) == ("NewTypeDecl", ("BitType", I(9), False), "port_t", [])
    assert D(ds[3].decl_type) == ("TypeName", "mac_t", [], False)


def test_headers_structs_unions_with_annotations():
    ds = decls("@controller_header(\"packet_in\") header H { @padding bit<7> pad; bit<9> port; }\n"
               "header_union U { H a; H b; }\nstruct S<T> { T x; }")
    h, u, s = ds
    assert isinstance(h, ast.HeaderDecl) and h.annotations[0].name == "controller_header"
    assert h.annotations[0].string_value == "packet_in"
    assert h.fields[0].annotations[0].name == "padding" and h.fields[1].name == "port"
    assert isinstance(u, ast.HeaderUnionDecl) and [f.name for f in u.fields] == ["a", "b"]
    assert isinstance(s, ast.StructDecl) and [p.name for p in s.type_params] == ["T"]
    assert D(s.fields[0].field_type) == ("TypeName", "T", [], False)


def test_enums_errors_and_match_kinds():
    e1, e2, err1, err2, mk = decls("enum E { A, B, }\nenum bit<8> C { RED = 2, GREEN = 0x1 }\n"
                                   "error { Foo, Bar }\nerror { Baz }\nmatch_kind { range, selector }")
    assert D(e1) == ("EnumDecl", "E", [("IdDecl", "A", None, []), ("IdDecl", "B", None, [])], None, [])
    assert D(e2.underlying) == ("BitType", I(8), False)
    assert [(m.name, m.value.value) for m in e2.members] == [("RED", 2), ("GREEN", 1)]
    assert [m.name for m in err1.members] == ["Foo", "Bar"] and [m.name for m in err2.members] == ["Baz"]
    assert isinstance(mk, ast.MatchKindDecl) and [m.name for m in mk.members] == ["range", "selector"]


def test_externs_objects_functions_and_abstract_methods():
    ex, fn, fwd = decls(
        "extern Reg<T, I> { Reg(bit<32> size); Reg(bit<32> size, T init); @noSideEffects T read(in I i);"
        " void write<U>(in I i, in U v); abstract void apply(inout T x); }\n"
        "extern void f<D>(in D data, out bit<16> r);\nextern Opaque;")
    assert isinstance(ex, ast.ExternDecl) and [p.name for p in ex.type_params] == ["T", "I"]
    assert len(ex.constructors) == 2 and ex.constructors[0].return_type is None
    assert [m.name for m in ex.methods] == ["read", "write", "apply"]
    assert ex.methods[0].annotations[0].name == "noSideEffects"
    assert [p.name for p in ex.methods[1].type_params] == ["U"]
    assert ex.methods[2].abstract and not ex.methods[0].abstract
    p = ex.methods[0].params[0]
    assert (p.direction, D(p.param_type), p.name) == ("in", ("TypeName", "I", [], False), "i")
    assert isinstance(fn, ast.ExternFunctionDecl) and fn.name == "f" and D(fn.return_type) == ("VoidType",)
    assert [(q.direction, q.name) for q in fn.params] == [("in", "data"), ("out", "r")]
    assert isinstance(fwd, ast.ExternDecl) and fwd.name == "Opaque" and not fwd.methods


def test_functions_and_actions():
    f, a = decls("bit<8> max(in bit<8> a, in bit<8> b) { return a > b ? a : b; }\n"
                 "@name(\".act\") action act(inout bit<8> x, bit<8> y = 3) { x = y; }")
    assert isinstance(f, ast.FunctionDecl) and f.name == "max" and len(f.params) == 2
    assert isinstance(f.body.statements[0], ast.ReturnStatement)
    assert isinstance(a, ast.ActionDecl) and a.annotations[0].string_value == ".act"
    assert [(p.direction, p.name) for p in a.params] == [("inout", "x"), (None, "y")]
    assert D(a.params[1].default) == I(3)


def test_block_types_and_packages():
    pt, ct, pk = decls("parser Prs<H>(packet_in b, out H h);\n@pipeline control Ctl<H, M>(inout H h, inout M m);\n"
                       "package Pkg<H>(Prs<H> p, Ctl<H, bit<8>> c);")
    assert isinstance(pt, ast.ParserTypeDecl) and [p.name for p in pt.type_params] == ["H"]
    assert isinstance(ct, ast.ControlTypeDecl) and ct.annotations[0].name == "pipeline"
    assert isinstance(pk, ast.PackageTypeDecl)
    assert D(pk.params[1].param_type) == (
        "TypeName", "Ctl", [("TypeName", "H", [], False), ("BitType", I(8), False)], False)


def test_parser_declaration():
    prog = parse_program("""
header h_t { bit<16> t; }
struct hs { h_t a; h_t[2] s; }
parser MyP(packet_in pk, out hs h)(bit<8> ctor_arg) {
    value_set<bit<16>>(4) vs;
    bit<8> n = 0;
    const bit<8> K = 2;
    Checksum16() ck;
    state start {
        pk.extract(h.a);
        n = n + 1;
        if (n == 1) { n = 2; } else { n = 3; }
        transition select(h.a.t, n) {
            (0x800 &&& 0xF00, 1): next;
            (vs, _): accept;
            (1 .. 5, default): reject;
            default: next;
        }
    }
    @name("nx") state next {
        pk.extract(h.s.next);
        MySub.apply(pk, h);
        transition accept;
    }
    state empty { }
}""")
    p = prog.declarations[-1]
    assert isinstance(p, ast.ParserDecl) and [q.name for q in p.ctor_params] == ["ctor_arg"]
    assert [type(x).__name__ for x in p.locals] == ["ValueSetDecl", "VarDecl", "ConstDecl", "Instantiation"]
    assert [s.name for s in p.states] == ["start", "next", "empty"]
    start = p.states[0]
    assert [type(s).__name__ for s in start.statements] == ["MethodCallStatement", "AssignmentStatement",
                                                          "IfStatement"]
    sel = start.transition.target
    assert isinstance(sel, ast.SelectExpression) and len(sel.exprs) == 2
    assert D(sel.cases[0].keyset) == ("ListExpression", [("Mask", I(0x800, base=16), I(0xF00, base=16)), I(1)], False)
    assert D(sel.cases[1].keyset) == ("ListExpression", [P("vs"), ("DontCare",)], False)
    assert D(sel.cases[2].keyset) == ("ListExpression", [("Range", I(1), I(5)), ("Default",)], False)
    assert D(sel.cases[3]) == ("SelectCase", ("Default",), P("next"), [])
    nxt = p.states[1]
    assert nxt.annotations[0].name == "name"
    assert D(nxt.transition.target) == P("accept")
    assert D(nxt.statements[1].call.target) == ("Member", P("MySub"), "apply")
    assert p.states[2].transition is None and p.states[2].statements == []


def test_control_with_tables_and_locals():
    c = one("""
control Ing(inout H hdr, inout M meta)(bit<32> n) {
    bit<32> tmp;
    const bit<8> K = 1;
    counter(1024, CounterType.packets) cnt;
    register<bit<32>>(16) regs;
    action set(bit<9> port) { meta.port = port; }
    @name(".drop") action drop() { }
    table t {
        key = {
            hdr.ip.dst : lpm @name("dst");
            hdr.ip.proto : exact;
        }
        actions = { set; @defaultonly drop; .NoAction; set(1); }
        const default_action = drop();
        size = 1024;
        implementation = sel;
        counters = dc;
        my_custom = 3 + 4;
        @hidden const entries = {
            (0x0A000000 &&& 0xFF000000, 6) : set(2);
            priority = 5 : (_, default) : drop() @name("e");
            const (1, 2) : set(port = 3);
        }
    }
    apply { t.apply(); }
}""")
    assert isinstance(c, ast.ControlDecl) and [p.name for p in c.ctor_params] == ["n"]
    kinds = [type(x).__name__ for x in c.locals]
    assert kinds == ["VarDecl", "ConstDecl", "Instantiation", "Instantiation", "ActionDecl", "ActionDecl",
                     "TableDecl"]
    inst = c.locals[3]
    assert D(inst.inst_type) == ("TypeName", "register", [("BitType", I(32), False)], False)
    assert inst.name == "regs" and D(inst.args) == [("Argument", None, I(16))]
    t = c.locals[-1]
    assert [p.name for p in t.properties] == ["key", "actions", "default_action", "size", "implementation",
                                               "counters", "my_custom", "entries"]
    assert [(k.match_kind, [a.name for a in k.annotations]) for k in t.key.elements] == [
        ("lpm", ["name"]), ("exact", [])]
    assert D(t.key.elements[0].expr) == ("Member", ("Member", P("hdr"), "ip"), "dst")
    acts = t.actions.actions
    assert [(a.name.name, a.name.absolute) for a in acts] == [("set", False), ("drop", False), ("NoAction", True),
                                                              ("set", False)]
    assert acts[1].annotations[0].name == "defaultonly"
    assert acts[0].args is None and D(acts[3].args) == [("Argument", None, I(1))]
    assert t.default_action.const and D(t.default_action.value) == ("MethodCall", P("drop"), [], [])
    assert D(t.get_property("size").value) == I(1024)
    assert D(t.get_property("my_custom").value) == ("Binary", "+", I(3), I(4))
    ents = t.entries
    assert ents.const and ents.annotations[0].name == "hidden"
    e0, e1, e2 = ents.entries
    assert D(e0.keyset) == ("ListExpression", [("Mask", I(0x0A000000, base=16), I(0xFF000000, base=16)), I(6)], False)
    assert D(e0.action) == ("MethodCall", P("set"), [], [("Argument", None, I(2))])
    assert D(e1.priority) == I(5) and e1.annotations[0].name == "name"
    assert D(e1.keyset) == ("ListExpression", [("DontCare",), ("Default",)], False)
    assert e2.const and D(e2.action.args) == [("Argument", "port", I(3))]
    assert isinstance(c.body.statements[0], ast.MethodCallStatement)


def test_instantiations_with_initializer_and_main():
    ds = decls("""
extern Virtual { Virtual(); abstract bit<16> f(in bit<16> ix); void run(); }
control Ctl(inout bit<16> x) {
    Virtual() cntr = {
        bit<16> f(in bit<16> ix) { return ix + this.g(); }
    };
    apply { }
}
parser Prs(); control Blk(); package Top(Prs p, Blk c);
parser MyP() { state start { transition accept; } }
control MyC() { apply { } }
Top(MyP(), MyC()) main;""")
    ctl = ds[1]
    inst = ctl.locals[0]
    assert isinstance(inst, ast.Instantiation) and inst.name == "cntr"
    assert len(inst.initializer) == 1 and isinstance(inst.initializer[0], ast.FunctionDecl)
    ret = inst.initializer[0].body.statements[0]
    assert D(ret.value.right) == ("MethodCall", ("Member", ("This",), "g"), [], [])
    main = ds[-1]
    assert main.name == "main" and D(main.inst_type) == ("TypeName", "Top", [], False)
    assert D(main.args) == [("Argument", None, ("ConstructorCall", ("TypeName", "MyP", [], False), [])),
                            ("Argument", None, ("ConstructorCall", ("TypeName", "MyC", [], False), []))]


# ---------------------------------------------------------------------------------------------- statements


def test_statements():
    stmts = body("""
        bit<8> y = 1;
        const bit<8> z = 2;
        H[2] stack;
        T v;
        x = y;
        x[3:0] = 4w1;
        f(x);
        ;
        if (x == 1) x = 2; else if (x == 3) { x = 4; } else { exit; }
        { return; }
        return x;
        @atomic { x = x + 1; }
        switch (t.apply().action_run) {
            a1:
            a2: { x = 1; }
            a3: { }
            default: { x = 0; }
        }
        switch (x) { 1: { } 2: 3: { } }
    """, preamble="header H { bit<8> a; } typedef bit<8> T;")
    kinds = [type(s).__name__ for s in stmts]
    assert kinds == ["VarDecl", "ConstDecl", "VarDecl", "VarDecl", "AssignmentStatement", "AssignmentStatement",
                     "MethodCallStatement", "EmptyStatement", "IfStatement", "BlockStatement", "ReturnStatement",
                     "BlockStatement", "SwitchStatement", "SwitchStatement"]
    assert D(stmts[0]) == ("VarDecl", ("BitType", I(8), False), "y", I(1), [])
    assert D(stmts[2].decl_type) == ("HeaderStackType", ("TypeName", "H", [], False), I(2))
    assert D(stmts[5].left) == ("Slice", P("x"), I(3), I(0))
    ifs = stmts[8]
    assert isinstance(ifs.then, ast.AssignmentStatement) and isinstance(ifs.else_, ast.IfStatement)
    assert isinstance(ifs.else_.else_.statements[0], ast.ExitStatement)
    assert stmts[9].statements[0].value is None and D(stmts[10].value) == P("x")
    assert stmts[11].annotations[0].name == "atomic"
    sw = stmts[12]
    assert [(D(c.label), c.body is None) for c in sw.cases] == [
        (P("a1"), True), (P("a2"), False), (P("a3"), False), (("Default",), False)]
    assert [D(c.label) for c in stmts[13].cases] == [I(1), I(2), I(3)]
    assert stmts[13].cases[1].body is None


def test_soft_keywords_as_names():
    stmts = body("key = 1; actions.apply(); state = entries; type = 2; priority = 3;")
    assert [D(s.left) if isinstance(s, ast.AssignmentStatement) else None for s in stmts] == [
        P("key"), None, P("state"), P("type"), P("priority")]


# ---------------------------------------------------------------------------------------------- annotations


def test_annotations():
    d = one('@name("x") @id(5) @hidden @my_anno(1, 2 + 3) @weird(foo bar baz) @s[a = 1, b = "t"] @l[1, 2] '
            "@pragma my_pragma 1 2\n"
            "struct S { }")
    a = {x.name: x for x in d.annotations}
    assert a["name"].body == '"x"' and a["name"].string_value == "x"
    assert D(a["id"].args) == [I(5)]
    assert a["hidden"].body == "" and a["hidden"].args == []
    assert D(a["my_anno"].args) == [I(1), ("Binary", "+", I(2), I(3))] and a["my_anno"].body == "1, 2 + 3"
    assert a["weird"].args is None and a["weird"].body == "foo bar baz"
    assert a["s"].structured and [(kv.name, D(kv.expr)) for kv in a["s"].kv] == [("a", I(1)),
                                                                                ("b", ("StringLiteral", "t"))]
    assert a["l"].structured and D(a["l"].args) == [I(1), I(2)]
    assert a["pragma"].body == "my_pragma 1 2"
    assert d.name == "S"


# ---------------------------------------------------------------------------------------------- diagnostics


def _err(text, name="d.p4"):
    with pytest.raises(P4Error) as ei:
        parse_program(text, name)
    e = ei.value
    return e, (e.loc.file, e.loc.line, e.loc.col)


def test_missing_semicolon_points_after_previous_token():
    e, where = _err("const bit<8> a = 1\nconst bit<8> b = 2;\n")
    assert where == ("d.p4", 1, 19)
    assert e.message == "expected ';' but found 'const'"
    text = str(e)
    assert text.startswith("d.p4:1:19: error: expected ';' but found 'const'")
    assert text.splitlines()[1:] == ["const bit<8> a = 1", " " * 18 + "^"]


def test_expected_token_on_same_line():
    e, where = _err("header h { bit<8> f }")
    assert where == ("d.p4", 1, 21) and e.message == "expected ';' but found '}'"


def test_unexpected_eof():
    e, where = _err("control C() {\n  apply {\n")
    assert where[:2] == ("d.p4", 3)
    assert "unexpected end of file" in e.message


def test_unterminated_comment():
    e, where = _err("header h { bit<8> f; }\n  /* never\nclosed\n")
    assert where == ("d.p4", 2, 3) and e.message == "unterminated comment"
    assert str(e).splitlines()[-1] == "  ^"


def test_bad_token_and_literals():
    e, where = _err("const bit<8> x = 3 $ 4;")
    assert where == ("d.p4", 1, 20) and e.message == "unexpected character '$'"
    e, where = _err('const string s = "abc\n;')
    assert where == ("d.p4", 1, 18) and "unterminated string" in e.message
    e, where = _err("const bit<8> x = 12ab;")
    assert where == ("d.p4", 1, 18) and "invalid integer literal '12ab'" in e.message


def test_unexpected_tokens_are_named():
    e, _ = _err("struct S { bit<8> ; }")
    assert e.message == "expected a field name but found ';'"
    e, _ = _err("control C() { apply { x = ; } }")
    assert e.message == "expected an expression but found ';'"
    e, _ = _err("control C() { bit<8> x; }")
    assert "expected 'apply' block" in e.message
    e, _ = _err("42;")
    assert e.message == "expected a declaration but found '42'"


def test_for_loops_parse():
    prog = parse_program(preprocess_text(
        "control C(inout bit<8> x) { apply {"
        " for (bit<8> i = 0, bit<8> j = 1; i < 4; i = i + 1, x = x + j) { if (x == 3) { break; } continue; }"
        " for (bit<8> k in 1 .. 3) { x = x + k; }"
        " for (; ; ) { break; } } }"))
    loops = prog.declarations[0].body.statements
    assert [type(s).__name__ for s in loops] == ["ForStatement", "ForInStatement", "ForStatement"]
    f = loops[0]
    assert [type(x).__name__ for x in f.init] == ["VarDecl", "VarDecl"]
    assert isinstance(f.cond, ast.Binary) and len(f.updates) == 2
    assert [type(x).__name__ for x in f.body.statements[0].then.statements] == ["BreakStatement"]
    assert isinstance(loops[1].collection, ast.Range) and loops[1].var.name == "k"
    assert loops[2].cond is None and not loops[2].init and not loops[2].updates


def test_unsupported_constructs_are_named():
    e, _ = _err("control C() { apply { while (true) { } } }")
    assert "unsupported construct" in e.message and "while" in e.message

def test_compound_assignments_read_as_left_op_right():
    ops = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "|+|", "|-|"]
    body = " ".join(f"x {op}= 1;" for op in ops)
    prog = parse_program(f"control C(inout bit<8> x) {{ apply {{ {body} for (bit<8> i = 0; i < 4; i += 2) {{ }} }} }}")
    stmts = prog.declarations[0].body.statements
    assert [s.compound for s in stmts[:-1]] == ops
    for s, op in zip(stmts, ops):
        assert isinstance(s.right, ast.Binary) and s.right.op == op
        assert s.right.left is s.left  # one node: checked once, an index in it computed once
    update = stmts[-1].updates[0]
    assert update.compound == "+" and update.right.left is update.left
    # `>=` and `>>` keep their meanings next to `>>=`
    e = parse_expression("a >= b")
    assert isinstance(e, ast.Binary) and e.op == ">="


def test_compound_assignment_needs_adjacent_characters():
    e, _ = _err("control C(inout bit<8> x) { apply { x + = 1; } }")
    assert "expected" in e.message


def test_errors_map_back_through_includes(tmp_path):
    (tmp_path / "lib.p4").write_text("// lib\nheader h_t {\n  bit<8> f\n}\n")
    main = tmp_path / "main.p4"
    main.write_text('#include <core.p4>\n#include "lib.p4"\nconst bit<8> x = 1;\n')
    with pytest.raises(P4Error) as ei:
        parse_program(preprocess(main))
    e = ei.value
    assert e.loc.file.endswith("lib.p4") and (e.loc.line, e.loc.col) == (3, 11)
    assert str(e).splitlines()[1] == "  bit<8> f"


def test_error_in_main_file_after_include(tmp_path):
    main = tmp_path / "main.p4"
    main.write_text('#include <v1model.p4>\n\nheader h { bit<8> f; }\nconst bit<8> x = ;\n')
    with pytest.raises(P4Error) as ei:
        parse_program(preprocess(main))
    assert (ei.value.loc.file, ei.value.loc.line, ei.value.loc.col) == (str(main), 4, 18)


# ---------------------------------------------------------------------------------------------- whole files


def test_v1model_p4_parses_whole():
    prog = parse_program(preprocess(INCLUDE_DIR / "v1model.p4"))
    names = [getattr(d, "name", None) for d in prog.declarations]
    for n in ("packet_in", "packet_out", "verify", "NoAction", "standard_metadata_t", "counter", "direct_counter",
              "meter", "direct_meter", "register", "action_profile", "action_selector", "hash", "random", "digest",
              "mark_to_drop", "clone", "clone3", "clone_preserving_field_list", "resubmit",
              "resubmit_preserving_field_list", "recirculate", "recirculate_preserving_field_list", "truncate",
              "verify_checksum", "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload",
              "assert", "assume", "log_msg", "Parser", "VerifyChecksum", "Ingress", "Egress", "ComputeChecksum",
              "Deparser", "V1Switch", "HashAlgorithm", "CloneType", "CounterType", "MeterType"):
        assert n in names, n
    assert names.count("mark_to_drop") == 2 and names.count("log_msg") == 2
    sm = prog.declarations[names.index("standard_metadata_t")]
    fields = [f.name for f in sm.fields]
    assert fields[:3] == ["ingress_port", "egress_spec", "egress_port"]
    assert fields[-2:] == ["enq_qdepth_bytes", "deq_qdepth_bytes"]
    assert "priority" in fields and "parser_error" in fields
    mks = [m.name for d in prog.declarations if isinstance(d, ast.MatchKindDecl) for m in d.members]
    assert mks == ["exact", "ternary", "lpm", "range", "optional", "selector"]
    errs = [m.name for d in prog.declarations if isinstance(d, ast.ErrorDecl) for m in d.members]
    assert errs == ["NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort", "ParserTimeout",
                    "ParserInvalidArgument"]
    ha = prog.declarations[names.index("HashAlgorithm")]
    assert [m.name for m in ha.members] == ["crc32", "crc32_custom", "crc16", "crc16_custom", "random", "identity",
                                            "csum16", "xor16"]
    v1 = prog.declarations[names.index("V1Switch")]
    assert [p.name for p in v1.params] == ["p", "vr", "ig", "eg", "ck", "dep"]
    reg = prog.declarations[names.index("register")]
    assert [p.name for p in reg.type_params] == ["T"]
    assert prog.files[0].endswith("v1model.p4") and any(f.endswith("core.p4") for f in prog.files)


def test_v1model_generic_index_variant_parses():
    prog = parse_program(preprocess_text("#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n", "g.p4"))
    reg = [d for d in prog.declarations if getattr(d, "name", "") == "register"][0]
    assert [p.name for p in reg.type_params] == ["T", "I"]
    assert "PortId_t" in [getattr(d, "name", "") for d in prog.declarations]  # only from 20200408 on, as p4c


BIG_PROGRAM = r"""
/* A realistic v1model program: L2/L3 forwarding with ACL, ECN marking and checksums. */
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255
const bit<16> TYPE_IPV4 = 0x800;
const bit<16> TYPE_ARP = 0x0806;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;
const bit<16> ROCE_PORT = 16w4791;

typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;
type bit<16> nexthop_id_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<6>    dscp;
    bit<2>    ecn;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

header ipv4_options_t {
    varbit<320> options;
}

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length_;
    bit<16> checksum;
}

@controller_header("packet_in")
header packet_in_header_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header_union l4_t {
    tcp_t tcp;
    udp_t udp;
}

struct headers {
    packet_in_header_t packet_in;
    ethernet_t   ethernet;
    vlan_t[2]    vlan;
    ipv4_t       ipv4;
    ipv4_options_t ipv4_options;
    tcp_t        tcp;
    udp_t        udp;
}

enum bit<8> Color { GREEN = 0, YELLOW = 1, RED = 2 }
enum Verdict { ALLOW, DENY }

struct learn_digest_t {
    macAddr_t srcAddr;
    PortId_t  port;
}

struct metadata {
    bit<16>  l4_src;
    bit<16>  l4_dst;
    bit<14>  ecmp_select;
    bit<8>   meter_color;
    bool     is_roce;
    bit<32>  flow_id;
    nexthop_id_t nexthop;
    error    err;
}

error { IPv4OptionsNotSupported, BadIHL }

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    value_set<bit<16>>(4) custom_ethertypes;
    bit<8> depth = 0;

    state start {
        meta.is_roce = false;
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_ethernet;
            default: parse_ethernet;
        }
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x8100 &&& 0xEFFF: parse_vlan;
            TYPE_IPV4: parse_ipv4;
            custom_ethertypes: accept;
            0x0800 .. 0x0900: reject;
            default: accept;
        }
    }

    state parse_vlan {
        packet.extract(hdr.vlan.next);
        depth = depth + 1;
        transition select(hdr.vlan.last.etherType, depth) {
            (0x8100, 1): parse_vlan;
            (TYPE_IPV4, _): parse_ipv4;
            (_, _): accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl >= 5, error.BadIHL);
        transition select(hdr.ipv4.ihl) {
            5: dispatch_on_protocol;
            default: parse_ipv4_options;
        }
    }

    state parse_ipv4_options {
        packet.extract(hdr.ipv4_options, (bit<32>) (((bit<16>) hdr.ipv4.ihl - 5) * 32));
        transition dispatch_on_protocol;
    }

    state dispatch_on_protocol {
        transition select(hdr.ipv4.protocol, hdr.ipv4.fragOffset) {
            (PROTO_TCP, 0): parse_tcp;
            (PROTO_UDP, 0): parse_udp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        meta.l4_src = hdr.tcp.srcPort;
        meta.l4_dst = hdr.tcp.dstPort;
        transition accept;
    }

    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_src = hdr.udp.srcPort;
        meta.l4_dst = hdr.udp.dstPort;
        bit<16> dport = packet.lookahead<bit<16>>();
        meta.is_roce = hdr.udp.dstPort == ROCE_PORT;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    counter(1024, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets) acl_counter;
    meter(256, MeterType.bytes) flow_meter;
    register<bit<32>>(65536) flow_bytes;
    action_selector(HashAlgorithm.crc16, 32w1024, 32w14) ecmp_selector;
    bit<32> tmp;

    @name("drop") action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_nhop(macAddr_t dstAddr, PortId_t port) {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl |-| 1;
    }

    action set_ecmp_group(bit<14> ecmp_base, bit<14> ecmp_count) {
        hash(meta.ecmp_select,
             HashAlgorithm.crc16,
             ecmp_base,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
             ecmp_count);
    }

    action send_to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
    }

    action learn() {
        digest<learn_digest_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
    }

    action multicast(bit<16> grp) {
        standard_metadata.mcast_grp = grp;
    }

    action set_priority(bit<3> prio) {
        standard_metadata.priority = prio;
        hdr.ipv4.dscp = (bit<6>) prio << 3;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm @name("dst");
        }
        actions = {
            set_nhop;
            set_ecmp_group;
            send_to_cpu;
            @defaultonly drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
    }

    table ecmp_group {
        key = {
            meta.ecmp_select: exact;
            hdr.ipv4.srcAddr: selector;
            hdr.ipv4.dstAddr: selector;
        }
        actions = { set_nhop; drop; }
        implementation = ecmp_selector;
        size = 4096;
    }

    table acl {
        key = {
            standard_metadata.ingress_port: ternary;
            hdr.ethernet.etherType: ternary;
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.protocol: optional;
            meta.l4_dst: range;
        }
        actions = { drop; NoAction; send_to_cpu; }
        counters = acl_counter;
        const default_action = NoAction();
        const entries = {
            (_, 0x88cc, _, _, _): send_to_cpu();
            priority = 10: (1 &&& 0x1FF, _, 0x0A000001, 6, 22 .. 23): drop();
        }
    }

    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { set_nhop(); multicast; learn; }
        default_action = learn;
        support_timeout = true;
        @my_annotation entries = {
            0xFFFFFFFFFFFF: multicast(1);
        }
    }

    table qos {
        key = { hdr.ipv4.dscp: exact; hdr.ipv4.ecn: exact; }
        actions = { set_priority; }
        default_action = set_priority(0);
        const entries = {
            (46, 0): set_priority(7);
            (26, 2): set_priority(3);
        }
    }

    apply {
        port_counter.count((bit<32>) standard_metadata.ingress_port);
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 0) {
            flow_meter.execute_meter<bit<8>>((bit<32>) meta.ecmp_select, meta.meter_color);
            if (meta.meter_color == V1MODEL_METER_COLOR_RED) {
                drop();
                exit;
            }
            switch (ipv4_lpm.apply().action_run) {
                set_ecmp_group: {
                    ecmp_group.apply();
                }
                send_to_cpu:
                drop: {
                    return;
                }
                default: { }
            }
            if (!acl.apply().hit) {
                qos.apply();
            }
            flow_bytes.read(tmp, meta.flow_id);
            tmp = tmp + standard_metadata.packet_length;
            flow_bytes.write(meta.flow_id, tmp);
            bit<32> ones = ~32w0;
            int<8> signed = -8s1;
            meta.flow_id = (hdr.ipv4.srcAddr ^ hdr.ipv4.dstAddr) & ones >> 1;
            meta.flow_id[15:0] = hdr.ipv4.srcAddr[31:24] ++ 4w0 ++ hdr.ipv4.dstAddr[3:0];
            meta.nexthop = (nexthop_id_t) 16w7;
        } else if (hdr.ethernet.isValid()) {
            dmac.apply();
        } else {
            mark_to_drop(standard_metadata);
        }
        @atomic {
            meta.is_roce = meta.is_roce || (meta.l4_dst == 4791 ? true : false);
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    const bit<19> ECN_THRESHOLD = 10;

    action mark_ecn() {
        hdr.ipv4.ecn = 3;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0 && standard_metadata.enq_qdepth >= ECN_THRESHOLD) {
            mark_ecn();
        }
        if (standard_metadata.instance_type == 1) {
            truncate(64);
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.tcp.isValid(),
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol, hdr.ipv4.totalLen - 20,
              hdr.tcp.srcPort, hdr.tcp.dstPort, hdr.tcp.seqNo, hdr.tcp.ackNo, hdr.tcp.dataOffset, hdr.tcp.res,
              hdr.tcp.flags, hdr.tcp.window, hdr.tcp.urgentPtr },
            hdr.tcp.checksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.vlan);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
"""


def test_realistic_v1model_program_parses(tmp_path):
    path = tmp_path / "switch.p4"
    path.write_text(BIG_PROGRAM)
    prog = parse_program(preprocess(path))
    by_name = {getattr(d, "name", None): d for d in prog.declarations}
    for n in ("ethernet_t", "ipv4_t", "tcp_t", "udp_t", "headers", "metadata", "MyParser", "MyIngress", "MyEgress",
              "MyVerifyChecksum", "MyComputeChecksum", "MyDeparser", "main"):
        assert n in by_name, n
    ing = by_name["MyIngress"]
    tables = [d.name for d in ing.locals if isinstance(d, ast.TableDecl)]
    assert tables == ["ipv4_lpm", "ecmp_group", "acl", "dmac", "qos"]
    prs = by_name["MyParser"]
    assert [s.name for s in prs.states] == ["start", "parse_ethernet", "parse_vlan", "parse_ipv4",
                                            "parse_ipv4_options", "dispatch_on_protocol", "parse_tcp", "parse_udp"]
    # macros were expanded and locations still point into the file
    start_case = prs.states[0].transition.target.cases[0]
    assert D(start_case.keyset) == I(255)
    assert start_case.loc.file == str(path) and start_case.loc.line == BIG_PROGRAM.splitlines().index(
        "            CPU_PORT: parse_ethernet;") + 1
    assert isinstance(by_name["l4_t"], ast.HeaderUnionDecl)
    assert by_name["Color"].underlying is not None
    main = by_name["main"]
    assert [a.expr.ctor_type.path for a in main.args] == ["MyParser", "MyVerifyChecksum", "MyIngress", "MyEgress",
                                                          "MyComputeChecksum", "MyDeparser"]
    # every node has a location in a real file
    for node in ast.walk(prog):
        assert node.loc.line > 0, node


def _thousand_line_program() -> str:
    parts = ["#include <v1model.p4>\n", "header h_t { bit<32> a; bit<32> b; bit<16> c; }\n",
             "struct H { h_t h; }\nstruct M { bit<32> x; }\n"]
    for i in range(40):
        parts.append(f"""
control C{i}(inout H hdr, inout M meta, inout standard_metadata_t sm) {{
    action a{i}(bit<32> v, bit<9> port) {{
        hdr.h.a = v + (hdr.h.b << 2) ^ (bit<32>) hdr.h.c;
        sm.egress_spec = port;
    }}
    action drop() {{ mark_to_drop(sm); }}
    table t{i} {{
        key = {{ hdr.h.a: exact; hdr.h.b: ternary; }}
        actions = {{ a{i}; drop; NoAction; }}
        default_action = NoAction();
        size = {i + 1};
    }}
    apply {{
        if (hdr.h.isValid() && hdr.h.c[7:0] == 8w{i}) {{
            t{i}.apply();
        }} else {{
            meta.x = meta.x |+| 32w1;
        }}
    }}
}}
""")
    return "".join(parts)


def test_parses_a_thousand_line_program():
    # (its speed is not asserted here: timings on a shared 2-core machine belong in `rocelab bench`)
    text = _thousand_line_program()
    pre = preprocess_text(text, "speed.p4")
    assert len(pre.text.splitlines()) >= 1000
    prog = parse_program(pre)
    assert sum(isinstance(d, ast.ControlDecl) for d in prog.declarations) == 40


def test_raw_text_with_directives_is_preprocessed():
    prog = parse_program("#include <core.p4>\n#define N 3\nconst bit<8> x = N;\n", "raw.p4")
    const = prog.declarations[-1]
    assert D(const.value) == I(3) and (const.loc.file, const.loc.line) == ("raw.p4", 3)
    assert any(isinstance(d, ast.ExternDecl) and d.name == "packet_in" for d in prog.declarations)


def test_bad_annotation_name():
    e, where = _err("@5 struct S { }")
    assert where == ("d.p4", 1, 2) and e.message == "expected an annotation name but found '5'"


# ---------------------------------------------------------------------------------------------- property: precedence

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PREC = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4, "|": 5, "^": 6, "&": 7, "<<": 8,
         ">>": 8, "++": 9, "+": 10, "-": 10, "|+|": 10, "|-|": 10, "*": 11, "/": 11, "%": 11}
_MUX, _UNARY, _POSTFIX, _ATOM = 0, 12, 13, 14

_atoms = st.one_of(
    st.builds(lambda v: ("IntLiteral", v, None, False, 10), st.integers(0, 999)),
    st.builds(lambda n: ("PathExpression", n, False), st.sampled_from(["a", "b", "c", "hdr", "x1"])),
)


def _extend(children):
    return st.one_of(
        st.builds(lambda op, lhs, rhs: ("Binary", op, lhs, rhs), st.sampled_from(sorted(_PREC)), children, children),
        st.builds(lambda op, e: ("Unary", op, e), st.sampled_from(["!", "~", "-", "+"]), children),
        st.builds(lambda c, a, b: ("Mux", c, a, b), children, children, children),
        st.builds(lambda e, n: ("Member", e, n), children, st.sampled_from(["f", "g", "next"])),
        st.builds(lambda e, i: ("ArrayIndex", e, i), children, children),
        st.builds(lambda e, h, lo: ("Slice", e, h, lo), children, children, children),
        st.builds(lambda e: ("Cast", ("BitType", ("IntLiteral", 8, None, False, 10), False), e), children),
        st.builds(lambda f, args: ("MethodCall", ("PathExpression", f, False), [],
                                   [("Argument", None, x) for x in args]),
                  st.sampled_from(["f", "g"]), st.lists(children, max_size=2)),
    )


_exprs = st.recursive(_atoms, _extend, max_leaves=12)


def _prec(e) -> int:
    k = e[0]
    if k == "Binary":
        return _PREC[e[1]]
    if k == "Mux":
        return _MUX
    if k in ("Unary", "Cast"):
        return _UNARY
    if k in ("Member", "ArrayIndex", "Slice", "MethodCall"):
        return _POSTFIX
    return _ATOM


def _show(e, need: int = _MUX) -> str:
    """Print with the fewest parentheses P4's precedence allows."""
    k = e[0]
    if k == "IntLiteral":
        s = str(e[1])
    elif k == "PathExpression":
        s = e[1]
    elif k == "Binary":
        p = _PREC[e[1]]
        s = f"{_show(e[2], p)} {e[1]} {_show(e[3], p + 1)}"
    elif k == "Unary":
        s = f"{e[1]} {_show(e[2], _UNARY)}"
    elif k == "Cast":
        s = f"(bit<8>) {_show(e[2], _UNARY)}"
    elif k == "Mux":
        s = f"{_show(e[1], 1)} ? {_show(e[2])} : {_show(e[3], _MUX)}"
    elif k == "Member":
        s = f"{_show(e[1], _POSTFIX)}.{e[2]}"
    elif k == "ArrayIndex":
        s = f"{_show(e[1], _POSTFIX)}[{_show(e[2])}]"
    elif k == "Slice":
        s = f"{_show(e[1], _POSTFIX)}[{_show(e[2])}:{_show(e[3])}]"
    else:  # MethodCall
        s = f"{e[1][1]}(" + ", ".join(_show(a[2]) for a in e[3]) + ")"
    return f"({s})" if _prec(e) < need else s


@settings(max_examples=300, deadline=None)
@given(_exprs)
def test_printed_expressions_parse_back_to_the_same_tree(tree):
    text = _show(tree)
    assert D(parse_expression(text)) == tree, text


def test_program_keeps_its_source_for_carets():
    prog = parse_program("const bit<8> x = 1;\n", "mem.p4")
    assert prog.source.source_line("mem.p4", 1) == "const bit<8> x = 1;"
    assert ast.dump(prog) == ("Program", [("ConstDecl", ("BitType", I(8), False), "x", I(1), [])], ["mem.p4"])


def test_to_source_of_key_expressions():
    cases = ["hdr.ipv4.dstAddr", "meta.x[7:0]", "hdr.ipv4.isValid()", "hdr.vlan[1].vid", ".NoAction",
             "8w0xff", "4s3", "(a + b) * c", "f<bit<8>>(x, n = 1)", "(bit<16>)meta.y", "{a, b}", "{f = 1}",
             "!(a && b)", "error.NoError", "c ? a : (b | d)", "{#}", "true"]
    for text in cases:
        assert ast.to_source(parse_expression(text)) == text, text
    assert ast.to_source(parse_expression("a+b*c")) == "a + (b * c)"
    t = one("struct S { bit<(W + 1)> a; H[4] b; register<bit<32>, _> c; tuple<bool, int> d; }")
    assert [ast.type_to_source(f.field_type) for f in t.fields] == [
        "bit<(W + 1)>", "H[4]", "register<bit<32>, _>", "tuple<bool, int>"]


def test_deep_nesting():
    chain = " else ".join(f"if (x == {i}) {{ x = {i}; }}" for i in range(600))
    stmts = body(chain)
    depth, node = 0, stmts[0]
    while isinstance(node, ast.IfStatement):
        depth, node = depth + 1, node.else_
    assert depth == 600
    prog = parse_program("const bit<8> x = " + "(" * 400 + "1" + ")" * 400 + ";")
    assert D(prog.declarations[0].value) == I(1)


_FUZZ_TOKENS = ["control", "C", "(", ")", "{", "}", "apply", "x", "=", "1", ";", "<", ">", "bit", "8w5", "[", "]",
                ":", "&&&", "..", ".", ",", "@", "name", '"s"', "table", "key", "actions", "entries", "const",
                "state", "transition", "select", "default", "_", "parser", "header", "struct", "H", "?", "#", "/*",
                "\n", "if", "else", "switch", "extern", "typedef", "T", "{#}", "...", "this", "error", "enum",
                "(bit<8>)", "f<bit<8>>(", '"', "value_set", "package", "main", "-", "!", "++", "|+|", "0x", "12ab", "$"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FUZZ_TOKENS), min_size=1, max_size=30))
def test_garbage_gives_p4_errors_never_tracebacks(words):
    try:
        parse_program(" ".join(words), "fuzz.p4")
    except P4Error as e:
        assert e.loc is not None and e.loc.file == "fuzz.p4"
        str(e)


def test_table_with_empty_parameter_list():
    # `table t() {` is old syntax p4c still accepts
    prog = parse_program(preprocess_text("control C() { table t() { actions = { NoAction; } } apply { t.apply(); } }"))
    assert prog.declarations[0].locals[0].name == "t"
    e, _ = _err("control C() { table t(bit<8> x) { } apply { } }")
    assert "tables take no parameters" in e.message


def test_sign_inside_a_sized_literal_is_refused_with_a_hint():
    from emulator.errors import P4Error
    from emulator.p4.frontend import load_program_text

    with pytest.raises(P4Error) as ei:
        load_program_text("const int<8> X = 8s-1;\n", "n.p4")
    e = ei.value
    assert (e.loc.line, e.loc.col) == (1, 18)
    assert e.message == "invalid integer literal '8s': the minus sign goes first (-8s1)"
