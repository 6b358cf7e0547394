// Generic headers and structs (P4-16 7.2.12): header H<T>, struct S<T, U>, a typedef of a specialization, and
// local variables of specialized generic struct types initialized by struct expressions.
#include <core.p4>
#include <v1model.p4>
header H<T> { T f; bit<8> g; }
struct S<T, U> { T a; U b; }
struct Pair<T> { T x; T y; }
typedef H<bit<16>> H16;
struct headers { H<bit<8>> h8; H16 h16; }
struct metadata { S<bit<8>, bool> s; }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h8); pk.extract(hdr.h16); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        Pair<bit<16>> p = { x = hdr.h16.f, y = 16w1 };
        m.s.a = hdr.h8.f;
        m.s.b = hdr.h8.g == 0;
        hdr.h16.f = p.x + p.y;
        if (m.s.b) { hdr.h8.f = m.s.a + 1; }
        S<bit<8>, bit<8>> q = { a = 1, b = 2 };
        hdr.h8.g = q.a + q.b;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
