// a parser value_set filled from the control plane (value and value&&&mask members), checked first
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> etype;
    bit<8> r;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    value_set<bit<16>>(4) pvs;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.etype) {
            pvs: in_set;
            0x0800: ipv4;
            default: accept;
        }
    }
    state in_set {
        hdr.h.r = 1;
        transition accept;
    }
    state ipv4 {
        hdr.h.r = 4;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
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
