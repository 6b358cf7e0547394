// hostile: an untyped constant inside the list a checksum covers (a Python TypeError in code generation once)
// expect-exit: 2
// expect-message: {case}:20:36: error: could not infer a width for T of update_checksum
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) {
    apply {
        update_checksum(hdr.h.isValid(),
                        // the 0 below has no width
                        { hdr.h.a, 0, hdr.h.b }, hdr.h.c, HashAlgorithm.csum16);
    }
}
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
