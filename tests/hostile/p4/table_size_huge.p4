// hostile: a table size of 10^26: a protobuf traceback writing the P4Info (an int64)
// expect-exit: 2
// expect-message: table size 100000000000000000000000000 is too large
// expect-message: {case}:14:54: error:
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    action a() { } table t { actions = { a; } size = 100000000000000000000000000; }
    apply { t.apply(); }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
