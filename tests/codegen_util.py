"""Helpers for the code generation tests: small P4 programs built from templates and run through
V1Switch.process."""
from __future__ import annotations

from emulator.target.switch import V1Switch


def load(src: str):
    from emulator.p4.frontend import load_program_text

    return load_program_text(src, "<test>")


PRELUDE = """
#include <core.p4>
#include <v1model.p4>
header data_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }
header extra_t { bit<8> x; }
struct headers { data_t data; extra_t extra; }
"""


TEMPLATE = PRELUDE + """
struct meta_t { bit<8> m8; bit<16> m16; bool flag; }
$TOP
parser P(packet_in pkt, out headers h, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(h.data); transition accept; }
}
control VC(inout headers h, inout meta_t meta) { apply {} }
control I(inout headers h, inout meta_t meta, inout standard_metadata_t sm) {
    $DECLS
    apply {
        sm.egress_spec = 1;
        $BODY
    }
}
control E(inout headers h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.data); pkt.emit(h.extra); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program(body: str = "", decls: str = "", toplevel: str = "") -> str:
    return TEMPLATE.replace("$TOP", toplevel).replace("$DECLS", decls).replace("$BODY", body)


def run_ingress(body: str, data=(1, 2, 3, 4), decls: str = "", toplevel: str = "", payload: bytes = b"") -> dict:
    """Run `body` in ingress on a data_t header (a, b, c, d) and return the fields of the packet out."""
    sw = V1Switch(load(program(body, decls, toplevel)))
    a, b, c, d = data
    pkt = bytes([a, b]) + c.to_bytes(2, "big") + d.to_bytes(4, "big") + payload
    out = sw.process(0, pkt)
    assert len(out) == 1, out
    port, frame = out[0]
    return {"port": port, "a": frame[0], "b": frame[1], "c": int.from_bytes(frame[2:4], "big"),
            "d": int.from_bytes(frame[4:8], "big"), "rest": frame[8:]}


PARSER_PROG = PRELUDE + """
header len_t { bit<8> n; }
header item_t { bit<8> v; }
header opt_t { bit<8> kind; bit<8> len; varbit<32> data; }
struct headers2 { data_t data; len_t l; item_t[3] items; opt_t opt; extra_t tail; }
struct meta_t { bit<8> seen; bit<8> la; }
error { MyError }
$TOP
parser P(packet_in pkt, out headers2 h, inout meta_t meta, inout standard_metadata_t sm) {
    $PLOCALS
    state start {
        $START
    }
    $STATES
}
control VC(inout headers2 h, inout meta_t meta) { apply {} }
control I(inout headers2 h, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        h.tail.setValid();
        if (sm.parser_error == error.PacketTooShort) { h.tail.x = 1; }
        else if (sm.parser_error == error.NoMatch) { h.tail.x = 2; }
        else if (sm.parser_error == error.StackOutOfBounds) { h.tail.x = 3; }
        else if (sm.parser_error == error.HeaderTooShort) { h.tail.x = 4; }
        else if (sm.parser_error == error.MyError) { h.tail.x = 0x77; }
        else if (sm.parser_error != error.NoError) { h.tail.x = 0xFF; }
        $IBODY
    }
}
control E(inout headers2 h, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers2 h, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers2 h) {
    apply { pkt.emit(h.data); pkt.emit(h.l); pkt.emit(h.items); pkt.emit(h.opt); pkt.emit(h.tail); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def run_parser(start: str, states: str, pkt: bytes, plocals: str = "", ibody: str = "", top: str = ""):
    src = (PARSER_PROG.replace("$START", start).replace("$STATES", states).replace("$PLOCALS", plocals)
           .replace("$IBODY", ibody).replace("$TOP", top))
    sw = V1Switch(load(src))
    out = sw.process(0, pkt)
    assert len(out) == 1
    frame = out[0][1]
    return frame, sw

