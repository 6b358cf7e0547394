"""P4Info: ids as p4c computes them, aliases, message contents, text output, device config."""
import pytest

from emulator.errors import P4Error, RocelabError
from emulator.p4 import p4info as p4i
from emulator.p4.p4info import (
    ACTION,
    TABLE,
    build_device_config,
    build_p4info,
    build_symbols,
    jenkins_one_at_a_time,
    parse_device_config,
    read_text,
    to_text,
    write_text,
)
from emulator.p4.p4info_files import TEXT_HEADER
from emulator.p4.program import (
    ActionInfo,
    ActionProfileInfo,
    ActionRefInfo,
    ControllerHeaderInfo,
    DigestInfo,
    ExternInstanceInfo,
    MatchFieldInfo,
    ParamInfo,
    ProgramInfo,
    StructFieldInfo,
    TableInfo,
    ValueSetInfo,
)


def p4c_id(prefix: int, name: str) -> int:
    return (prefix << 24) | (jenkins_one_at_a_time(name) & 0xFFFFFF)


def test_check_values():
    # p4c's documented examples; 36962230 carries the TABLE prefix 0x02 (an action named so gets prefix 0x01)
    assert p4c_id(TABLE, "ingress.test1") == 36962230
    assert p4c_id(ACTION, "ingress.test1") == 36962230 - (1 << 24)
    assert p4c_id(TABLE, "ingress.ex1") == 38325502
    assert p4c_id(TABLE, "ingress.tbl1") == 33873526


def _tables(*names, **overrides):
    return [TableInfo(name=n, id_override=overrides.get(n)) for n in names]


def test_collisions_probe_by_incrementing_the_hash_in_sorted_order():
    # these two names collide in the low 24 bits of their hashes
    assert jenkins_one_at_a_time("ig.t5138") & 0xFFFFFF == jenkins_one_at_a_time("ig.t5718") & 0xFFFFFF == 0xE9F4F7
    for order in (["ig.t5138", "ig.t5718"], ["ig.t5718", "ig.t5138"]):
        s = build_symbols(ProgramInfo(tables=_tables(*order)))
        assert s.id(TABLE, "ig.t5138") == 0x02E9F4F7  # sorted first: gets the hash
        assert s.id(TABLE, "ig.t5718") == 0x02E9F4F8  # then probes to hash + 1


def test_id_annotations_take_precedence_and_get_the_prefix():
    hashed = p4c_id(TABLE, "ig.b")
    info = ProgramInfo(tables=_tables("ig.a", "ig.b", "ig.c", **{"ig.a": hashed, "ig.c": 5}))
    s = build_symbols(info)
    assert s.id(TABLE, "ig.a") == hashed  # @id with its prefix kept
    assert s.id(TABLE, "ig.c") == (TABLE << 24) | 5  # prefix ORed in
    assert s.id(TABLE, "ig.b") == hashed + 1  # its hash id was reserved by @id: probe
    with pytest.raises(P4Error, match="wrong 8-bit prefix"):
        build_symbols(ProgramInfo(tables=_tables("ig.a", **{"ig.a": 0x01000005})))
    with pytest.raises(P4Error, match="assigned to multiple declarations"):
        build_symbols(ProgramInfo(tables=_tables("ig.a", "ig.b", **{"ig.a": 7, "ig.b": 7})))


def test_aliases_are_shortest_unique_suffixes_across_kinds():
    info = ProgramInfo(
        tables=_tables("ig.sub1.t", "ig.sub2.t", "ig.fwd_tbl"),
        actions=[ActionInfo(name="NoAction"), ActionInfo(name="ig.sub1.set"), ActionInfo(name="eg.set"),
                 ActionInfo(name="ig.drop")],
        counters=[ExternInstanceInfo(name="ig.drop.cnt", type_name="counter", size=1)])
    s = build_symbols(info)
    assert s.alias("ig.sub1.t") == "sub1.t"
    assert s.alias("ig.sub2.t") == "sub2.t"
    assert s.alias("ig.fwd_tbl") == "fwd_tbl"
    assert s.alias("NoAction") == "NoAction"
    assert s.alias("ig.sub1.set") == "sub1.set"
    assert s.alias("eg.set") == "eg.set"
    assert s.alias("ig.drop") == "drop"  # suffixes end at the last component: "ig.drop.cnt" does not end in drop
    assert s.alias("ig.drop.cnt") == "cnt"


