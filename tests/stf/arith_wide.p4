// 32- and 48-bit arithmetic wraps
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<32> x;
    bit<32> y;
    bit<32> s;
    bit<32> p;
    bit<48> d;
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
        hdr.h.s = hdr.h.x + hdr.h.y;
        hdr.h.p = hdr.h.x * hdr.h.y;
        hdr.h.d = (bit<48>)hdr.h.x - (bit<48>)hdr.h.y;
        sm.egress_spec = 2;
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
