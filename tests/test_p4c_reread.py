"""p4c's own pass outputs read back (its -frontend.p4 and -midend.p4 files): the naming those passes leave behind
(docs/p4.md, "Differential testing against p4c's mid end"). Programs are small ones written for these tests."""
from pathlib import Path

import pytest
from test_p414_conversions import HEAD, run

from emulator.errors import P4Error
from emulator.p4 import frontend
from emulator.p4.p4info import build_p4info


def p4info(tmp_path: Path, controls: str):
    head, main = HEAD.split("V1Switch")
    (tmp_path / "p.p4").write_text(head + controls + "V1Switch" + main)
    return build_p4info(frontend.load_program(str(tmp_path / "p.p4")).info)


EMPTY_E = "control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }\n"

# p4c's front end localizes core.p4's NoAction as `@name(".NoAction") action NoAction_1()`; a table of the
# re-read program that has no default_action still gets core.p4's NoAction as its default
LOCAL_NOACTION = '''
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @noWarn("unused") @name(".NoAction") action NoAction_1() { }
    @name(".fwd") action fwd() { sm.egress_spec = 3; }
    @name("I.t") table t_0 { key = { hdr.h.k: exact @name("hdr.h.k"); } actions = { fwd; NoAction_1; } }
    apply { sm.egress_spec = 1; t_0.apply(); }
}
''' + EMPTY_E


def test_a_localized_noaction_and_core_noaction_are_one_action(tmp_path):
    info = p4info(tmp_path, LOCAL_NOACTION)
    assert [a.preamble.name for a in info.actions].count("NoAction") == 1
    stf = "add I.I.t hdr.h.k:0x05 fwd()\npacket 0 05 00\nexpect 3 05 00\npacket 0 06 00\nexpect 1 06 00\n"
    result = run(tmp_path, LOCAL_NOACTION, stf)
    assert result.passed, result


def test_a_name_annotation_without_a_dot_is_relative_to_its_control(tmp_path):
    # p4c's front end writes the table above as @name("I.t") inside control I: read again, it is I.I.t
    assert [t.preamble.name for t in p4info(tmp_path, LOCAL_NOACTION).tables] == ["I.I.t"]


# the mid end copies an action per caller, renaming its parameters; `@name` keeps the control-plane names
MIDEND_COPIES = '''
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name(".set") action set_1(@name("v") bit<8> v_1) { hdr.h.v = v_1; sm.egress_spec = 2; }
    @name(".ti") table ti { key = { hdr.h.k: exact; } actions = { set_1; } }
    apply { ti.apply(); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    @name(".set") action set_2(@name("v") bit<8> v_2) { hdr.h.v = v_2 + 1; }
    @name(".te") table te { key = { hdr.h.k: exact; } actions = { set_2; } }
    apply { te.apply(); }
}
'''


def test_mid_end_copies_with_renamed_parameters_are_one_action(tmp_path):
    sets = [a for a in p4info(tmp_path, MIDEND_COPIES).actions if a.preamble.name == "set"]
    assert len(sets) == 1 and [p.name for p in sets[0].params] == ["v"]
    # each table still runs its own copy
    stf = "add ti h.k:0x05 set(v:0x10)\nadd te h.k:0x05 set(v:0x20)\npacket 0 05 00\nexpect 2 05 21\n"
    result = run(tmp_path, MIDEND_COPIES, stf)
    assert result.passed, result


def test_copies_whose_control_plane_names_differ_are_refused(tmp_path):
    clash = MIDEND_COPIES.replace('@name("v") bit<8> v_2', '@name("w") bit<8> v_2')
    with pytest.raises(P4Error, match="two actions are named 'set'"):
        p4info(tmp_path, clash)


def test_a_local_absolute_name_with_other_parameters_than_the_global_is_refused(tmp_path):
    clash = LOCAL_NOACTION.replace("action NoAction_1() { }", "action NoAction_1(bit<8> x) { }")
    with pytest.raises(P4Error, match="two actions are named 'NoAction'"):
        p4info(tmp_path, clash)
