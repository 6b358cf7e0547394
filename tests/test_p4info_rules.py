"""P4Info rules p4c follows, one test per rule (docs/p4info.md lists them with the test that shows each).

The programs are small v1model programs written for these tests; the expected values are what p4c writes for
such programs (checked against p4c's published P4Infos, see docs/p4info.md).
"""
import json

import pytest

from emulator.p4.p4info import ACTION, TABLE, build_p4info, jenkins_one_at_a_time
from emulator.p4.p4info_files import TEXT_HEADER, serialize, to_text

SKELETON = r"""
PRELUDE
#include <core.p4>
#include <v1model.p4>
DECLS
header h_t { bit<8> a; bit<16> b; }
struct headers_t { h_t h; HEADERS }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
INGRESS
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
MAIN V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program_text(ingress: str, decls: str = "", headers: str = "", main: str = "", prelude: str = "") -> str:
    return (SKELETON.replace("PRELUDE", prelude).replace("DECLS", decls).replace("HEADERS", headers)
            .replace("INGRESS", ingress).replace("MAIN", main))


def p4info_of(tmp_path, ingress: str, **parts):
    from emulator.p4 import frontend

    src = tmp_path / "prog.p4"
    src.write_text(program_text(ingress, **parts))
    return build_p4info(frontend.load_program(str(src)).info)


def names(items) -> list[str]:
    return [x.preamble.name for x in items]


def p4c_id(prefix: int, name: str) -> int:
    return (prefix << 24) | (jenkins_one_at_a_time(name) & 0xFFFFFF)


SIMPLE_INGRESS = """
    action set(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a: exact; } actions = { set; } }
    apply { t.apply(); }
