"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 5b, session 23):
each passes the front end, and where it is a v1model program, runs."""
from __future__ import annotations

import pytest
from codegen_util import load

from emulator.errors import P4Error

# a parser of a package of its own that extracts a struct (the language's extract<T> takes any T)
STRUCT_EXTRACT = """
#include <core.p4>
struct pair_t { bit<8> a; bit<8> b; }
struct all_t { pair_t p; }
parser Prs(packet_in pk, out all_t x) {
    state start { pk.extract(x.p); transition accept; }
}
parser proto(packet_in pk, out all_t x);
package top(proto p);
top(Prs()) main;
"""


def test_extract_of_a_struct_passes_the_front_end():
    checked = load(STRUCT_EXTRACT)
    assert checked.target_refusals  # kept for a v1model target, which reads headers only


def test_extract_of_a_struct_is_still_refused_for_v1model():
    src = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct m_t { bit<8> x; }
struct hs_t { h_t h; }
parser P(packet_in pk, out hs_t hd, inout m_t m, inout standard_metadata_t sm) {
    state start { pk.extract(m); transition accept; }
}
control V(inout hs_t hd, inout m_t m) { apply {} }
control I(inout hs_t hd, inout m_t m, inout standard_metadata_t sm) { apply {} }
control E(inout hs_t hd, inout m_t m, inout standard_metadata_t sm) { apply {} }
control C(inout hs_t hd, inout m_t m) { apply {} }
control D(packet_out pk, in hs_t hd) { apply { pk.emit(hd); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    with pytest.raises(P4Error, match="extract: the argument must be a header, not m_t") as exc:
        load(src)
    assert exc.value.loc is not None and exc.value.loc.line == 8
