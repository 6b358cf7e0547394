"""Run-time header stack indexes out of range (docs/p4.md, "Run-time stack indexes out of range"): P4-16 leaves a
read undefined and a write must change no defined state; rocelab reads 0 (a fresh invalid header), loses the
write and goes on; in a parser the access is error.StackOutOfBounds. A signed index below 0 is out of range, never
counted from the end nor wrapped to its bit pattern."""
from __future__ import annotations

from codegen_util import load

from emulator.target.switch import V1Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header i_t { int<8> idx; bit<8> read; bit<8> perr; }
header e_t { bit<8> e; }
struct headers_t { i_t i; e_t[200] s; e_t[2] q; e_t[2] p; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.i); transition select(hdr.i.perr) { 1: in_parser; default: accept; } }
    state in_parser { pkt.extract(hdr.p[hdr.i.idx]); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) { hdr.i.perr = 0xEE; }
        hdr.s[199].setValid();
        hdr.s[199].e = 7;
        hdr.s[156].setValid();
        hdr.s[156].e = 5;
        hdr.q[1].setValid();
        hdr.q[1].e = 3;
        hdr.i.read = hdr.s[hdr.i.idx].e + hdr.q[hdr.i.idx].e;    // out of range: 0 each
        hdr.s[hdr.i.idx].setValid();                             // out of range: lost
        hdr.s[hdr.i.idx].e = 9;
        hdr.q[hdr.i.idx].setValid();
        hdr.q[hdr.i.idx].e = 4;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.i); pkt.emit(hdr.s); pkt.emit(hdr.q); pkt.emit(hdr.p); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _run(idx: int, perr: int = 0, rest: bytes = b"") -> bytes:
    out = V1Switch(load(PROGRAM)).process(0, bytes([idx & 0xFF, 0, perr]) + rest)
    assert len(out) == 1, out
    return out[0][1]


def test_in_range_reads_and_writes_the_element():
    # read s[1] (invalid, never written: 0) + q[1] (3); then s[1] and q[1] written: s[1], s[156], s[199], q[1]
    assert _run(1) == bytes([1, 3, 0, 9, 5, 7, 4])


def test_negative_index_is_out_of_range_not_from_the_end_nor_its_bit_pattern():
    # -1 would be s[199] (or q[1]) counted from the end; -100 is 156 as an 8-bit pattern: none is touched
    for idx in (-1, -100, -128):
        assert _run(idx) == bytes([idx & 0xFF, 0, 0, 5, 7, 3]), idx


def test_index_past_the_end_reads_zero_and_the_write_is_lost():
    assert _run(2) == bytes([2, 0, 0, 9, 5, 7, 3])  # in range of s (written), past the end of q[2]


def test_in_a_parser_an_index_out_of_range_is_stack_out_of_bounds():
    assert _run(1, perr=1, rest=b"\x33") == bytes([1, 3, 1, 9, 5, 7, 4, 0x33])  # p[1] extracted
    assert _run(-1, perr=1, rest=b"\x33")[:3] == bytes([0xFF, 0, 0xEE])
    assert _run(2, perr=1, rest=b"\x33")[:3] == bytes([2, 0, 0xEE])
