"""P4Info conventions p4c follows, checked on compiled programs (facts from p4c's published output for v1model
programs); docs/p4info.md lists each rule with its test. Ids, aliases and file basics: test_p4info.py."""
import pytest

from emulator.p4 import p4info as p4i
from emulator.p4.p4info import ACTION, build_p4info, jenkins_one_at_a_time


def p4c_id(prefix: int, name: str) -> int:
    return (prefix << 24) | (jenkins_one_at_a_time(name) & 0xFFFFFF)


def _frontend():
    from emulator.p4 import frontend

    return frontend


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
