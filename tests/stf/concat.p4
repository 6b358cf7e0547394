// ++ concatenation
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<4> p;
    bit<4> q;
    bit<8> r;
    bit<8> s;
    bit<16> rs;
    bit<8> qp;
    bit<24> all;
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
        hdr.h.rs = hdr.h.r ++ hdr.h.s;
        hdr.h.qp = hdr.h.q ++ hdr.h.p;
        hdr.h.all = hdr.h.p ++ hdr.h.q ++ hdr.h.r ++ 8w0x5A;
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
