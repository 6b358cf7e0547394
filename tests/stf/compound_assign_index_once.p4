// A compound assignment evaluates its left side once: the index of h[next_i(c.i)] += 0x10 is computed by one call
// (c.i goes 1 -> 2, only h[1] changes).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
header c_t { bit<8> i; }
struct headers { c_t c; h_t[3] h; }
struct metadata { }
bit<8> next_i(inout bit<8> i) { bit<8> old = i; i = i + 1; return old; }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.c); pk.extract(hdr.h.next); pk.extract(hdr.h.next); pk.extract(hdr.h.next); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        hdr.h[next_i(hdr.c.i)].a += 0x10;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
