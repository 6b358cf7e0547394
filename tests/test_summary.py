"""ProgramInfo: p4c-style control-plane names, tables, const entries, extern instances, digests."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.frontend import load_program_text

HEAD = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t { bit<8> proto; bit<32> src; bit<32> dst; }
struct headers_t { eth_t eth; ipv4_t ipv4; }
struct meta_t { bit<8> a; bit<16> b; bit<32> c; bit<14> h; }
struct learn_t { bit<48> src; bit<9> port; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { pkt.extract(hdr.eth); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
"""

MAIN = "V1Switch(P(), V(), MyIngress(), E(), C(), D()) main;\n"


def info_of(top: str = "", locals_: str = "", body: str = "", main: str = MAIN):
    text = (HEAD + top + "\ncontrol MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
            + locals_ + "\n  apply {\n" + body + "\n  }\n}\n" + main)
    return load_program_text(text).info


def test_blocks_of_main():
    info = info_of()
    assert list(info.blocks) == ["parser", "verifyChecksum", "ingress", "egress", "computeChecksum", "deparser"]
    assert isinstance(info.blocks["ingress"], ast.ControlDecl) and info.blocks["ingress"].name == "MyIngress"
    assert isinstance(info.blocks["parser"], ast.ParserDecl)


def test_table_names_keys_and_actions():
    info = info_of(locals_="""
  action fwd(bit<9> port, bit<48> mac) { sm.egress_spec = port; hdr.eth.dst = mac; }
  action drop() { mark_to_drop(sm); }
  table ipv4_lpm {
    key = { hdr.ipv4.dst: lpm; hdr.ipv4.isValid(): exact; hdr.eth.src[7:0]: ternary; meta.a: exact @name("alias"); }
    actions = { fwd; drop; NoAction; }
    default_action = drop();
    size = 512;
  }
""", body="ipv4_lpm.apply();")
    t = info.table("MyIngress.ipv4_lpm")
    assert [(m.name, m.match_kind, m.bitwidth, m.id) for m in t.match_fields] == [
        ("hdr.ipv4.dst", "lpm", 32, 1), ("hdr.ipv4.$valid$", "exact", 1, 2),
        ("hdr.eth.src[7:0]", "ternary", 8, 3), ("alias", "exact", 8, 4)]
    assert [a.name for a in t.actions] == ["MyIngress.fwd", "MyIngress.drop", "NoAction"]
    assert t.default_action == "MyIngress.drop" and t.default_action_args == []
    assert t.size == 512 and not t.const_default_action
    fwd = info.action("MyIngress.fwd")
    assert [(p.name, p.bitwidth, p.id) for p in fwd.params] == [("port", 9, 1), ("mac", 48, 2)]
    assert info.action("NoAction").params == []


def test_default_size_and_const_default_action_with_args():
    info = info_of(locals_="""
  action setb(bit<16> v) { meta.b = v; }
  table t { key = { meta.a: exact; } actions = { setb; } const default_action = setb(0x1234); }
""", body="t.apply();")
    t = info.table("MyIngress.t")
    assert t.size == 1024
    assert t.default_action == "MyIngress.setb" and t.default_action_args == [0x1234] and t.const_default_action


def test_only_reachable_actions_and_control_plane_params():
    info = info_of(locals_="""
  action unused() { }
  action called(inout bit<8> x, bit<8> y) { x = y; }
  action in_table() { }
  table t { actions = { in_table; } }
""", body="t.apply(); called(meta.a, 3);")
    names = [a.name for a in info.actions]
    assert "MyIngress.unused" not in names
    assert "MyIngress.in_table" in names and "MyIngress.called" in names
    assert [p.name for p in info.action("MyIngress.called").params] == ["y"]


