// 64-bit arithmetic wraps; a rotate built from shifts
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<64> x;
    bit<64> y;
    bit<64> s;
    bit<64> p;
    bit<64> d;
    bit<64> rot;
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
        hdr.h.d = hdr.h.x - hdr.h.y;
        hdr.h.rot = (hdr.h.x << 4) | (hdr.h.x >> 60);
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