"""


def test_pkginfo_and_platform_property_fill_pkg_info_fields_not_annotations(tmp_path):
    p = p4info_of(tmp_path, SIMPLE_INGRESS, main="""
        @pkginfo(name = "prog.p4", version = "1.2.3", organization = "Org", contact = "a@b.c", url = "http://x")
        @platform_property(multicast_group_table_size = 512, multicast_group_table_total_replicas = 0xF80,
                           multicast_group_table_max_replicas_per_entry = 128)
        @brief("short") @description("long") @my_flag(1)""")
    pkg = p.pkg_info
    assert (pkg.arch, pkg.name, pkg.version, pkg.organization, pkg.contact, pkg.url) == (
        "v1model", "prog.p4", "1.2.3", "Org", "a@b.c", "http://x")
    props = pkg.platform_properties
    assert (props.multicast_group_table_size, props.multicast_group_table_total_replicas,
            props.multicast_group_table_max_replicas_per_entry) == (512, 3968, 128)
    assert (pkg.doc.brief, pkg.doc.description) == ("short", "long")
    assert list(pkg.annotations) == ["@my_flag(1)"]  # only the annotations that fill no field


def test_packet_io_metadata_keep_annotations_and_id_and_are_flattened(tmp_path):
    decls = """
        @p4runtime_translation("", string) type bit<9> port_id_t;
        struct pair_t { bit<3> x; bit<5> y; }
        @controller_header("packet_out")
        header packet_out_t {
            @id(2) port_id_t egress_port;
            @id(1) bit<1> submit;
            @padding @sai[k = 1] bit<7> pad;
            pair_t pair;
        }"""
    p = p4info_of(tmp_path, SIMPLE_INGRESS, decls=decls, headers="packet_out_t po;")
    (ch,) = p.controller_packet_metadata
    rows = [(m.id, m.name, m.bitwidth, m.type_name.name, list(m.annotations)) for m in ch.metadata]
    # @id is kept; the others take the next free position (FieldIdAllocator); a struct field is flattened;
    # a type translated to a string has no bitwidth
    assert rows == [(2, "egress_port", 0, "port_id_t", []), (1, "submit", 1, "", []),
                    (3, "pad", 7, "", ["@padding"]), (4, "pair.x", 3, "", []), (5, "pair.y", 5, "", [])]
    (sa,) = ch.metadata[2].structured_annotations
    assert (sa.name, sa.kv_pair_list.kv_pairs[0].key, sa.kv_pair_list.kv_pairs[0].value.int64_value) == ("sai", "k", 1)
    assert p.type_info.new_types["port_id_t"].translated_type.HasField("sdn_string")


def test_brief_and_description_document_params_and_match_fields(tmp_path):
    p = p4info_of(tmp_path, """
        @brief("sets a") action set(@brief("the value") @description("any byte") bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact @brief("the key") @format(HEX); } actions = { set; } }
        apply { t.apply(); }""")
    (t,) = p.tables
    (key,) = t.match_fields
    assert (key.doc.brief, list(key.annotations)) == ("the key", ["@format(HEX)"])
    (a,) = [x for x in p.actions if x.preamble.name == "I.set"]
    assert a.preamble.doc.brief == "sets a" and not list(a.preamble.annotations)
    assert (a.params[0].doc.brief, a.params[0].doc.description) == ("the value", "any byte")


def test_hidden_objects_of_every_kind_are_left_out_and_not_referred_to(tmp_path):
    p = p4info_of(tmp_path, """
        @hidden register<bit<8>>(4) hr;
        @hidden counter(4, CounterType.packets) hc;
        @hidden meter(4, MeterType.bytes) hm;
        @hidden direct_counter(CounterType.packets) hdc;
        @hidden action hid() { }
        action vis() { }
        table t { key = { meta.m: exact; } actions = { hid; vis; } counters = hdc; }
        @hidden table ht { key = { meta.m: exact; } actions = { vis; } }
        apply { t.apply(); ht.apply(); hr.write(0, 1); hc.count(0); }""")
    assert names(p.tables) == ["I.t"]
    assert names(p.actions) == ["NoAction", "I.vis"]
    assert not (p.registers or p.counters or p.meters or p.direct_counters)
    (t,) = p.tables
    assert [r.id for r in t.action_refs] == [p4c_id(ACTION, "I.vis"), p4c_id(ACTION, "NoAction")]
    assert not t.direct_resource_ids


def test_actions_called_directly_are_listed_after_the_tables_actions(tmp_path):
    # p4c lists every action the program uses once its front end has run: a table's actions and those called
    # directly from an apply block (here `direct`); unused ones are gone, and so is `inner`, called only from
    # actions: the front end inlines an action called from an action (p4c's crc32-bmv2: `send_back`)
    p = p4info_of(tmp_path, """
        action inner(bit<8> v) { meta.m = v; }
        action direct() { inner(1); }
        action unused() { }
        action dummy() { inner(2); }
        table t { key = { hdr.h.a: exact; } actions = { dummy; NoAction; } default_action = NoAction; }
        apply { t.apply(); direct(); }""")
    assert names(p.actions) == ["NoAction", "I.direct", "I.dummy"]


def test_name_annotations_on_global_and_local_actions(tmp_path):
    # `@name("x")` on a top-level action is a top-level name; inside a control it is prefixed with the control's
    # name unless it starts with '.'; an alias is the full name when a shorter suffix is not unique
    decls = '@name("bar") action foo() { }\naction foo1() { }'
    p = p4info_of(tmp_path, """
        @name("foo1") action a1(bit<8> x) { meta.m = x; }
        @name(".baz") action a2() { }
        @name("bar") action a3() { }
        table t { key = { hdr.h.a: exact; } actions = { a1; a2; a3; foo; foo1; } }
        apply { t.apply(); }""", decls=decls)
    got = {a.preamble.name: (a.preamble.alias, a.preamble.id) for a in p.actions}
    assert got == {n: (alias, p4c_id(ACTION, n)) for n, alias in [
        ("NoAction", "NoAction"), ("bar", "bar"), ("foo1", "foo1"), ("I.foo1", "I.foo1"), ("baz", "baz"),
        ("I.bar", "I.bar")]}
    # top-level actions first, in the order the table lists them (the implicit default NoAction comes last), then
    # the control's own actions in declaration order
    assert names(p.actions) == ["bar", "foo1", "NoAction", "I.foo1", "baz", "I.bar"]
    assert p.tables[0].preamble.id == p4c_id(TABLE, "I.t")


@pytest.fixture()
def files(tmp_path):
    """The three files `rocelab compile --p4runtime-files` writes for one program."""
    from emulator.cli import build_parser
    from emulator.commands.compile import main as compile_main

    src = tmp_path / "prog.p4"
    src.write_text(program_text(SIMPLE_INGRESS, main='@pkginfo(name = "prog.p4", contact = "é <x>")'))
    out = [tmp_path / f"p4info.{ext}" for ext in ("txtpb", "json", "bin")]
    args = build_parser().parse_args(["compile", str(src), "--p4runtime-files", ",".join(map(str, out))])
    assert compile_main(args) == 0
    return out


def test_file_forms_are_the_ones_p4c_writes(files):
    from google.protobuf import json_format, text_format

    from emulator.proto import p4info_pb2

    txt, js, binary = (f.read_bytes() for f in files)
    message = p4info_pb2.P4Info.FromString(binary)
    # text: p4c's two comment lines, a blank line, then protobuf text format
    assert txt.decode() == TEXT_HEADER + to_text(message)
    assert text_format.Parse(txt.decode(), p4info_pb2.P4Info()) == message
    # JSON: protobuf's C++ writer with whitespace: one space of indent per level, lowerCamelCase names,
    # 64-bit numbers as strings, UTF-8 kept but `<` and `>` escaped (its JsonEscaping), a final newline
    text = js.decode()
    assert text.startswith('{\n "pkgInfo": {\n  "name": "prog.p4",\n') and text.endswith("}\n")
    assert '"contact": "é \\u003cx\\u003e"' in text and '"idleTimeoutBehavior"' not in text
    assert json.loads(text)["tables"][0]["preamble"]["name"] == "I.t"
    assert json_format.Parse(text, p4info_pb2.P4Info()) == message
    # binary: the serialized message, deterministic (map entries in key order)
    assert binary == serialize(message, "binary") == message.SerializeToString(deterministic=True)


def test_structured_annotation_values_are_folded_constants(tmp_path):
    # p4c folds each value of a structured annotation to a constant: `1 == 2` -> false, `5 + N` -> 11
    p = p4info_of(tmp_path, """
        #define N 6
        action set(bit<8> v) { hdr.h.a = v; }
        @list[1, "hello", true, 1 == 2, 5 + N, -3, 8w255 + 1] @kv[label = "text", flag = !false, n = 2 * 3]
        table t { key = { hdr.h.a: exact; } actions = { @myid[1] set; } }
        apply { t.apply(); }""")
    (t,) = p.tables
    lst, kv = t.preamble.structured_annotations
    values = [getattr(x, x.WhichOneof("value")) for x in lst.expression_list.expressions]
    assert (lst.name, values) == ("list", [1, "hello", True, False, 11, -3, 0])
    pairs = {x.key: getattr(x.value, x.value.WhichOneof("value")) for x in kv.kv_pair_list.kv_pairs}
    assert (kv.name, pairs) == ("kv", {"label": "text", "flag": True, "n": 6})
    assert t.action_refs[0].structured_annotations[0].expression_list.expressions[0].int64_value == 1
    assert not t.preamble.structured_annotations[0].HasField("source_location")  # p4c writes none


def test_an_annotation_written_twice_is_listed_twice(tmp_path):
    # every occurrence, in source order
    p = p4info_of(tmp_path, """
        @sai_field(A) @format(HEX) @sai_field(B / C) action set(bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact; } actions = { set; } }
        apply { t.apply(); }""")
    (a,) = [x for x in p.actions if x.preamble.name == "I.set"]
    assert list(a.preamble.annotations) == ["@sai_field(A)", "@format(HEX)", "@sai_field(B / C)"]


def test_code_under_a_constant_false_condition_uses_nothing(tmp_path):
    # p4c's front end folds `if (false)` away before it removes what is unused: the table applied and the action
    # called only there are left out, and so is an action called only from an action that is itself unused
    p = p4info_of(tmp_path, """
        const bool DEBUG = false;
        action dead() { meta.m = 1; }
        action via_unused() { meta.m = 3; }
        action unused_caller() { via_unused(); }
        action live() { meta.m = 2; }
        action a() { }
        table t { key = { meta.m: exact; } actions = { a; } }
        table debug_only { key = { meta.m: exact; } actions = { NoAction; } }
        apply { if (DEBUG) { dead(); debug_only.apply(); } else { live(); } t.apply(); }""")
    assert names(p.tables) == ["I.t"]
    assert names(p.actions) == ["NoAction", "I.live", "I.a"]


def test_a_pragma_is_the_annotation_it_names(tmp_path):
    p = p4info_of(tmp_path, """
        @pragma my_pragma 1 2
        action set(bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact; } actions = { set; } }
        apply { t.apply(); }""")
    (a,) = [x for x in p.actions if x.preamble.name == "I.set"]
    assert list(a.preamble.annotations) == ["@my_pragma(1 2)"]


def test_an_index_of_a_user_defined_type_is_named(tmp_path):
    # register<T, I>, counter<I>, meter<I> whose index is a `type`: index_type_name names it, type_info has it
    p = p4info_of(tmp_path, """
        register<bit<8>, idx_t>(16) r;
        counter<idx_t>(16, CounterType.packets) c;
        meter<bit<32>>(16, MeterType.bytes) m;
        action set(bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact; } actions = { set; } }
        apply { t.apply(); r.write((idx_t)1, 2); c.count((idx_t)1); }""", decls="type bit<32> idx_t;",
        prelude="#define V1MODEL_VERSION 20200408")  # v1model's generic-index externs
    assert [x.index_type_name.name for x in (*p.registers, *p.counters, *p.meters)] == ["idx_t", "idx_t", ""]
    assert p.type_info.new_types["idx_t"].original_type.bitstring.bit.bitwidth == 32


def test_json_lists_type_info_map_entries_in_key_order(tmp_path):
    p = p4info_of(tmp_path, """
        register<zz_t>(4) r1;
        register<aa_t>(4) r2;
        action set(bit<8> v) { hdr.h.a = v; }
        table t { key = { hdr.h.a: exact; } actions = { set; } }
        apply { t.apply(); }""", decls="struct zz_t { bit<8> z; }\nstruct aa_t { bit<8> a; }")
    text = serialize(p, "json").decode()
    assert list(json.loads(text)["typeInfo"]["structs"]) == ["aa_t", "zz_t"]  # as the text form sorts them
    assert list(json.loads(text)) == ["pkgInfo", "tables", "actions", "registers", "typeInfo"]  # field order


def test_specialized_generic_structs_are_named_as_p4c_names_them(tmp_path):
    # p4c's front end replaces `S<args>` by a struct named S, then "_" and each argument as P4 text without `<`, `>`
    # or spaces; a generic struct with @name keeps that name (p4c's p4rt_digest_complex golden file)
    decls = """
        struct s2_t<T> { bit<16> f16; T f; }
        @name("s3_t") struct s3_t<T> { T f; }
        struct pair_t<A, B> { A a; B b; }
        struct dig_t { s2_t<bit<32>> s2; s3_t<bit<64>> s3; pair_t<bit<8>, s2_t<int<4>>> p; }"""
    p = p4info_of(tmp_path, """
        action learn() { dig_t d; d.s2.f16 = 1; digest(1, d); digest(2, d.s2); }
        table t { key = { hdr.h.a: exact; } actions = { learn; } }
        apply { t.apply(); }""", decls=decls)
    assert sorted(p.type_info.structs) == ["dig_t", "pair_t_bit8_s2_tint4", "s2_t_bit32", "s2_t_int4", "s3_t"]
    members = {m.name: m.type_spec.struct.name for m in p.type_info.structs["dig_t"].members}
    assert members == {"s2": "s2_t_bit32", "s3": "s3_t", "p": "pair_t_bit8_s2_tint4"}
    assert names(p.digests) == ["dig_t", "s2_t_bit32"]


@pytest.mark.parametrize("ingress, decls, written", [
    ("action a() { hdr.h.a = 1; } apply { a(); }", "", False),  # actions only: no type_info at all
    (SIMPLE_INGRESS, "", True),  # a table
    ("counter(4, CounterType.packets) c; apply { }", "", True),  # an extern instance, even unused
    ("apply { mark_to_drop(sm); }", "", True),  # an extern function call
    ("apply { f(sm); }", "void f(inout standard_metadata_t s) { mark_to_drop(s); }", True),  # ... in a function
])
def test_type_info_is_written_when_a_table_or_an_extern_is_there(tmp_path, ingress, decls, written):
    p = p4info_of(tmp_path, ingress, decls=decls)
    assert p.HasField("type_info") is written
    assert ("type_info {" in to_text(p)) is written


def test_selector_size_semantics_default_and_max_member_weight(tmp_path):
    p = p4info_of(tmp_path, """
    action set(bit<8> v) { hdr.h.a = v; }
    action_selector(HashAlgorithm.crc16, 64, 14) plain;
    @max_group_size(8) @selector_size_semantics("SUM_OF_MEMBERS") action_selector(HashAlgorithm.crc16, 64, 14) mem;
    @selector_size_semantics("sum_of_weights") @max_member_weight(7)
    action_selector(HashAlgorithm.crc16, 64, 14) weighted;
    @max_group_size(8) @max_member_weight(7) action_profile(64) prof;
    table t1 { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { set; } implementation = plain; }
    table t2 { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { set; } implementation = mem; }
    table t3 { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { set; } implementation = weighted; }
    table t4 { key = { hdr.h.a: exact; } actions = { set; } implementation = prof; }
    apply { t1.apply(); t2.apply(); t3.apply(); t4.apply(); }