def test_sub_controls_and_name_annotations():
    info = info_of(top="""
control Sub(inout meta_t m) {
  counter(8, CounterType.packets) hits;
  action set(bit<8> v) { m.a = v; }
  table t { key = { m.a: exact; } actions = { set; } }
  @name("renamed") table t2 { key = { m.a: exact; } actions = { set; } }
  @name("x.y") table t4 { key = { m.a: exact; } actions = { set; } }
  @hidden table t5 { actions = { set; } }
  apply { t.apply(); t2.apply(); t4.apply(); t5.apply(); hits.count(0); }
}
""", locals_="""Sub() c1; @name("other") Sub() c2;
  action b() { }
  @name(".abs_table") table t3 { key = { meta.a: exact; } actions = { b; } }""",
                   body="c1.apply(meta); c2.apply(meta); t3.apply();")
    names = {t.name for t in info.tables}
    assert {"MyIngress.c1.t", "MyIngress.c1.renamed", "abs_table", "MyIngress.c1.x.y", "MyIngress.other.t",
            "MyIngress.other.renamed"} <= names
    hidden = [t for t in info.tables if t.name.endswith(".t5")]
    assert len(hidden) == 2 and all("hidden" in t.annotations for t in hidden)  # kept for the target
    assert {a.name for a in info.actions} >= {"MyIngress.c1.set", "MyIngress.other.set"}
    assert {c.name for c in info.counters} == {"MyIngress.c1.hits", "MyIngress.other.hits"}


def test_top_level_instance_path_uses_instance_name():
    info = info_of(locals_="""
  action a() { }
  table t { actions = { a; } }
""", body="t.apply();", main="MyIngress() ig;\nV1Switch(P(), V(), ig, E(), C(), D()) main;\n")
    assert [t.name for t in info.tables] == ["ig.t"]
    assert info.blocks["ingress"].name == "MyIngress"


def test_constructor_parameter_sub_control():
    info = info_of(top="""
control Leaf(inout meta_t m) { action a() { } table lt { actions = { a; } } apply { lt.apply(); } }
control Wrap(inout meta_t m)(Leaf inner) { apply { } }
""", locals_="Wrap(Leaf()) w;", body="w.apply(meta);")
    assert "MyIngress.w.inner.lt" in [t.name for t in info.tables]


def test_const_entries_implicit_priorities_first_wins():
    info = info_of(locals_="""
  action a(bit<8> v) { meta.a = v; }
  table t {
    key = { meta.b: ternary; meta.a: exact; }
    actions = { a; }
    const entries = {
      (0x0100 &&& 0xff00, 1): a(1);
      (_, 2): a(2);
      (0x0005, 3): a(3);
    }
  }
""", body="t.apply();")
    t = info.table("MyIngress.t")
    assert t.entries_const
    assert [e.keys for e in t.const_entries] == [
        [("ternary", 0x0100, 0xff00), 1], [None, 2], [("ternary", 5, 0xffff), 3]]
    assert [e.priority for e in t.const_entries] == [3, 2, 1]
    assert [e.args for e in t.const_entries] == [[1], [2], [3]]
    assert {e.action for e in t.const_entries} == {"MyIngress.a"}


def test_const_entries_explicit_priorities_and_kinds():
    info = info_of(locals_="""
  action a() { }
  table t {
    key = { hdr.ipv4.dst: lpm; meta.b: range; meta.a: optional; }
    actions = { a; }
    const entries = {
      priority = 10: (0x0a000000 &&& 0xff000000, 1 .. 5, 7): a();
      priority = 20: (0x0b000000, 6 .. 9, _): a();
    }
  }
  table ex { key = { meta.a: exact; } actions = { a; } entries = { 1: a(); } }
""", body="t.apply(); ex.apply();")
    t = info.table("MyIngress.t")
    assert [e.priority for e in t.const_entries] == [10, 20]
    assert t.const_entries[0].keys == [("lpm", 0x0a000000, 8), ("range", 1, 5), ("optional", 7)]
    assert t.const_entries[1].keys == [("lpm", 0x0b000000, 32), ("range", 6, 9), None]
    ex = info.table("MyIngress.ex")
    assert ex.const_entries[0].keys == [1] and ex.const_entries[0].priority is None
    assert not ex.entries_const


def test_action_scopes():
    info = info_of(locals_="""
  action a() { } action b() { } action c() { }
  table t { actions = { a; @tableonly b; @defaultonly c; } default_action = c(); }
""", body="t.apply();")
    scopes = {r.name: r.scope for r in info.table("MyIngress.t").actions}
    assert scopes == {"MyIngress.a": "TABLE_AND_DEFAULT", "MyIngress.b": "TABLE_ONLY",
                      "MyIngress.c": "DEFAULT_ONLY"}


