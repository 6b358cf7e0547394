// select on a tuple with masks, ranges, _ and default; first matching case wins
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> j;
    bit<8> r;
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
        transition select(hdr.h.k, hdr.h.j) {
            (0x10 &&& 0xF0, _): s_mask;
            (1..9, 0): s_range0;
            (1..9, _): s_range;
            (0xFF, 0xFF): s_exact;
            default: s_default;
        }
    }
    state s_mask {
        hdr.h.r = 1;
        transition accept;
    }
    state s_range0 {
        hdr.h.r = 2;
        transition accept;
    }
    state s_range {
        hdr.h.r = 3;
        transition accept;
    }
    state s_exact {
        hdr.h.r = 4;
        transition accept;
    }
    state s_default {
        hdr.h.r = 5;
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