def sample_info() -> ProgramInfo:
    fwd = ActionInfo(name="MyIngress.fwd", params=[ParamInfo(name="port", bitwidth=9, id=1),
                                                  ParamInfo(name="mac", bitwidth=48, id=2)])
    return ProgramInfo(
        actions=[ActionInfo(name="NoAction"), fwd, ActionInfo(name="MyIngress.drop", annotations={"brief": ['"x"']})],
        tables=[
            TableInfo(name="MyIngress.ipv4_lpm",
                      match_fields=[MatchFieldInfo(name="hdr.ipv4.dstAddr", match_kind="lpm", bitwidth=32, id=1),
                                    MatchFieldInfo(name="meta.x", match_kind="ternary", bitwidth=8, id=2),
                                    MatchFieldInfo(name="meta.y", match_kind="range", bitwidth=16, id=3),
                                    MatchFieldInfo(name="meta.z", match_kind="optional", bitwidth=1, id=4),
                                    MatchFieldInfo(name="meta.w", match_kind="exact", bitwidth=3, id=5)],
                      actions=[ActionRefInfo(name="MyIngress.fwd", scope="TABLE_ONLY", annotations={"tableonly": []}),
                               ActionRefInfo(name="MyIngress.drop"),
                               ActionRefInfo(name="NoAction", scope="DEFAULT_ONLY",
                                             annotations={"defaultonly": []})],
                      default_action="MyIngress.drop", const_default_action=True, size=512,
                      direct_counter="MyIngress.dc", annotations={"name": ['"ipv4_lpm"'], "my_anno": ["1", "2"]}),
            TableInfo(name="MyIngress.ecmp", actions=[ActionRefInfo(name="MyIngress.fwd")],
                      implementation="MyIngress.sel", entries_const=True, idle_timeout=True,
                      match_fields=[MatchFieldInfo(name="meta.grp", match_kind="exact", bitwidth=8, id=1)],
                      selector_fields=[MatchFieldInfo(name="hdr.ipv4.srcAddr", match_kind="selector",
                                                      bitwidth=32, id=2)],
                      direct_meter="MyIngress.dm"),
        ],
        action_profiles=[ActionProfileInfo(name="MyIngress.sel", table_names=["MyIngress.ecmp"], with_selector=True,
                                           size=128, max_group_size=16)],
        counters=[ExternInstanceInfo(name="MyIngress.c", type_name="counter", size=64, kind="packets")],
        direct_counters=[ExternInstanceInfo(name="MyIngress.dc", type_name="direct_counter",
                                            kind="packets_and_bytes", table="MyIngress.ipv4_lpm")],
        meters=[ExternInstanceInfo(name="MyIngress.m", type_name="meter", size=8, kind="bytes")],
        direct_meters=[ExternInstanceInfo(name="MyIngress.dm", type_name="direct_meter", kind="packets")],
        registers=[ExternInstanceInfo(name="MyEgress.r", type_name="register", size=16, bitwidth=48)],
        digests=[DigestInfo(name="learn_t", fields=[StructFieldInfo("mac", 48), StructFieldInfo("port", 9)])],
        value_sets=[ValueSetInfo(name="MyParser.pvs", size=4,
                                 match_fields=[MatchFieldInfo(name="etype", match_kind="exact", bitwidth=16, id=1)])],
        controller_headers=[ControllerHeaderInfo(name="packet_in", fields=[StructFieldInfo("ingress_port", 9)])],
    )


