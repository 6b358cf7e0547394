// arguments are evaluated left to right
#include <core.p4>
#include <v1model.p4>

bit<8> next_val(inout bit<8> c) {
    c = c + 1;
    return c;
}

void two(in bit<8> p, in bit<8> q, out bit<8> r, out bit<8> s) {
    r = p;
    s = q;
}

header h_t {
    bit<8> a;
    bit<8> x;
    bit<8> y;
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
        two(next_val(hdr.h.a), next_val(hdr.h.a), hdr.h.x, hdr.h.y);
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
