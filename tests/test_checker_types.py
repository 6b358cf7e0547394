"""The semantic checker's types and constants: literal widths, operator result types, constant folding,
enums, tuples, structs, new types, headers of structs."""
from __future__ import annotations

import pytest
from checker_util import assert_error, body_stmts, compile_, program

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T


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


def test_constant_too_wide_wraps_as_in_p4c():
    # p4c types the constant bit<8> and only warns ("value does not fit in 8 bits", IR::Constant::handleOverflow)
    prog = compile_(program(body="meta.a = 300; meta.s = 200; meta.s = meta.s << 8s2;"))
    a, s, _ = body_stmts(prog)
    assert a.right.type == T.Bits(8) and a.right.const_value == 300 % 256
    assert str(s.right.type) == "int<8>" and s.right.const_value == 200 - 256


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


def test_struct_expression_with_dots_and_missing_field():
    prog = compile_(program(body="meta_t m2 = { a = 1, ... }; meta_t m3 = { b = 2, a = 1, c = 3, s = 0, f = false };"))
    st = body_stmts(prog)
    assert st[0].init.type.name == "meta_t"
    assert st[0].init.const_value == (1, 0, 0, 0, False)  # `...`: the other fields take their default values
    assert st[1].init.const_value == (1, 2, 3, 0, False)  # declaration order, not written order
    text = program(body="meta_t m2 = { a = 1 };")
    assert_error(text, "{ a = 1 }", "field 'b' of meta_t is missing")


def test_newtype_is_nominal_and_typedef_transparent():
    prog = compile_(program(top="type bit<32> ip_t;\ntypedef bit<16> port_t;\n",
                            body="ip_t a = (ip_t)hdr.ipv4.src; port_t p = meta.b; meta.c = (bit<32>)a;"))
    st = body_stmts(prog)
    assert isinstance(st[0].init.type, T.NewType) and st[0].init.type.base == T.Bits(32)
    assert st[1].init.type == T.Bits(16)
    text = program(top="type bit<32> ip_t;\n", body="ip_t a = hdr.ipv4.src;")
    assert_error(text, "hdr.ipv4.src;", "type mismatch: expected ip_t, got bit<32>")


def test_headers_may_hold_structs_of_fixed_width_fields():
    # P4-16 1.2.2: a header field may be a struct whose fields are (recursively) fixed-width
    prog = compile_(program(top="struct in_t { bit<3> x; bool f; }\nstruct row_t { bit<4> e; in_t i; }\n"
                                "header rh_t { row_t row; }\nstruct h2_t { rh_t r; }",
                            body="rh_t r; r.setValid(); r.row.i.x = 1;"))
    assert prog is not None
    text = program(top="struct bad_t { varbit<8> v; }\nheader bh_t { bad_t b; }")
    with pytest.raises(P4Error, match="header field 'b' has type bad_t"):
        compile_(text)


def test_static_assert_is_evaluated():
    prog = compile_(program(top="const int W = 8;\nconst bool ok = static_assert(W == 8, \"W is 8\");\n"))
    ok = next(d for d in prog.ast.declarations if getattr(d, "name", "") == "ok")
    assert ok.value.const_value is True
    text = program(top="const int W = 8;\nconst bool ok = static_assert(W > 8, \"W too small\");\n")
    assert_error(text, "static_assert(W > 8", "static assertion failed: W too small")


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