def test_action_selector_and_selector_keys():
    info = info_of(locals_="""
  action_selector(HashAlgorithm.crc16, 32w64, 32w14) sel;
  action_profile(128) prof;
  action nh(bit<9> p) { sm.egress_spec = p; }
  table ecmp {
    key = { hdr.ipv4.dst: lpm; hdr.ipv4.src: selector; hdr.ipv4.proto: selector; }
    actions = { nh; }
    implementation = sel;
  }
  table ap { key = { meta.a: exact; } actions = { nh; } implementation = prof; }
  table anon { key = { meta.a: exact; } actions = { nh; }
               @name("anon_sel") implementation = action_selector(HashAlgorithm.crc32, 32w16, 32w8); }
""", body="ecmp.apply(); ap.apply(); anon.apply();")
    t = info.table("MyIngress.ecmp")
    assert [m.name for m in t.match_fields] == ["hdr.ipv4.dst"]
    assert [(s.name, s.match_kind, s.bitwidth) for s in t.selector_fields] == [
        ("hdr.ipv4.src", "selector", 32), ("hdr.ipv4.proto", "selector", 8)]
    assert t.implementation == "MyIngress.sel"
    profs = {p.name: p for p in info.action_profiles}
    sel = profs["MyIngress.sel"]
    assert sel.with_selector and sel.algorithm == "crc16" and sel.size == 64 and sel.selector_width == 14
    assert sel.table_names == ["MyIngress.ecmp"]
    assert not profs["MyIngress.prof"].with_selector and profs["MyIngress.prof"].size == 128
    # an instance constructed in the property takes the property's @name verbatim (p4c does not prefix it)
    assert info.table("MyIngress.anon").implementation == "anon_sel"
    assert profs["anon_sel"].algorithm == "crc32"


def test_extern_instances():
    info = info_of(locals_="""
  counter(64, CounterType.bytes) c;
  meter(32, MeterType.packets) m;
  register<bit<48>>(1024) r;
  direct_counter(CounterType.packets_and_bytes) dc;
  direct_meter<bit<2>>(MeterType.bytes) dm;
  action a() { dm.read(meta.h[1:0]); }
  table t1 { key = { meta.a: exact; } actions = { a; } counters = dc; }
  table t2 { key = { meta.a: exact; } actions = { a; } meters = dm; }
""", body="t1.apply(); t2.apply(); c.count(1); m.execute_meter(0, meta.a); r.write(0, 48w1);")
    assert [(c.name, c.size, c.kind) for c in info.counters] == [("MyIngress.c", 64, "bytes")]
    assert [(m.name, m.size, m.kind) for m in info.meters] == [("MyIngress.m", 32, "packets")]
    assert [(r.name, r.size, r.bitwidth) for r in info.registers] == [("MyIngress.r", 1024, 48)]
    assert [(d.name, d.kind, d.table) for d in info.direct_counters] == [
        ("MyIngress.dc", "packets_and_bytes", "MyIngress.t1")]
    assert [(d.name, d.kind, d.table) for d in info.direct_meters] == [("MyIngress.dm", "bytes", "MyIngress.t2")]
    assert info.table("MyIngress.t1").direct_counter == "MyIngress.dc"
    assert info.table("MyIngress.t2").direct_meter == "MyIngress.dm"


def test_digests_value_sets_controller_headers():
    text = HEAD.replace("parser P(", """@controller_header("packet_in") header pin_t { bit<9> port; bit<7> pad; }
parser P0(""") + """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  value_set<bit<16>>(8) ethertypes;
  state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { ethertypes: accept; default: accept; } }
}
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  apply {
    digest<learn_t>(1, { hdr.eth.src, sm.ingress_port });
    digest(2, (learn_t){ src = hdr.eth.dst, port = sm.ingress_port });
  }
}
""" + MAIN
    info = load_program_text(text).info
    assert [(d.name, [(f.name, f.bitwidth) for f in d.fields]) for d in info.digests] == [
        ("learn_t", [("src", 48), ("port", 9)])]
    assert [(v.name, v.size, [m.bitwidth for m in v.match_fields]) for v in info.value_sets] == [
        ("P.ethertypes", 8, [16])]
    assert [(c.name, [f.bitwidth for f in c.fields]) for c in info.controller_headers] == [("packet_in", [9, 7])]


