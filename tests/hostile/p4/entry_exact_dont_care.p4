// hostile: '_' for an exact key in a const entry: refused when the switch installed it,
// without a location and with exit status 1
// expect-exit: 2
// expect-message: an exact match key cannot be '_' in a table entry
// expect-message: {case}:15:91: error:
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    action a() { } table t { key = { hdr.h.a: exact; } actions = { a; } const entries = { _: a(); } }
    apply { t.apply(); }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
