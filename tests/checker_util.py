"""Helpers for the semantic checker tests: a v1model program with a given ingress, compiled, and errors
checked with their <string>:line:col."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.frontend import load_program_text

HEAD = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<32> src; bit<32> dst; }
header vlan_t { bit<16> tci; bit<16> etype; }
struct headers_t { eth_t eth; vlan_t[2] vlans; ipv4_t ipv4; }
struct meta_t { bit<8> a; bit<16> b; bit<32> c; int<8> s; bool f; }
"""


PARSER = """
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
  state start { pkt.extract(hdr.eth); transition accept; }
}
"""


REST = """
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


BLOCKS = PARSER + REST


def program(top: str = "", locals_: str = "", body: str = "") -> str:
    return (HEAD + top + "\ncontrol I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
            + locals_ + "\n  apply {\n" + body + "\n  }\n}\n" + BLOCKS)


def compile_(text: str):
    return load_program_text(text)


def ingress(prog):
    return next(d for d in prog.ast.declarations if isinstance(d, ast.ControlDecl) and d.name == "I")


def body_stmts(prog):
    return ingress(prog).body.statements


def loc_of(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def assert_error(text: str, needle: str, message: str, nth: int = 0) -> P4Error:
    with pytest.raises(P4Error) as ei:
        compile_(text)
    line, col = loc_of(text, needle, nth)
    s = str(ei.value)
    assert s.startswith(f"<string>:{line}:{col}: error: {message}"), s
    return ei.value

