// struct initializers by name and by position; a list assigned to a header makes it valid
#include <core.p4>
#include <v1model.p4>

struct pair_t {
    bit<8> x;
    bit<16> y;
}

header h_t {
    bit<8> a;
    bit<16> b;
    bit<8> c;
}

header t_t {
    bit<8> u;
    bit<8> v;
}

struct headers_t {
    h_t h;
    t_t t;
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
        pair_t p = { x = hdr.h.a, y = 16w0x0102 };
        pair_t q = { 8w9, hdr.h.b };
        hdr.h.a = q.x + p.x;
        hdr.h.b = p.y + q.y;
        hdr.t = { 8w0xCA, 8w0xFE };
        hdr.h.c = hdr.t.isValid() ? 8w1 : 8w0;
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
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
