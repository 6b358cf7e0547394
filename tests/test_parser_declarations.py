"""P4-16 declarations, statements and annotations: the AST shape of every construct."""
from __future__ import annotations

from parser_util import D, I, P, body, decls, one, parse_err

from emulator.p4 import ast
from emulator.p4.parser import parse_expression, parse_program
from emulator.p4.preprocess import preprocess_text

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


def test_table_with_empty_parameter_list():
    # `table t() {` is old syntax p4c still accepts
    prog = parse_program(preprocess_text("control C() { table t() { actions = { NoAction; } } apply { t.apply(); } }"))
    assert prog.declarations[0].locals[0].name == "t"
    e, _ = parse_err("control C() { table t(bit<8> x) { } apply { } }")
    assert "tables take no parameters" in e.message


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


def test_deep_nesting():
    chain = " else ".join(f"if (x == {i}) {{ x = {i}; }}" for i in range(600))
    stmts = body(chain)
    depth, node = 0, stmts[0]
    while isinstance(node, ast.IfStatement):
        depth, node = depth + 1, node.else_
    assert depth == 600
    prog = parse_program("const bit<8> x = " + "(" * 400 + "1" + ")" * 400 + ";")
    assert D(prog.declarations[0].value) == I(1)


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

