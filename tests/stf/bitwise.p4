// & | ^ ~
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> a;
    bit<16> c;
    bit<16> and_;
    bit<16> or_;
    bit<16> xor_;
    bit<16> inv;
    bit<8> inv8;
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
        hdr.h.and_ = hdr.h.a & hdr.h.c;
        hdr.h.or_ = hdr.h.a | hdr.h.c;
        hdr.h.xor_ = hdr.h.a ^ hdr.h.c;
        hdr.h.inv = ~hdr.h.a;
        hdr.h.inv8 = ~hdr.h.a[7:0];
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
