// hostile: a value_set of 10^20 elements: a protobuf traceback writing the P4Info (an
// int32)
// expect-exit: 2
// expect-message: value_set size 100000000000000000000 is out of range
// expect-message: {case}:12:23: error:
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    value_set<bit<8>>(100000000000000000000) vs;
    state start { pk.extract(hdr.h); transition select(hdr.h.a) { vs: accept; default: accept; } }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    
    apply {  }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
