// bit slices as r-values and l-values
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> x;
    bit<8> hi;
    bit<8> lo;
    bit<16> y;
    bit<8> mid;
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
        hdr.h.hi = (bit<8>)hdr.h.x[15:12];
        hdr.h.lo = hdr.h.x[7:0];
        hdr.h.y = hdr.h.x;
        hdr.h.y[3:0] = 4w0xA;
        hdr.h.mid = hdr.h.x[11:4];
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
