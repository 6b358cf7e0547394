// hostile: a function that calls itself: was accepted, and a packet through it ended in
// an internal RecursionError
// expect-exit: 2
// expect-message: recursive call: f calls itself
// expect-message: {case}:11:29: error:
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
bit<8> f(bit<8> x) { return f(x); }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    
    apply { hdr.h.a = f(hdr.h.b); }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