def test_id_and_annotations_kept():
    info = info_of(locals_="""
  @id(0x01000042) @brief("does a") action a() { }
  @id(7) table t { actions = { a; } }
""", body="t.apply();")
    a = info.action("MyIngress.a")
    assert a.id_override == 0x01000042 and a.annotations["brief"] == ['"does a"']
    assert info.table("MyIngress.t").id_override == 7


def test_no_main_gives_empty_info():
    text = "#include <core.p4>\nheader h_t { bit<8> x; }\n"
    info = load_program_text(text).info
    assert info.tables == [] and info.blocks == {}


def test_lpm_mask_must_be_prefix():
    with pytest.raises(P4Error) as ei:
        info_of(locals_="""
  action a() { }
  table t { key = { hdr.ipv4.dst: lpm; } actions = { a; } const entries = { 0x0a000000 &&& 0xff00ff00: a(); } }
""", body="t.apply();")
    assert "lpm mask must be a prefix" in str(ei.value)


def test_top_level_extern_instance_and_key_expression_text():
    info = info_of(top="counter(4, CounterType.packets) global_hits;\n", locals_="""
  action a() { global_hits.count(0); }
  table t { key = { meta.b & 0xff00: ternary; hdr.eth.isValid(): exact; } actions = { a; } }
""", body="t.apply();")
    assert [(c.name, c.size) for c in info.counters] == [("global_hits", 4)]
    assert [m.name for m in info.table("MyIngress.t").match_fields] == ["meta.b & 0xff00", "hdr.eth.$valid$"]


@pytest.mark.parametrize("locals_, message", [
    ("""action a() { }
  table t { key = { meta.a: exact; } actions = { a; } }
  @name("t") table u { key = { meta.a: exact; } actions = { a; } }""", "two tables are named 'MyIngress.t'"),
    ("""action a() { }
  table t { key = { meta.a: lpm; meta.b: lpm; } actions = { a; } }""", "table MyIngress.t has more than one lpm key"),
    ("""action a() { } direct_counter(CounterType.packets) dc;
  table t { key = { meta.a: exact; } actions = { a; } counters = dc; }
  table u { key = { meta.a: exact; } actions = { a; } counters = dc; }""",
     "MyIngress.dc is attached to both MyIngress.t and MyIngress.u"),
    ("""action a() { }
  table t { key = { meta.a: exact; } actions = { a; } size = -1; }""", "table size must be positive, not -1"),
])
def test_table_shape_errors(locals_, message):
    with pytest.raises(P4Error) as ei:
        info_of(locals_=locals_)
    assert f"error: {message}" in str(ei.value)


def test_duplicate_control_plane_names_are_errors():
    with pytest.raises(P4Error) as ei:
        info_of(locals_="""
  @name("same") action a() { } @name("same") action b() { }
  table t { actions = { a; b; } }""", body="t.apply();")
    assert "two actions are named 'MyIngress.same'" in str(ei.value)
    with pytest.raises(P4Error) as ei:
        info_of(locals_="""
  counter(4, CounterType.packets) c;
  @name("c") counter(8, CounterType.bytes) r;""")
    assert "two instances are named 'MyIngress.c'" in str(ei.value)


def test_priority_annotation_on_entries():
    info = info_of(locals_="""
  action a() { }
  table t { key = { meta.a: ternary; } actions = { a; }
            const entries = { @priority(7) 1 &&& 0xff: a(); @priority(9) 2 &&& 0xff: a(); } }
""", body="t.apply();")
    # p4c's legacy @priority(n) is BMv2's entry priority: the smaller n wins. The target's tables let the larger
    # priority win, so the summary mirrors the values: the @priority(7) entry must outrank the @priority(9) one.
    first, second = (e.priority for e in info.table("MyIngress.t").const_entries)
    assert first > second > 0


def test_table_size_zero_means_the_default():
    # p4c (getTableSize): a size of 0 is the default 1024
    info = info_of(locals_="action a() { } table t { key = { meta.a: exact; } actions = { a; } size = 0; }",
                   body="t.apply();")
    assert info.table("MyIngress.t").size == 1024
