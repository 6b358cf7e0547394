// Externs called with an empty data list `{}`: hash over no bytes (crc32 and identity give 0, csum16 gives
// 0xffff, the ones' complement of an empty sum), and update_checksum / verify_checksum over {}.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> a; bit<16> b; bit<16> c; bit<16> d; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) {
    apply { verify_checksum(true, {}, hdr.h.d, HashAlgorithm.csum16); }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        hash(hdr.h.a, HashAlgorithm.crc32, 16w7, {}, 32w1000);      // 7 + 0
        hash(hdr.h.b, HashAlgorithm.identity, 16w9, {}, 32w1000);   // 9 + 0
        hash(hdr.h.c, HashAlgorithm.csum16, 16w1, {}, 32w100);      // 1 + 0xffff % 100 = 1 + 35
        // a failed verify_checksum sets checksum_error: 0xffff was expected in d
        if (sm.checksum_error == 1) { hdr.h.d = 16w0xee; }
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
