// == and != on structs and headers (field-wise, headers also by validity)
#include <core.p4>
#include <v1model.p4>

struct pair_t {
    bit<8> x;
    bit<8> y;
}

header a_t {
    bit<8> x;
    bit<8> y;
}
header r_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    a_t b;
    r_t r;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        pkt.extract(hdr.b);
        pkt.extract(hdr.r);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        pair_t p = { hdr.a.x, hdr.a.y };
        pair_t q = { 8w1, 8w2 };
        if (p == q) {
            hdr.r.v = 1;
        } else {
            hdr.r.v = 0;
        }
        if (hdr.a == hdr.b) {
            hdr.r.v = hdr.r.v | 0x10;
        }
        if (hdr.a != hdr.b) {
            hdr.r.v = hdr.r.v | 0x20;
        }
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
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.r);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
