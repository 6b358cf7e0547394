// emit of a whole struct emits its valid headers in field order, recursing into nested structs
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> v;
}
header b_t {
    bit<16> v;
}
struct l3_t {
    b_t b;
    a_t c;
}

struct headers_t {
    a_t a;
    l3_t l3;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        pkt.extract(hdr.l3.b);
        transition select(hdr.a.v) {
            1: pc;
            default: accept;
        }
    }
    state pc {
        pkt.extract(hdr.l3.c);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.l3.b.v = hdr.l3.b.v + 1;
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
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
