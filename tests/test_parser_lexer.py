"""The P4-16 lexer: integer literal forms, strings, comments, keywords, line markers and their locations."""
from __future__ import annotations

import pytest
from parser_util import I, expr

from emulator.errors import P4Error
from emulator.p4.lexer import SourceText, tokenize
from emulator.p4.parser import parse_program


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


def test_sign_inside_a_sized_literal_is_refused_with_a_hint():
    from emulator.errors import P4Error
    from emulator.p4.frontend import load_program_text

    with pytest.raises(P4Error) as ei:
        load_program_text("const int<8> X = 8s-1;\n", "n.p4")
    e = ei.value
    assert (e.loc.line, e.loc.col) == (1, 18)
    assert e.message == "invalid integer literal '8s': the minus sign goes first (-8s1)"

