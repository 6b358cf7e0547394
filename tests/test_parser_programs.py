"""Whole programs through the parser: our v1model.p4, a realistic v1model program (programs/realistic_switch.p4),
a thousand-line program, and raw text with preprocessor directives."""
from __future__ import annotations

from pathlib import Path

from parser_util import D, I

from emulator.p4 import ast
from emulator.p4.parser import parse_program
from emulator.p4.preprocess import INCLUDE_DIR, preprocess, preprocess_text


def test_v1model_p4_parses_whole():
    prog = parse_program(preprocess(INCLUDE_DIR / "v1model.p4"))
    names = [getattr(d, "name", None) for d in prog.declarations]
    for n in ("packet_in", "packet_out", "verify", "NoAction", "standard_metadata_t", "counter", "direct_counter",
              "meter", "direct_meter", "register", "action_profile", "action_selector", "hash", "random", "digest",
              "mark_to_drop", "clone", "clone3", "clone_preserving_field_list", "resubmit",
              "resubmit_preserving_field_list", "recirculate", "recirculate_preserving_field_list", "truncate",
              "verify_checksum", "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload",
              "assert", "assume", "log_msg", "Parser", "VerifyChecksum", "Ingress", "Egress", "ComputeChecksum",
              "Deparser", "V1Switch", "HashAlgorithm", "CloneType", "CounterType", "MeterType"):
        assert n in names, n
    assert names.count("mark_to_drop") == 2 and names.count("log_msg") == 2
    sm = prog.declarations[names.index("standard_metadata_t")]
    fields = [f.name for f in sm.fields]
    assert fields[:3] == ["ingress_port", "egress_spec", "egress_port"]
    assert fields[-2:] == ["enq_qdepth_bytes", "deq_qdepth_bytes"]
    assert "priority" in fields and "parser_error" in fields
    mks = [m.name for d in prog.declarations if isinstance(d, ast.MatchKindDecl) for m in d.members]
    assert mks == ["exact", "ternary", "lpm", "range", "optional", "selector"]
    errs = [m.name for d in prog.declarations if isinstance(d, ast.ErrorDecl) for m in d.members]
    assert errs == ["NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort", "ParserTimeout",
                    "ParserInvalidArgument"]
    ha = prog.declarations[names.index("HashAlgorithm")]
    assert [m.name for m in ha.members] == ["crc32", "crc32_custom", "crc16", "crc16_custom", "random", "identity",
                                            "csum16", "xor16"]
    v1 = prog.declarations[names.index("V1Switch")]
    assert [p.name for p in v1.params] == ["p", "vr", "ig", "eg", "ck", "dep"]
    reg = prog.declarations[names.index("register")]
    assert [p.name for p in reg.type_params] == ["T"]
    assert prog.files[0].endswith("v1model.p4") and any(f.endswith("core.p4") for f in prog.files)


def test_v1model_generic_index_variant_parses():
    prog = parse_program(preprocess_text("#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n", "g.p4"))
    reg = [d for d in prog.declarations if getattr(d, "name", "") == "register"][0]
    assert [p.name for p in reg.type_params] == ["T", "I"]
    assert "PortId_t" in [getattr(d, "name", "") for d in prog.declarations]  # only from 20200408 on, as p4c


BIG_PROGRAM = (Path(__file__).parent / "programs" / "realistic_switch.p4").read_text()


def test_realistic_v1model_program_parses(tmp_path):
    path = tmp_path / "switch.p4"
    path.write_text(BIG_PROGRAM)
    prog = parse_program(preprocess(path))
    by_name = {getattr(d, "name", None): d for d in prog.declarations}
    for n in ("ethernet_t", "ipv4_t", "tcp_t", "udp_t", "headers", "metadata", "MyParser", "MyIngress", "MyEgress",
              "MyVerifyChecksum", "MyComputeChecksum", "MyDeparser", "main"):
        assert n in by_name, n
    ing = by_name["MyIngress"]
    tables = [d.name for d in ing.locals if isinstance(d, ast.TableDecl)]
    assert tables == ["ipv4_lpm", "ecmp_group", "acl", "dmac", "qos"]
    prs = by_name["MyParser"]
    assert [s.name for s in prs.states] == ["start", "parse_ethernet", "parse_vlan", "parse_ipv4",
                                            "parse_ipv4_options", "dispatch_on_protocol", "parse_tcp", "parse_udp"]
    # macros were expanded and locations still point into the file
    start_case = prs.states[0].transition.target.cases[0]
    assert D(start_case.keyset) == I(255)
    assert start_case.loc.file == str(path) and start_case.loc.line == BIG_PROGRAM.splitlines().index(
        "            CPU_PORT: parse_ethernet;") + 1
    assert isinstance(by_name["l4_t"], ast.HeaderUnionDecl)
    assert by_name["Color"].underlying is not None
    main = by_name["main"]
    assert [a.expr.ctor_type.path for a in main.args] == ["MyParser", "MyVerifyChecksum", "MyIngress", "MyEgress",
                                                          "MyComputeChecksum", "MyDeparser"]
    # every node has a location in a real file
    for node in ast.walk(prog):
        assert node.loc.line > 0, node


def _thousand_line_program() -> str:
    parts = ["#include <v1model.p4>\n", "header h_t { bit<32> a; bit<32> b; bit<16> c; }\n",
             "struct H { h_t h; }\nstruct M { bit<32> x; }\n"]
    for i in range(40):
        parts.append(f"""
control C{i}(inout H hdr, inout M meta, inout standard_metadata_t sm) {{
    action a{i}(bit<32> v, bit<9> port) {{
        hdr.h.a = v + (hdr.h.b << 2) ^ (bit<32>) hdr.h.c;
        sm.egress_spec = port;
    }}
    action drop() {{ mark_to_drop(sm); }}
    table t{i} {{
        key = {{ hdr.h.a: exact; hdr.h.b: ternary; }}
        actions = {{ a{i}; drop; NoAction; }}
        default_action = NoAction();
        size = {i + 1};
    }}
    apply {{
        if (hdr.h.isValid() && hdr.h.c[7:0] == 8w{i}) {{
            t{i}.apply();
        }} else {{
            meta.x = meta.x |+| 32w1;
        }}
    }}
}}
""")
    return "".join(parts)


def test_parses_a_thousand_line_program():
    # (its speed is not asserted here: timings on a shared 2-core machine belong in `rocelab bench`)
    text = _thousand_line_program()
    pre = preprocess_text(text, "speed.p4")
    assert len(pre.text.splitlines()) >= 1000
    prog = parse_program(pre)
    assert sum(isinstance(d, ast.ControlDecl) for d in prog.declarations) == 40


def test_raw_text_with_directives_is_preprocessed():
    prog = parse_program("#include <core.p4>\n#define N 3\nconst bit<8> x = N;\n", "raw.p4")
    const = prog.declarations[-1]
    assert D(const.value) == I(3) and (const.loc.file, const.loc.line) == ("raw.p4", 3)
    assert any(isinstance(d, ast.ExternDecl) and d.name == "packet_in" for d in prog.declarations)


def test_program_keeps_its_source_for_carets():
    prog = parse_program("const bit<8> x = 1;\n", "mem.p4")
    assert prog.source.source_line("mem.p4", 1) == "const bit<8> x = 1;"
    assert ast.dump(prog) == ("Program", [("ConstDecl", ("BitType", I(8), False), "x", I(1), [])], ["mem.p4"])

