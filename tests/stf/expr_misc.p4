// expression odds and ends: named struct initializers, tuples and indexing, overloaded and generic functions
// with explicit type arguments, switch on a plain enum, isValid cast through bit<1>, minSizeInBytes /
// maxSizeInBits, an action parameter default value, unary minus and ~ on unsigned, an @atomic block, signed
// multiply wrapping, varbit header copies, log_msg with a tuple, assert
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; int<8> s; bit<8> r1; bit<8> r2; bit<16> r3; bit<32> r4; }
header v_t { bit<8> len; varbit<64> data; }
struct pair_t { bit<8> x; bit<16> y; }
struct headers_t { h_t h; v_t v; v_t v2; }
struct meta_t { pair_t p; }
enum Op { ADD, SUB, XOR }

bit<8> pick(in bit<8> a) { return a; }
bit<8> pick(in bit<8> a, in bit<8> b) { return a ^ b; }
T first<T>(in T a, in T b) { return a; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.v, (bit<32>)pkt.lookahead<bit<8>>() * 8);
        transition accept;
    }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action with_default(bit<8> v, bit<8> w = 0x42) { hdr.h.r2 = v + w; }
    apply {
        sm.egress_spec = 1;
        meta.p = { x = hdr.h.a, y = hdr.h.c };
        pair_t q = { hdr.h.b, 16w7 };
        tuple<bit<8>, bit<16>> t = { 8w3, 16w500 };
        hdr.h.r1 = meta.p.x + q.x + t[0];
        hdr.h.r3 = meta.p.y + q.y + t[1];
        Op op = hdr.h.a[0:0] == 1 ? Op.ADD : Op.XOR;
        switch (op) {
            Op.ADD: { hdr.h.r4 = 32w1; }
            Op.SUB: { hdr.h.r4 = 32w2; }
            default: { hdr.h.r4 = 32w3; }
        }
        hdr.h.r4 = hdr.h.r4 + (bit<32>)(bit<1>)hdr.h.isValid() + ((bit<32>)hdr.h.minSizeInBytes() << 8)
                   + ((bit<32>)hdr.h.maxSizeInBits() << 16);
        with_default(pick(hdr.h.a), pick(1, 2));
        @atomic {
            hdr.h.c = first<bit<16>>(hdr.h.c, 0) + (bit<16>)(-hdr.h.a) + (bit<16>)(~hdr.h.b);
        }
        hdr.h.s = (int<8>)(hdr.h.s < -3 ? -1 : 1) * hdr.h.s;
        hdr.v2 = hdr.v;
        hdr.v2.len = hdr.v2.len + 0x10;
        log_msg("a={} b={}", { hdr.h.a, hdr.h.b });
        assert(hdr.h.isValid());
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