def test_p4info_message_contents():
    info = sample_info()
    p = build_p4info(info)
    assert p.pkg_info.arch == "v1model"
    t = {x.preamble.name: x for x in p.tables}
    lpm = t["MyIngress.ipv4_lpm"]
    assert lpm.preamble.id == p4c_id(TABLE, "MyIngress.ipv4_lpm")
    assert lpm.preamble.alias == "ipv4_lpm"
    assert list(lpm.preamble.annotations) == ["@my_anno(1 , 2)"]  # @name is not repeated; p4c spaces tokens
    # MatchType: EXACT 2, LPM 3, TERNARY 4, RANGE 5, OPTIONAL 6
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in lpm.match_fields] == [
        (1, "hdr.ipv4.dstAddr", 32, 3), (2, "meta.x", 8, 4), (3, "meta.y", 16, 5), (4, "meta.z", 1, 6),
        (5, "meta.w", 3, 2)]
    refs = [(r.id, r.scope, list(r.annotations)) for r in lpm.action_refs]
    assert refs == [(p4c_id(ACTION, "MyIngress.fwd"), 1, ["@tableonly"]), (p4c_id(ACTION, "MyIngress.drop"), 0, []),
                    (p4c_id(ACTION, "NoAction"), 2, ["@defaultonly"])]
    assert lpm.const_default_action_id == p4c_id(ACTION, "MyIngress.drop")
    assert lpm.size == 512 and not lpm.is_const_table
    assert list(lpm.direct_resource_ids) == [p4c_id(0x13, "MyIngress.dc")]
    ecmp = t["MyIngress.ecmp"]
    assert len(ecmp.match_fields) == 1  # selector keys are not match fields
    assert ecmp.implementation_id == p4c_id(0x11, "MyIngress.sel")
    assert ecmp.is_const_table and ecmp.idle_timeout_behavior == 1
    assert ecmp.size == 1024
    a = {x.preamble.name: x for x in p.actions}
    assert [(q.id, q.name, q.bitwidth) for q in a["MyIngress.fwd"].params] == [(1, "port", 9), (2, "mac", 48)]
    assert a["MyIngress.drop"].preamble.doc.brief == "x"
    ap = p.action_profiles[0]
    assert (ap.with_selector, ap.size, ap.max_group_size, list(ap.table_ids)) == (True, 128, 16, [ecmp.preamble.id])
    assert p.counters[0].spec.unit == 2 and p.counters[0].size == 64  # PACKETS
    assert p.direct_counters[0].spec.unit == 3 and p.direct_counters[0].direct_table_id == lpm.preamble.id
    assert p.meters[0].spec.unit == 1 and p.meters[0].size == 8
    assert p.direct_meters[0].direct_table_id == ecmp.preamble.id  # found through the table
    assert p.direct_meters[0].spec.unit == 2
    reg = p.registers[0]
    assert reg.preamble.id >> 24 == 0x16 and reg.type_spec.bitstring.bit.bitwidth == 48 and reg.size == 16
    d = p.digests[0]
    assert d.preamble.name == "learn_t" and d.preamble.id == p4c_id(0x17, "learn_t")
    assert d.type_spec.struct.name == "learn_t"
    members = p.type_info.structs["learn_t"].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [("mac", 48), ("port", 9)]
    vs = p.value_sets[0]
    assert vs.preamble.id >> 24 == 0x03 and vs.size == 4 and vs.match[0].bitwidth == 16
    cpm = p.controller_packet_metadata[0]
    assert cpm.preamble.name == "packet_in" and cpm.preamble.id == p4c_id(0x04, "packet_in")
    assert '@controller_header("packet_in")' in cpm.preamble.annotations
    assert [(m.id, m.name, m.bitwidth) for m in cpm.metadata] == [(1, "ingress_port", 9)]


def test_text_format_round_trip(tmp_path):
    p = build_p4info(sample_info())
    out = tmp_path / "p.txtpb"
    write_text(p, out)
    text = out.read_text()
    assert 'name: "MyIngress.ipv4_lpm"' in text and 'arch: "v1model"' in text
    assert read_text(out) == p
    assert text == TEXT_HEADER + to_text(p)  # p4c begins its text files with these comment lines
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".")]  # no temp file left


def test_device_config_round_trip_and_errors():
    data = build_device_config("/some/where/prog.p4", "control c() { apply {} }\n", {"X": "1"}, ["/inc"])
    text = data.decode("utf-8")  # UTF-8 text: p4lang/tutorials read it in text mode and encode it again
    cfg = parse_device_config(text.encode())
    assert cfg.program == "prog.p4" and cfg.source.startswith("control c()") and cfg.defines == {"X": "1"}
    with pytest.raises(RocelabError, match="not JSON"):
        parse_device_config(b"garbage")
    with pytest.raises(RocelabError, match="not UTF-8"):
        parse_device_config(b"\xff\xfe")
    with pytest.raises(RocelabError, match="version 9"):
        parse_device_config(b'{"rocelab_device_config": 9}')
    with pytest.raises(RocelabError, match="corrupt"):
        parse_device_config(b'{"rocelab_device_config": 1, "program": "x"}')
    with pytest.raises(RocelabError, match="rocelab compile"):
        parse_device_config(b'{"header_types": [], "pipelines": []}')


