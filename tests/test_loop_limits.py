"""Loops that do not end (docs/p4.md, "Loops that do not end"): a block run may make LOOP_PASS_LIMIT loop passes in
all, after which the packet is abandoned with a message naming the loop, and one parse may run PARSER_STATE_LIMIT
states, its sub-parsers' included, after which parsing ends with error.ParserTimeout. simple_switch has neither
limit and would spin on these packets for ever."""
from __future__ import annotations

import contextlib
import signal

import pytest
from codegen_util import load

from emulator.target.codegen import LOOP_PASS_LIMIT, PARSER_STATE_LIMIT
from emulator.target.switch import V1Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> n; bit<32> sum; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action up_to_n() {
        for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) { hdr.h.sum = hdr.h.sum + (bit<32>)i; }
    }
    action n_squared() {
        for (bit<8> i = 0; i < hdr.h.n; i = i + 1) {
            for (bit<8> j = 0; j < hdr.h.n; j = j + 1) { hdr.h.sum = hdr.h.sum + 1; }
        }
    }
    action range_to_sum() {
        bit<32> last = hdr.h.sum;
        hdr.h.sum = 0;
        for (bit<32> k in 1 .. last) { hdr.h.sum = hdr.h.sum + 1; }
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) { up_to_n(); }
        else if (hdr.h.op == 2) { n_squared(); }
        else if (hdr.h.op == 3) { range_to_sum(); }
        else if (hdr.h.op == 4) { range_to_sum(); }  // egress runs a loop as long again
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.op == 4) {
            for (bit<32> k = 0; k < hdr.h.sum; k = k + 1) { hdr.h.n = hdr.h.n + 1; }
        }
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


@pytest.fixture(autouse=True)
def never_hang():
    """Without the limits these packets would spin for ever: a generous deadline turns that into a failure."""
    def expired(signum, frame):
        raise AssertionError("a packet still ran after 120 s: a loop did not end")

    if not hasattr(signal, "setitimer"):
        yield
        return
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, 120)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGALRM, old)


def _packet(op: int, n: int, total: int = 0) -> bytes:
    return bytes([op, n]) + total.to_bytes(4, "big")


def _sum(frames) -> int:
    assert len(frames) == 1, frames
    return int.from_bytes(frames[0][1][2:6], "big")


def test_a_loop_that_ends_runs_and_one_that_does_not_abandons_only_its_packet():
    sw = V1Switch(load(PROGRAM))
    assert _sum(sw.process(0, _packet(1, 10))) == 55
    # bit<8> i <= 255 is always true: simple_switch would spin on this packet for ever
    assert sw.process(3, _packet(1, 255)) == []
    assert len(sw.fatal_errors) == 1
    msg = sw.fatal_errors[0]
    assert msg.startswith("for loop at <test>:13: more than 1,000,000 loop passes"), msg
    # what rocelab does (the packet is dropped, by its own budget), not an assert's "simple_switch stops here"
    assert msg.endswith("1,000,000 loop passes in one run of the block, rocelab's budget (a loop that does not "
                        "end?): packet dropped (ingress, packet from port 3)"), msg
    assert sw.faults[0].reference == "simple_switch has no loop budget and would never finish the packet"
    # the next packet has the whole budget again
    assert _sum(sw.process(0, _packet(1, 254))) == 254 * 255 // 2
    assert len(sw.fatal_errors) == 1


def test_nested_loops_of_255_by_255_passes_end():
    sw = V1Switch(load(PROGRAM))
    assert _sum(sw.process(0, _packet(2, 255))) == 255 * 255
    assert sw.fatal_errors == []


def test_a_range_loop_counts_its_passes_too():
    sw = V1Switch(load(PROGRAM))
    assert _sum(sw.process(0, _packet(3, 0, 1000))) == 1000
    assert sw.process(0, _packet(3, 0, 0xFFFFFFFF)) == []  # 4 G passes
    assert "more than 1,000,000 loop passes" in sw.fatal_errors[0]


def test_the_budget_is_per_block_run():
    """Ingress and egress each make 60 % of the limit: each block run has its own budget."""
    sw = V1Switch(load(PROGRAM))
    n = LOOP_PASS_LIMIT * 6 // 10
    out = sw.process(0, _packet(4, 0, n))
    assert sw.fatal_errors == []
    assert _sum(out) == n and out[0][1][1] == n & 0xFF


PARSER = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> spin; bit<8> sub_spin; bit<32> runs; }
struct headers_t { h_t h; }
struct meta_t { bit<32> runs; }
parser Counted(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    bit<16> c = 0;
    // 9,990 state runs, then back to the caller
    state start { c = c + 1; meta.runs = meta.runs + 1; transition select(c) { 9990: accept; default: start; } }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Counted() sub;
    state start { pkt.extract(hdr.h); transition select(hdr.h.spin, hdr.h.sub_spin) {
        (1, 0): itself; (0, 1): outer; default: accept; } }
    state itself { meta.runs = meta.runs + 1; transition itself; }  // nothing extracted, no way out
    state outer { sub.apply(pkt, hdr, meta); transition outer; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.runs = meta.runs;
        if (sm.parser_error == error.ParserTimeout) { hdr.h.spin = 0xEE; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _parse(sw, spin: int, sub_spin: int) -> tuple[int, int]:
    out = sw.process(0, bytes([spin, sub_spin]) + bytes(4))
    assert len(out) == 1, out
    frame = out[0][1]
    return frame[0], int.from_bytes(frame[2:6], "big")


def test_a_parser_state_that_loops_on_itself_times_out_and_the_packet_goes_on():
    sw = V1Switch(load(PARSER))
    assert _parse(sw, 0, 0) == (0, 0)
    flag, runs = _parse(sw, 1, 0)
    assert flag == 0xEE and runs == PARSER_STATE_LIMIT - 1  # start, then the state itself until the limit
    assert sw.fatal_errors == []


def test_sub_parsers_share_the_parse_budget():
    """A state that loops applying a sub-parser of 9,990 state runs: without a shared budget, 10,000 x 9,990
    state runs (some 10 s of CPU) before the timeout."""
    sw = V1Switch(load(PARSER))
    flag, runs = _parse(sw, 0, 1)
    assert flag == 0xEE
    assert runs < PARSER_STATE_LIMIT
    assert _parse(sw, 0, 0) == (0, 0)  # the next parse has the whole budget again
