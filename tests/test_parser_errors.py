"""Parser diagnostics: file:line:col and caret for every kind of syntax error, through includes too, and
garbage input that gives P4 errors, never tracebacks."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_util import parse_err

from emulator.errors import P4Error
from emulator.p4.parser import parse_program
from emulator.p4.preprocess import preprocess


def test_missing_semicolon_points_after_previous_token():
    e, where = parse_err("const bit<8> a = 1\nconst bit<8> b = 2;\n")
    assert where == ("d.p4", 1, 19)
    assert e.message == "expected ';' but found 'const'"
    text = str(e)
    assert text.startswith("d.p4:1:19: error: expected ';' but found 'const'")
    assert text.splitlines()[1:] == ["const bit<8> a = 1", " " * 18 + "^"]


def test_expected_token_on_same_line():
    e, where = parse_err("header h { bit<8> f }")
    assert where == ("d.p4", 1, 21) and e.message == "expected ';' but found '}'"


def test_unexpected_eof():
    e, where = parse_err("control C() {\n  apply {\n")
    assert where[:2] == ("d.p4", 3)
    assert "unexpected end of file" in e.message


def test_unterminated_comment():
    e, where = parse_err("header h { bit<8> f; }\n  /* never\nclosed\n")
    assert where == ("d.p4", 2, 3) and e.message == "unterminated comment"
    assert str(e).splitlines()[-1] == "  ^"


def test_bad_token_and_literals():
    e, where = parse_err("const bit<8> x = 3 $ 4;")
    assert where == ("d.p4", 1, 20) and e.message == "unexpected character '$'"
    e, where = parse_err('const string s = "abc\n;')
    assert where == ("d.p4", 1, 18) and "unterminated string" in e.message
    e, where = parse_err("const bit<8> x = 12ab;")
    assert where == ("d.p4", 1, 18) and "invalid integer literal '12ab'" in e.message


def test_unexpected_tokens_are_named():
    e, _ = parse_err("struct S { bit<8> ; }")
    assert e.message == "expected a field name but found ';'"
    e, _ = parse_err("control C() { apply { x = ; } }")
    assert e.message == "expected an expression but found ';'"
    e, _ = parse_err("control C() { bit<8> x; }")
    assert "expected 'apply' block" in e.message
    e, _ = parse_err("42;")
    assert e.message == "expected a declaration but found '42'"


def test_unsupported_constructs_are_named():
    e, _ = parse_err("control C() { apply { while (true) { } } }")
    assert "unsupported construct" in e.message and "while" in e.message


def test_compound_assignment_needs_adjacent_characters():
    e, _ = parse_err("control C(inout bit<8> x) { apply { x + = 1; } }")
    assert "expected" in e.message


def test_bad_annotation_name():
    e, where = parse_err("@5 struct S { }")
    assert where == ("d.p4", 1, 2) and e.message == "expected an annotation name but found '5'"


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

