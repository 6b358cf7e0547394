"""`lookahead<S>()` of a struct (P4-16 12.8.3: any fixed-width type; p4c's issue2465-bmv2 looks ahead at a struct
holding a header stack and selects on its elements): the struct's fields are read, in order, from the next bits,
without consuming them. It produced an integer, so the first access to a field crashed the switch."""
from __future__ import annotations

from codegen_util import run_parser

TOP = """
struct pair_t { bit<4> hi; int<4> lo; bool b; bit<7> rest; }
struct with_hdr_t { item_t first; bit<8> after; }
struct with_stack_t { item_t[3] s; }
"""


def test_struct_of_scalars_signed_and_bool_fields():
    start = """
        pair_t p = pkt.lookahead<pair_t>();
        meta.la = (bit<8>)p.hi;
        meta.seen = (bit<8>)(int<8>)p.lo;
        pkt.extract(h.data);
        transition select(p.b) { true: accept; false: reject; }
    """
    # 0x3E = hi 3, lo 0xE (-2); 0x81: b = 1, rest = 1; the extract after it reads the same bytes
    frame, _ = run_parser(start, "", bytes([0x3E, 0x81, 0, 0, 0, 0, 0, 0]), top=TOP,
                          ibody="h.data.c = meta.la ++ meta.seen;")
    assert frame[0:2] == bytes([0x3E, 0x81])
    assert frame[2:4] == bytes([3, 0xFE])


def test_struct_with_a_header_and_a_stack_selects_on_their_fields():
    start = """
        with_stack_t l = pkt.lookahead<with_stack_t>();
        with_hdr_t w = pkt.lookahead<with_hdr_t>();
        meta.la = w.after;
        meta.seen = (bit<8>)(bit<1>)w.first.isValid();
        transition select(l.s[0].v, l.s[1].v, l.s[2].v) {
            (1, _, _): one;
            (0, 1, _): two;
            default: other;
        }
    """
    states = """
        state one { meta.seen = meta.seen + 10; pkt.extract(h.data); transition accept; }
        state two { meta.seen = meta.seen + 20; pkt.extract(h.data); transition accept; }
        state other { meta.seen = meta.seen + 30; pkt.extract(h.data); transition accept; }
    """
    ibody = "h.data.c = meta.la ++ meta.seen;"
    for first, want in ((b"\x01\x09", 11), (b"\x00\x01", 21), (b"\x00\x00", 31)):
        frame, _ = run_parser(start, states, first + bytes(6), top=TOP, ibody=ibody)
        assert frame[2:4] == bytes([first[1], want])