SAMPLE_P4 = r"""
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { bit<8> grp; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Sub(inout headers_t hdr, inout standard_metadata_t sm) {
    counter(16, CounterType.packets) hits;
    action set_port(bit<9> port) { sm.egress_spec = port; hits.count(0); }
    @name("renamed") table t {
        key = { hdr.ethernet.dst : exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Sub() sub1;
    Sub() sub2;
    @id(0x77) action drop() { mark_to_drop(sm); }
    @name(".global_fwd") table fwd {
        key = { hdr.ethernet.etherType : ternary; }
        actions = { drop; NoAction; }
        default_action = NoAction();
    }
    apply { sub1.apply(hdr, sm); sub2.apply(hdr, sm); fwd.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _frontend():
    try:
        from emulator.p4 import frontend

        frontend.load_program_text  # noqa: B018
        from emulator.p4 import checker, summary  # noqa: F401
    except Exception as exc:  # the front end is written in parallel; skip until it lands
        pytest.skip(f"front end not available yet: {exc}")
    return frontend


def test_sample_program_ids_names_and_aliases(tmp_path):
    frontend = _frontend()
    src = tmp_path / "sample.p4"
    src.write_text(SAMPLE_P4)
    info = frontend.load_program(str(src)).info
    p = build_p4info(info)
    tables = {t.preamble.name: t for t in p.tables}
    assert set(tables) == {"I.sub1.renamed", "I.sub2.renamed", "global_fwd"}
    for name, t in tables.items():
        assert t.preamble.id == p4c_id(TABLE, name)
    assert tables["I.sub1.renamed"].preamble.alias == "sub1.renamed"
    assert tables["global_fwd"].preamble.alias == "global_fwd"
    actions = {a.preamble.name: a for a in p.actions}
    assert actions["I.drop"].preamble.id == (ACTION << 24) | 0x77
    assert actions["NoAction"].preamble.id == p4c_id(ACTION, "NoAction")
    assert {"I.sub1.set_port", "I.sub2.set_port"} <= set(actions)
    assert {c.preamble.name for c in p.counters} == {"I.sub1.hits", "I.sub2.hits"}
    assert p4i.to_text(p)


def _compile(argv):
    import argparse

    from emulator.commands import compile as compile_cmd

    parser = argparse.ArgumentParser(prog="rocelab compile")
    compile_cmd.add_arguments(parser)
    return compile_cmd.main(parser.parse_args(argv))


def test_compile_defines_are_parsed():
    from emulator.commands.compile import parse_defines

    assert parse_defines(["A", "B=2", "C="]) == {"A": "1", "B": "2", "C": ""}
    with pytest.raises(RocelabError, match="bad -D '1X'"):
        parse_defines(["1X"])


def test_compile_command_end_to_end(tmp_path, capsys):
    _frontend()
    from emulator.p4.device_config import load_device_config

    src = tmp_path / "sample.p4"
    src.write_text(SAMPLE_P4)
    out, dev = tmp_path / "out.txtpb", tmp_path / "out.bin"
    assert _compile([str(src), "--p4info", str(out), "--device-config", str(dev), "-D", "UNUSED=3"]) == 0
    p = read_text(out)
    assert {t.preamble.name for t in p.tables} == {"I.sub1.renamed", "I.sub2.renamed", "global_fwd"}
    checked = load_device_config(dev.read_bytes())
    assert build_p4info(checked.info) == p
    # a P4 error: file:line:col diagnostics, exit code 2, nothing written
    bad = tmp_path / "bad.p4"
    bad.write_text(SAMPLE_P4.replace("hits.count(0);", "hits.count(undefined_name);"))
    out2 = tmp_path / "bad.txtpb"
    with pytest.raises(P4Error) as info:
        _compile([str(bad), "--p4info", str(out2)])
    assert info.value.exit_code == 2
    assert str(info.value).startswith(f"{bad}:") and "error:" in str(info.value)
    assert not out2.exists()


def test_compile_dump_prints_generated_code(tmp_path, capsys):
    _frontend()
    try:
        import emulator.target.switch  # noqa: F401
    except Exception as exc:
        pytest.skip(f"switch not available yet: {exc}")
    src = tmp_path / "sample.p4"
    src.write_text(SAMPLE_P4)
    assert _compile([str(src), "--dump"]) == 0
    assert "def " in capsys.readouterr().out
    with pytest.raises(RocelabError, match="nothing to do"):
        _compile([str(src)])


# ---- p4c's P4Info conventions (facts checked against p4c's published output for v1model programs)

FACTS_P4 = r"""
#include <core.p4>
#include <v1model.p4>
enum bit<8> Kind_t { A = 1, B = 0x2A }
enum Color_t { RED, BLUE }
type bit<16> Tag_t;
@controller_header("packet_in") header cpu_in_h { bit<9> port; bit<7> pad; Tag_t tag; }
header h_t { bit<8> a; bit<16> b; }
struct dig_t { bit<48> mac; Kind_t kind; error err; Color_t color; bool flag; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; dig_t d; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v, @id(1) bit<16> w, Tag_t t) { hdr.h.a = v; hdr.h.b = w; }
    action learn() { digest(1, meta.d); }
    register<int<12>>(4) signed_cells;
    @max_group_size(16) @selector_size_semantics("sum_of_members") @max_member_weight(100)
    action_selector(HashAlgorithm.crc16, 64, 14) sel;
    table no_default {
        key = { hdr.h.isValid(): exact; hdr.h.a: exact; hdr.h.b[7:0]: ternary; }
        actions = { set; }
    }
    table with_args {
        key = { hdr.h.a: exact; hdr.h.b: selector; meta.m: exact; }
        actions = { set; NoAction; }
        default_action = set(10, 0x1234, 7);
        implementation = sel;
    }
    apply { no_default.apply(); with_args.apply(); learn(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    frontend = _frontend()
    src = tmp_path_factory.mktemp("facts") / "facts.p4"
    src.write_text(FACTS_P4)
    return build_p4info(frontend.load_program(str(src)).info)


def _by_name(items):
    return {x.preamble.name: x for x in items}


def test_controller_header_id_hashes_the_header_type_name(facts):
    (ch,) = facts.controller_packet_metadata
    assert ch.preamble.name == ch.preamble.alias == "packet_in"
    # p4c: id from the header type's name, not from the annotation ("packet_in_header_t" -> 81826293)
    assert p4c_id(p4i.CONTROLLER_HEADER, "packet_in_header_t") == 81826293
    assert ch.preamble.id == p4c_id(p4i.CONTROLLER_HEADER, "cpu_in_h")
    assert [(m.id, m.name, m.bitwidth) for m in ch.metadata] == [(1, "port", 9), (2, "pad", 7), (3, "tag", 16)]
    assert ch.metadata[2].type_name.name == "Tag_t"
    assert facts.type_info.new_types["Tag_t"].original_type.bitstring.bit.bitwidth == 16


def test_table_without_default_action_gets_defaultonly_noaction(facts):
    t = _by_name(facts.tables)["I.no_default"]
    no_action = p4c_id(ACTION, "NoAction")
    assert [r.id for r in t.action_refs] == [p4c_id(ACTION, "I.set"), no_action]
    assert t.action_refs[1].scope == 2 and list(t.action_refs[1].annotations) == ["@defaultonly"]  # DEFAULT_ONLY
    assert t.initial_default_action.action_id == no_action and not t.initial_default_action.arguments
    assert t.const_default_action_id == 0 and t.size == 1024


def test_key_names_and_ids_follow_p4c(facts):
    tables = _by_name(facts.tables)
    keys = [(m.id, m.name, m.bitwidth) for m in tables["I.no_default"].match_fields]
    assert keys == [(1, "hdr.h.$valid$", 1), (2, "hdr.h.a", 8), (3, "hdr.h.b[7:0]", 8)]
    # a selector key is no match field but still takes its position's id
    keys = [(m.id, m.name) for m in tables["I.with_args"].match_fields]
    assert keys == [(1, "hdr.h.a"), (3, "meta.m")]


def test_action_param_ids_respect_id_annotations(facts):
    act = _by_name(facts.actions)["I.set"]
    # w has @id(1): v, the first without one, moves on to 2; t takes 3
    assert [(p.id, p.name, p.bitwidth) for p in act.params] == [(2, "v", 8), (1, "w", 16), (3, "t", 16)]
    assert act.params[2].type_name.name == "Tag_t"


def test_initial_default_action_arguments_are_full_width_bytes(facts):
    t = _by_name(facts.tables)["I.with_args"]
    d = t.initial_default_action
    assert d.action_id == p4c_id(ACTION, "I.set")
    assert [(a.param_id, a.value) for a in d.arguments] == [(2, b"\x0a"), (1, b"\x12\x34"), (3, b"\x00\x07")]
    assert t.implementation_id == p4c_id(p4i.ACTION_PROFILE, "I.sel")


def test_action_selector_sizing_annotations(facts):
    (ap,) = facts.action_profiles
    assert ap.with_selector and ap.size == 64 and ap.max_group_size == 16
    assert ap.sum_of_members.max_member_weight == 100
    assert not list(ap.preamble.annotations)  # p4c turns them into fields


def test_digest_and_register_type_specs(facts):
    (d,) = facts.digests
    assert d.preamble.name == "dig_t" and d.preamble.id == p4c_id(p4i.DIGEST, "dig_t")
    members = {m.name: m.type_spec for m in facts.type_info.structs["dig_t"].members}
    assert members["mac"].bitstring.bit.bitwidth == 48
    assert members["kind"].serializable_enum.name == "Kind_t"
    assert members["err"].HasField("error") and members["flag"].HasField("bool")
    assert members["color"].enum.name == "Color_t"
    se = facts.type_info.serializable_enums["Kind_t"]
    assert se.underlying_type.bitwidth == 8 and [(m.name, m.value) for m in se.members] == [("A", b"\x01"),
                                                                                         ("B", b"\x2a")]
    assert [m.name for m in facts.type_info.enums["Color_t"].members] == ["RED", "BLUE"]
    assert list(facts.type_info.error.members)[:3] == ["NoError", "PacketTooShort", "NoMatch"]
    (r,) = facts.registers
    assert r.type_spec.bitstring.int.bitwidth == 12 and r.size == 4


def test_type_info_is_always_written():
    assert "type_info {" in to_text(build_p4info(ProgramInfo()))


def test_actions_are_listed_in_p4c_order(facts):
    # block by block; the global actions a block uses first, then its own in declaration order
    assert [a.preamble.name for a in facts.actions] == ["NoAction", "I.set", "I.learn"]


def test_unused_tables_and_their_actions_are_left_out(tmp_path):
    # p4c removes a table that is never applied ("Table ... is not used; removing"), then the actions only it
    # named; extern instances stay even when unused
    frontend = _frontend()
    src = tmp_path / "unused.p4"
    src.write_text(FACTS_P4.replace(
        "    apply { no_default.apply(); with_args.apply(); learn(); }",
        "    action only_unused() { }\n"
        "    counter(4, CounterType.packets) idle;\n"
        "    direct_counter(CounterType.packets) never_hits;\n"
        "    table never { key = { hdr.h.a: exact; } actions = { only_unused; } counters = never_hits; }\n"
        "    apply { no_default.apply(); with_args.apply(); learn(); }"))
    p = build_p4info(frontend.load_program(str(src)).info)
    assert "I.never" not in {t.preamble.name for t in p.tables}
    assert "I.only_unused" not in {a.preamble.name for a in p.actions}
    assert [c.preamble.name for c in p.counters] == ["I.idle"]
    assert not p.direct_counters  # its table is gone, and p4c adds direct counters with their table


def test_pkg_info_from_main_annotations(tmp_path):
    frontend = _frontend()
    src = tmp_path / "pkg.p4"
    src.write_text(FACTS_P4.replace("V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
                                    '@pkginfo(name="facts", version="1.2", organization="rocelab") @brief("a test")\n'
                                    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;"))
    pkg = build_p4info(frontend.load_program(str(src)).info).pkg_info
    assert (pkg.arch, pkg.name, pkg.version, pkg.organization) == ("v1model", "facts", "1.2", "rocelab")
    assert pkg.doc.brief == "a test" and not list(pkg.annotations)


def _p4info_of(tmp_path, text):
    src = tmp_path / "prog.p4"
    src.write_text(text)
    return build_p4info(_frontend().load_program(str(src)).info)


def test_chained_new_types_have_the_underlying_original_type(tmp_path):
    # p4c walks a chain of `type`s down to the first other type: `type Outer_t` over `type Inner_t` over
    # bit<32> is registered with original_type bit<32> (no new_type reference), and only the types used are listed
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "type bit<16> Tag_t;", "type bit<16> Tag_t;\ntypedef bit<32> U32_t;\ntype U32_t Inner_t;\ntype Inner_t Outer_t;")
        .replace("header h_t { bit<8> a; bit<16> b; }", "header h_t { bit<8> a; bit<16> b; Outer_t o; }")
        .replace("key = { hdr.h.isValid(): exact; hdr.h.a: exact;", "key = { hdr.h.isValid(): exact; hdr.h.o: exact;"))
    (key,) = [m for m in _by_name(p.tables)["I.no_default"].match_fields if m.id == 2]
    assert (key.name, key.bitwidth, key.type_name.name) == ("hdr.h.o", 32, "Outer_t")
    outer = p.type_info.new_types["Outer_t"]
    assert outer.WhichOneof("representation") == "original_type"
    assert outer.original_type.bitstring.bit.bitwidth == 32
    assert "Inner_t" not in p.type_info.new_types


def test_instance_constructed_in_a_table_property_is_named_by_the_property_annotation(tmp_path):
    # p4c: an extern constructed in place (`@name("ap") implementation = action_profile(...)`) takes the
    # property's control-plane name as it is; it is not prefixed with the control's name as declarations are
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "        implementation = sel;",
        '        @name("prof") implementation = action_selector(HashAlgorithm.crc32, 32w128, 32w8);\n'
        '        @name(".dc") counters = direct_counter(CounterType.packets);'))
    ap = _by_name(p.action_profiles)["prof"]
    assert ap.preamble.alias == "prof"
    assert ap.preamble.id == p4c_id(p4i.ACTION_PROFILE, "prof") and ap.with_selector and ap.size == 128
    t = _by_name(p.tables)["I.with_args"]
    assert t.implementation_id == ap.preamble.id and list(ap.table_ids) == [t.preamble.id]
    (dc,) = p.direct_counters
    assert dc.preamble.name == "dc" and list(t.direct_resource_ids) == [p4c_id(p4i.DIRECT_COUNTER, "dc")]


