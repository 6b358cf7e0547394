// constant and variable shifts, shift >= width gives 0, arithmetic >>
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> n;
    bit<8> l3;
    bit<8> r3;
    bit<8> ln;
    bit<8> rn;
    bit<8> asr;
    bit<8> big;
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
        hdr.h.l3 = hdr.h.x << 3;
        hdr.h.r3 = hdr.h.x >> 3;
        hdr.h.ln = hdr.h.x << hdr.h.n;
        hdr.h.rn = hdr.h.x >> hdr.h.n;
        hdr.h.asr = (bit<8>)(((int<8>)hdr.h.x) >> 1);
        hdr.h.big = hdr.h.x << 8;
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
