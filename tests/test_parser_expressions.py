"""P4-16 expressions: AST shapes and precedence, locations, printing back to source, and a property test that
printed expression trees parse back to the same tree."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_util import D, I, P, expr, one

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.parser import parse_expression


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


# ---------------------------------------------------------------------------------------------- property: precedence


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

