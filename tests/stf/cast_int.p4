// Casts to and from int (arbitrary precision) on compile-time values: (int) of bit<W> and int<W> constants
// (int<W> keeps its sign), arithmetic on int without wrapping, and casts back to bit<W> / int<W> that wrap.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> b; int<8> s; bit<32> c; }
struct headers { h_t h; }
struct metadata { }

const int BIG = (int)8w200 * 1000;       // 200000: no bit<8> wrap once it is an int
const int NEG = (int)(-8s3);             // -3
const bit<16> SUM = (bit<16>)(BIG + NEG); // 199997 mod 65536 = 3389 = 0x0d3d

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = hdr.h.a + (bit<8>)((int)(-8s1));        // + 255
        hdr.h.b = SUM;
        hdr.h.s = (int<8>)((int)8s127 + 1);               // -128
        hdr.h.c = (bit<32>)BIG + hdr.h.c;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
