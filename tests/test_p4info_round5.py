"""P4Info round 5: defects found comparing rocelab's P4Info with p4c's on v1model programs (docs/p4.md,
"P4Info round 5"). The programs are small ones written for these tests."""
from test_p4info_rules import p4info_of

from emulator.p4.preprocess import preprocess_text

RESTRICTED_TABLE = '''
    action a() { }
    @entry_restriction("
    // only ports below 4
    /* and not 0 */ port < 4 && port != 0;
  ")
    table t { key = { sm.ingress_port: exact @name("port"); } actions = { a; } }
    apply { t.apply(); }
'''


def test_comments_inside_a_string_that_spans_lines_are_the_strings_text(tmp_path):
    # p4c keeps `//` and `/* */` lines inside a multi-line string literal (pins_wbb's @entry_restriction)
    info = p4info_of(tmp_path, RESTRICTED_TABLE)
    assert list(info.tables[0].preamble.annotations) == [
        '@entry_restriction("\n    // only ports below 4\n    /* and not 0 */ port < 4 && port != 0;\n  ")']


def test_comments_outside_strings_are_still_blanked():
    out = preprocess_text('const bit<8> x = 1; // one "quote\nconst bit<8> y = 2; /* " */\n@a("s // t")\n').text
    assert out.splitlines() == ['const bit<8> x = 1;', 'const bit<8> y = 2;', '@a("s // t")']


def test_an_escaped_quote_does_not_end_a_string_that_spans_lines():
    out = preprocess_text('@a("x \\" y\n// kept\n")\n// gone\n').text
    assert out.splitlines() == ['@a("x \\" y', '// kept', '")', '']  # the last comment is blanked

