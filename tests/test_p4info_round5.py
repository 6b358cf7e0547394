"""P4Info round 5: defects found comparing rocelab's P4Info with p4c's on v1model programs (docs/p4.md,
"P4Info round 5"). The programs are small ones written for these tests."""
from emulator.p4.preprocess import preprocess_text
from tests.test_p4info_rules import p4info_of

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


CLASH = '''
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>
header h_t { bit<8> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { bit<4> idx; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
@name(".tick") counter<bit<4>>(16, CounterType.packets) tick_counter;
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name(".tick") action tick_action(bit<4> idx) { m.idx = idx; tick_counter.count(m.idx); sm.egress_spec = 1; }
    @name(".tick") table tick_table { key = { hdr.h.k: exact; } actions = { tick_action; } }
    apply { tick_table.apply(); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
'''

CLASH_STF = '''
add tick h.k:0x05 tick(idx:3)
packet 0 05 aa
expect 1 05 aa
wait
check_counter tick(3) packets == 1
'''


def test_a_table_an_action_and_an_extern_may_share_a_name(tmp_path):
    # P4-14 programs converted by p4c name a table, an action and a counter alike (name_collision: `.B`); the
    # extern must not be looked up as the table (it crashed with "'Table' object has no attribute 'count'")
    from emulator.target.stf import run_stf

    (tmp_path / "clash.p4").write_text(CLASH)
    (tmp_path / "clash.stf").write_text(CLASH_STF)
    result = run_stf(tmp_path / "clash.p4", tmp_path / "clash.stf")
    assert result.passed, result
