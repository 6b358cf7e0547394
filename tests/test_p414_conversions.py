"""P4-14 conversions, second part: defects found running p4c's P4-14 STF tests against p4c's own P4-16 v1model
conversions of the programs (docs/p4.md, "P4-14 conversions, second part"). The programs are small ones written
for these tests."""
from pathlib import Path

import pytest

from emulator.errors import P4Error
from emulator.target.stf import run_stf

HEAD = '''
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>
header h_t { bit<8> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
'''


def run(tmp_path: Path, controls: str, stf: str):
    """Runs an STF on HEAD with the ingress `I` and egress `E` of `controls` (declared before `main`)."""
    head, main = HEAD.split("V1Switch")
    (tmp_path / "p.p4").write_text(head + controls + "V1Switch" + main)
    (tmp_path / "p.stf").write_text(stf)
    return run_stf(tmp_path / "p.p4", tmp_path / "p.stf")


SHARED_NOP = '''
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name(".set") action set(bit<8> v) { hdr.h.v = v; sm.egress_spec = 2; }
    @name("._nop") action nop_i() { }
    @name(".ti") table ti { key = { hdr.h.k: exact; } actions = { set; nop_i; } default_action = nop_i(); }
    apply { ti.apply(); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name("._nop") action nop_e() { }
    @name(".add") action add(bit<8> v) { hdr.h.v = hdr.h.v + v; }
    @name(".te") table te { key = { hdr.h.k: exact; } actions = { add; nop_e; } default_action = nop_e(); }
    apply { te.apply(); }
}
'''


def test_one_global_action_name_may_be_declared_in_two_controls(tmp_path):
    # p4c's conversions repeat `@name("._nop") action _nop()` in ingress and egress (p414-special-ops)
    stf = "add ti h.k:0x05 set(v:0x10)\nadd te h.k:0x05 add(v:0x01)\npacket 0 05 00\nexpect 2 05 11\n"
    result = run(tmp_path, SHARED_NOP, stf)
    assert result.passed, result


def test_the_same_global_name_with_other_parameters_is_still_refused(tmp_path):
    clash = SHARED_NOP.replace('action nop_e() { }', 'action nop_e(bit<8> x) { }').replace('nop_e();', 'nop_e(1);')
    with pytest.raises(P4Error, match="two actions are named"):
        run(tmp_path, clash, "packet 0 05 00\n")


def test_the_shared_action_is_one_p4info_action(tmp_path):
    from emulator.p4 import frontend
    from emulator.p4.p4info import build_p4info

    head, main = HEAD.split("V1Switch")
    (tmp_path / "p.p4").write_text(head + SHARED_NOP + "V1Switch" + main)
    info = build_p4info(frontend.load_program(str(tmp_path / "p.p4")).info)
    nops = [a for a in info.actions if a.preamble.name == "_nop"]
    assert len(nops) == 1
    ids = {t.preamble.name: [r.id for r in t.action_refs] for t in info.tables}
    assert nops[0].preamble.id in ids["ti"] and nops[0].preamble.id in ids["te"]


CLASH = '''
@name(".tick") counter<bit<8>>(16, CounterType.packets) tick_counter;
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name(".tick") action tick_action(bit<8> idx) { tick_counter.count(idx); sm.egress_spec = 1; }
    @name(".tick") table tick_table { key = { hdr.h.k: exact; } actions = { tick_action; } }
    apply { tick_table.apply(); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
'''


def test_a_table_an_action_and_an_extern_may_share_a_name(tmp_path):
    # p4c's conversion of P4-14's name_collision names a table, an action and a counter alike (`.B`); the
    # counter must not be looked up as the table (it crashed with "'Table' object has no attribute 'count'")
    stf = "add tick h.k:0x05 tick(idx:3)\npacket 0 05 aa\nexpect 1 05 aa\nwait\ncheck_counter tick(3) packets == 1\n"
    result = run(tmp_path, CLASH, stf)
    assert result.passed, result
