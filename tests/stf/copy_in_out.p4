// copy-in/copy-out: aliased arguments are copied back left to right (the last one wins)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
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
    action both(inout bit<8> x, inout bit<8> y) {
        x = 1;
        y = y + 2;
    }
    action keep(inout bit<8> x) {
        bit<8> old = x;
        x = 0;
        x = old + 0x10;
    }
    action swap(inout bit<8> x, inout bit<8> y) {
        bit<8> t = x;
        x = y;
        y = t;
    }
    apply {
        both(hdr.h.a, hdr.h.a);
        keep(hdr.h.b);
        swap(hdr.h.b, hdr.h.c);
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