def test_hidden_key_element_keeps_its_annotation(tmp_path):
    # p4c drops only @name/@id/@brief/@description from P4Info annotations; a @hidden key is still a match field
    p = _p4info_of(tmp_path, FACTS_P4.replace("hdr.h.a: exact; hdr.h.b[7:0]", "hdr.h.a: exact @hidden; hdr.h.b[7:0]"))
    keys = {m.name: list(m.annotations) for m in _by_name(p.tables)["I.no_default"].match_fields}
    assert keys == {"hdr.h.$valid$": [], "hdr.h.a": ["@hidden"], "hdr.h.b[7:0]": []}


ORDER_P4 = r"""
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
action g_first() { }
action g_second() { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control Sub(inout headers_t hdr) {
    action s1() { }
    table st { key = { hdr.h.a: exact; } actions = { s1; g_first; } default_action = g_first; }
    apply { st.apply(); }
}
control Direct(inout headers_t hdr) {
    action d1() { }
    table dt { key = { hdr.h.a: exact; } actions = { d1; } default_action = d1; }
    apply { dt.apply(); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action a1() { }
    Sub() sub;
    action a2() { }
    table t { key = { hdr.h.a: exact; } actions = { a2; a1; } default_action = a2; }
    apply { Direct.apply(hdr); t.apply(); sub.apply(hdr); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action e1() { }
    table et { key = { hdr.h.a: exact; } actions = { e1; g_first; g_second; } default_action = e1; }
    apply { et.apply(); }
}
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_action_order_follows_p4cs_inlining(tmp_path):
    # p4c inlines sub-control instances into their top-level control (an instance's locals take its place;
    # the implicit instance of a direct invocation comes after the declared locals), then copies the global
    # actions the control uses to its start (g_first, used by the sub-control); a global action first used by a
    # later block (g_second) starts that block's list.
    p = _p4info_of(tmp_path, ORDER_P4)
    assert [a.preamble.name for a in p.actions] == [
        "g_first", "I.a1", "I.sub.s1", "I.a2", "I.Direct.d1", "g_second", "E.e1"]


def test_type_info_flattens_header_structs_and_uses_field_name_annotations(tmp_path):
    # p4c's TypeSpecConverter: header members come from FlattenHeader (a struct field `s` gives `s.f8`, `s.f16`),
    # and struct / header members are named by their control-plane names (@name)
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "header h_t { bit<8> a; bit<16> b; }",
        "struct pair_t { bit<4> x; bit<4> y; }\nheader h_t { bit<8> a; bit<16> b; }\n"
        "header nested_t { pair_t p; @name(\"tail\") bit<8> t; }")
        .replace("struct dig_t { bit<48> mac;", "struct dig_t { nested_t n; @name(\"mac_addr\") bit<48> mac;"))
    nested = p.type_info.headers["nested_t"]
    assert [(m.name, m.type_spec.bit.bitwidth) for m in nested.members] == [("p.x", 4), ("p.y", 4), ("tail", 8)]
    members = [m.name for m in p.type_info.structs["dig_t"].members]
    assert members[:2] == ["n", "mac_addr"]


def test_key_names_print_constants_without_their_width(tmp_path):
    # p4c's KeyNameGenerator prints a constant in the base it was written in, without a width prefix
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "hdr.h.a: exact; hdr.h.b[7:0]: ternary;", "hdr.h.a & 8w0x0F: ternary; hdr.h.b & 0x00F0: ternary;"))
    names = [m.name for m in _by_name(p.tables)["I.no_default"].match_fields]
    assert names == ["hdr.h.$valid$", "hdr.h.a & 0xf", "hdr.h.b & 0xf0"]


def test_unknown_annotations_are_printed_token_by_token(tmp_path):
    # p4c keeps an annotation it does not parse as its token list and prints it (ToP4) with one space between
    # tokens; annotations it parses (@noWarn...) print as an expression list
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "    table no_default {", '    @my_anno(1,2) @other("a b", x.y) @noWarn("unused") @solo(IPV4_ADDRESS)\n'
                                  "    table no_default {"))
    assert list(_by_name(p.tables)["I.no_default"].preamble.annotations) == [
        "@my_anno(1 , 2)", '@other("a b" , x . y)', '@noWarn("unused")', "@solo(IPV4_ADDRESS)"]


def test_selector_keys_without_an_action_selector_are_accepted(tmp_path):
    # p4c accepts a table whose selector keys have no action_selector implementation: the selector keys are not
    # match fields (though they take their position's id) and the table has no implementation_id
    p = _p4info_of(tmp_path, FACTS_P4.replace("        implementation = sel;\n", ""))
    t = _by_name(p.tables)["I.with_args"]
    assert [(m.id, m.name) for m in t.match_fields] == [(1, "hdr.h.a"), (3, "meta.m")]
    assert t.implementation_id == 0


def test_tables_and_direct_counters_follow_p4cs_inlined_order(tmp_path):
    # after p4c inlines a sub-control, its tables sit where its instance was declared; direct counters are added
    # with their tables, so they follow the table order (not their own declaration order)
    p = _p4info_of(tmp_path, ORDER_P4.replace(
        "control Sub(inout headers_t hdr) {\n    action s1() { }",
        "control Sub(inout headers_t hdr) {\n    direct_counter(CounterType.packets) sc;\n    action s1() { }")
        .replace("default_action = g_first; }", "default_action = g_first; counters = sc; }")
        .replace("    action a1() { }\n    Sub() sub;\n",
                 "    direct_counter(CounterType.packets) c_t;\n    direct_counter(CounterType.packets) c_t0;\n"
                 "    action a1() { }\n"
                 "    table t0 { key = { hdr.h.a: exact; } actions = { a1; } default_action = a1; counters = c_t0; }\n"
                 "    Sub() sub;\n")
        .replace("actions = { a2; a1; } default_action = a2; }", "actions = { a2; a1; } default_action = a2; counters = c_t; }")
        .replace("apply { Direct.apply(hdr); t.apply();", "apply { Direct.apply(hdr); t.apply(); t0.apply();"))
    assert [t.preamble.name for t in p.tables] == ["I.t0", "I.sub.st", "I.t", "I.Direct.dt", "E.et"]
    assert [c.preamble.name for c in p.direct_counters] == ["I.c_t0", "I.sub.sc", "I.c_t"]


def test_structured_annotations_go_to_structured_annotations(tmp_path):
    # P4Runtime: `@x[k=v]` / `@x[e, ...]` are structured annotations, serialized with their literal values;
    # they are not repeated as text annotations
    p = _p4info_of(tmp_path, FACTS_P4.replace(
        "    table no_default {", '    @kv[k = 1, on = true, s = "x"] @lst["a", 2] @empty[] @plain(1)\n'
                                  "    table no_default {"))
    pre = _by_name(p.tables)["I.no_default"].preamble
    assert list(pre.annotations) == ["@plain(1)"]
    kv, lst, empty = pre.structured_annotations
    assert kv.name == "kv" and [(x.key, x.value.WhichOneof("value")) for x in kv.kv_pair_list.kv_pairs] == [
        ("k", "int64_value"), ("on", "bool_value"), ("s", "string_value")]
    assert kv.kv_pair_list.kv_pairs[0].value.int64_value == 1 and kv.kv_pair_list.kv_pairs[2].value.string_value == "x"
    assert [e.string_value or e.int64_value for e in lst.expression_list.expressions] == ["a", 2]
    assert empty.name == "empty" and empty.WhichOneof("body") is None
