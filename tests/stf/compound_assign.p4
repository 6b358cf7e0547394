// Compound assignments (P4-16 1.2.5): += -= *= &= |= ^= <<= >>= on bit<8>, saturating |+|= on bit<8> and |-|= on
// int<8>, one on a header stack element, and i += 1 as the update of a for loop.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; int<8> s; bit<8> c; }
struct headers { h_t[2] h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h.next); pk.extract(hdr.h.next); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        bit<8> x = hdr.h[0].a;
        x += 3; x -= 1; x *= 2; x &= 0xfe; x |= 0x10; x ^= 0x01; x <<= 1; x >>= 2;
        hdr.h[0].a = x;
        hdr.h[0].b |+|= 0xf0;
        hdr.h[0].s |-|= 100;
        hdr.h[1].a += hdr.h[1].a;
        for (bit<8> i = 0; i < 4; i += 1) { hdr.h[1].b += 1; }
        hdr.h[1].c -= 2;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
