// bool operators and comparisons
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> and_;
    bit<8> or_;
    bit<8> not_;
    bit<8> ne;
    bit<8> le;
    bit<8> ge;
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
        bool x = hdr.h.a > 10;
        bool y = hdr.h.b == 3;
        hdr.h.and_ = (bit<8>)(bit<1>)(x && y);
        hdr.h.or_ = (bit<8>)(bit<1>)(x || y);
        hdr.h.not_ = (bit<8>)(bit<1>)(!x);
        hdr.h.ne = (bit<8>)(bit<1>)(x != y);
        hdr.h.le = (hdr.h.a <= hdr.h.b) ? 8w1 : 8w0;
        hdr.h.ge = (hdr.h.a >= hdr.h.b) ? 8w1 : 8w0;
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
