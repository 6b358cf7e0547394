// functions with early return and out parameters
#include <core.p4>
#include <v1model.p4>

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

void popcount4(in bit<4> v, out bit<8> n) {
    n = (bit<8>)v[0:0] + (bit<8>)v[1:1] + (bit<8>)v[2:2] + (bit<8>)v[3:3];
    return;
}

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> mx;
    bit<8> cnt;
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
        hdr.h.mx = max8(hdr.h.a, hdr.h.b);
        bit<8> c;
        popcount4(hdr.h.a[3:0], c);
        hdr.h.cnt = c;
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
