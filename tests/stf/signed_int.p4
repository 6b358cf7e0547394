// int<8>: wrap, arithmetic shift, signed compare, sign extension
#include <core.p4>
#include <v1model.p4>

header h_t {
    int<8> a;
    int<8> b;
    int<8> diff;
    int<8> shr;
    bit<8> lt;
    bit<16> ext;
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
        hdr.h.diff = hdr.h.a - hdr.h.b;
        hdr.h.shr = hdr.h.a >> 2;
        hdr.h.lt = (hdr.h.a < hdr.h.b) ? 8w1 : 8w0;
        hdr.h.ext = (bit<16>)(int<16>)hdr.h.a;
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
