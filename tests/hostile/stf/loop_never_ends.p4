// Loops that never end: a `for` whose bit<8> counter can never exceed 255 and a parser state that goes back to
// itself without extracting. The first abandons the packet after the block's loop-pass limit (docs/p4.md,
// "Loops that do not end"), the second ends parsing with error.ParserTimeout; neither may hang the switch.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> n; bit<8> spin; bit<16> sum; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition again; }
    state again { transition select(hdr.h.spin) { 1: again; default: accept; } }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (sm.parser_error == error.ParserTimeout) {
            hdr.h.sum = 0xdead;
        } else {
            for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) {
                hdr.h.sum = hdr.h.sum + (bit<16>)i;
            }
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
