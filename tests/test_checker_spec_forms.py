"""Forms the P4-16 grammar allows that p4c's sample programs use and the front end once refused: a string
literal spanning lines, annotations on the apply block, ... Each test is a minimal program of our own."""
from __future__ import annotations

from checker_util import assert_error, compile_, ingress, program


def test_string_literal_may_span_lines():
    # the spec's own example: "string with embedded<newline>line terminator"
    top = '@name("two\nlines") const bit<8> K1 = 3;\n@name("esc \\" quote \\\nnext") const bit<8> K2 = 4;\n'
    compile_(program(top=top, body="meta.a = K1 + K2;"))


def test_line_numbers_after_a_multiline_string_stay_right():
    top = '@name("a\nb\nc") const bit<8> K1 = 3;\nconst bit<8> K3 = 1w1;\n'
    text = program(top=top)
    assert_error(text, "1w1", "type mismatch")


def test_apply_block_may_carry_annotations():
    prog = compile_(program(body="meta.a = 1;").replace("apply {", 'apply @noWarn("unused") @hint {', 1))
    names = [a.name for a in ingress(prog).body.annotations]
    assert names == ["noWarn", "hint"]
