// Left-to-right evaluation when a later operand calls a function with an inout argument: the operands before
// the call are read before its side effect, in struct and tuple initializers (positional and named), binary
// operators on a local variable, and function and action arguments.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
    bit<8> f;
    bit<8> g;
    bit<8> h;
    bit<8> i;
}

struct headers_t { h_t h; }
struct meta_t { }
struct pair_t {
    bit<8> first;
    bit<8> second;
}

bit<8> bump(inout bit<8> v) {
    v = v + 1;
    return 8w10;
}

bit<8> first_of(in bit<8> x, in bit<8> y) {
    return x;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_g(in bit<8> u, in bit<8> v) {
        hdr.h.g = u;
    }
    apply {
        sm.egress_spec = 1;
        bit<8> x = hdr.h.a;                           // 1
        pair_t p = { x, bump(x) };                    // first 1, then x = 2
        hdr.h.b = p.first;                            // 1
        hdr.h.c = x + bump(x);                        // 2 + 10 = 12, then x = 3
        hdr.h.d = first_of(x, bump(x));               // 3, then x = 4
        pair_t q = { second = bump(x), first = x };   // source order: x = 5 first, then first = 5
        hdr.h.e = q.first;                            // 5
        hdr.h.f = x;                                  // 5
        set_g(x, bump(x));                            // g = 5, then x = 6
        tuple<bit<8>, bit<8>> t = { x, bump(x) };     // 6, then x = 7
        hdr.h.h = t[0];                               // 6
        hdr.h.i = x;                                  // 7
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control U(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), I(), E(), U(), D()) main;
