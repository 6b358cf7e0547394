// A header stack of a specialized generic header (H<bit<8>>[2]), a generic header whose type argument is a
// struct, and constants of generic struct and header types.
#include <core.p4>
#include <v1model.p4>

header H<T> { T v; }
struct Pair<T> { T x; T y; }
struct SX { bit<8> p; bit<8> q; }
const Pair<bit<8>> K = { x = 2, y = 3 };
const H<bit<8>> ONE = { v = 1 };

struct headers { H<bit<8>>[2] st; H<SX> s; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.st.next); pk.extract(hdr.st.next); pk.extract(hdr.s); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        hdr.st[0].v = hdr.st[0].v + K.x;
        hdr.st[1].v = hdr.st[1].v * K.y + ONE.v;
        hdr.s.v.p = hdr.s.v.q;
        Pair<bit<8>> k = K;          // a whole struct constant
        H<bit<8>> one = ONE;         // a whole header constant: valid, v = 1
        if (one.isValid()) { hdr.s.v.q = k.y + one.v; }
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
