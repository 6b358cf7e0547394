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
