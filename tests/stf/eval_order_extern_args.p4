// Left-to-right evaluation of extern arguments around a call with an inout argument: a register index and a
// hash field list are read before a later argument's side effect (as p4c orders side effects).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<16> d; bit<8> e; }
struct headers_t { h_t h; }
struct meta_t { }
bit<8> bump(inout bit<8> v) { v = v + 1; return 8w10; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(32) r;
    apply {
        sm.egress_spec = 1;
        bit<8> x = hdr.h.a;              // 1
        r.write((bit<32>)x, bump(x));     // index 1 <- 10, x = 2
        r.read(hdr.h.b, 1);               // 10
        hash(hdr.h.d, HashAlgorithm.identity, 16w0, { x, bump(x) }, 32w65536);  // {2, 10} -> 0x020A, x = 3
        hdr.h.c = x;                      // 3
        hdr.h.e = (x == 3 ? x : 8w0) + bump(x);   // 3 + 10 = 13, x = 4
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control U(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), U(), D()) main;