""")
    profiles = {x.preamble.name: x for x in p.action_profiles}
    semantics = {n: x.WhichOneof("selector_size_semantics") for n, x in profiles.items()}
    assert semantics == {"I.plain": "sum_of_weights", "I.mem": "sum_of_members",
                         "I.weighted": "sum_of_members", "I.prof": None}
    assert profiles["I.weighted"].sum_of_members.max_member_weight == 7
    assert profiles["I.mem"].sum_of_members.max_member_weight == 0 and profiles["I.mem"].max_group_size == 8
    assert profiles["I.prof"].max_group_size == 0  # the sizing annotations mean nothing without a selector


def test_constructor_arguments_see_the_initial_values_of_local_variables(tmp_path):
    # p4c instantiates a control's externs knowing what its local variables were initialized with (its
    # decl-copy-prop.p4: a counter sized by `(bit<32>)tst2.t1.tup[0].h1.f2`): through struct fields, tuple indexes
    # and casts
    p = p4info_of(tmp_path, """
    s_t cfg = { a = 3, b = 7 };
    tuple<bit<8>, s_t> tup = { 1, { 5, 9 } };
    counter((bit<32>)cfg.b, CounterType.packets) c1;
    register<bit<8>>((bit<32>)tup[1].a) r;
    apply { c1.count(0); r.write(0, 1); }
