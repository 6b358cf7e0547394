// a generic function used at two types
#include <core.p4>
#include <v1model.p4>

T choose<T>(in bool c, in T x, in T y) {
    return c ? x : y;
}

header h_t {
    bit<8> a;
    bit<8> b;
    bit<16> c;
    bit<16> d;
    bit<8> m8;
    bit<16> m16;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.m8 = choose(hdr.h.a > hdr.h.b, hdr.h.a, hdr.h.b);
        hdr.h.m16 = choose(hdr.h.c > hdr.h.d, hdr.h.c, hdr.h.d);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
