"""Helpers for the P4-16 parser tests: parse a snippet and compare the AST as `ast.dump` tuples, or catch the
diagnostic it raises."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.parser import parse_expression, parse_program

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


def parse_err(text, name="d.p4"):
    with pytest.raises(P4Error) as ei:
        parse_program(text, name)
    e = ei.value
    return e, (e.loc.file, e.loc.line, e.loc.col)