""", decls="struct s_t { bit<8> a; bit<8> b; }")
    assert [(c.preamble.name, c.size) for c in p.counters] == [("I.c1", 7)]
    assert [(r.preamble.name, r.size) for r in p.registers] == [("I.r", 5)]


def test_digests_of_lists_are_named_digest_n_counting_only_those(tmp_path):
    # p4c's v1model handler names a digest after its type; a list/tuple has no name, so each such call gets
    # `digest_N`, N counting only those calls (a struct digest before them takes no number), its type spec a tuple
    p = p4info_of(tmp_path, """
    apply {
        digest<meta_t>(1, meta);
        digest(1, { hdr.h.a, hdr.h.b });
        digest(1, { hdr.h.b });
    }""")
    assert names(p.digests) == ["meta_t", "digest_0", "digest_1"]
    assert [m.bitstring.bit.bitwidth for m in p.digests[1].type_spec.tuple.members] == [8, 16]
    assert p.digests[0].type_spec.struct.name == "meta_t"


def test_global_actions_come_in_the_order_the_inlined_block_uses_them(tmp_path):
    # p4c copies the global actions a top-level block uses to its start once sub-controls are inlined, in the
    # order it meets their uses: the block's locals first (a directly invoked control's implicit instance comes
    # after the declared locals), then the apply body with each applied sub-control's body in place of its
    # apply call (p4c's dash-pipeline-v1model-bmv2: NoAction, tunnel_decap of the block's own tables before
    # the sub-controls' route_* actions, then push_vxlan_* called only from bodies)
    decls = """
action g_own() { }
action g_sub() { }
action g_b1() { }
action g_b2() { }
control Sub(inout bit<8> a) {
    table ts { key = { a: exact; } actions = { g_sub; } default_action = g_sub; }
    apply { ts.apply(); }
}
control Sub2(inout bit<8> a) { apply { g_b2(); } }
"""
    ingress = """
    table t { key = { hdr.h.b: exact; } actions = { g_own; } default_action = g_own; }
    apply { g_b1(); Sub.apply(hdr.h.a); Sub2.apply(hdr.h.a); t.apply(); }
"""
    p4 = p4info_of(tmp_path, ingress, decls=decls)
    assert names(p4.actions) == ["g_own", "g_sub", "g_b1", "g_b2"]
    assert names(p4.tables) == ["I.t", "I.Sub.ts"]
