// switch on an enum value
#include <core.p4>
#include <v1model.p4>

enum Kind_t { One, Two, Other }

header h_t {
    bit<8> k;
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
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Kind_t kind = Kind_t.Other;
        if (hdr.h.k == 1) {
            kind = Kind_t.One;
        } else if (hdr.h.k == 2) {
            kind = Kind_t.Two;
        }
        switch (kind) {
            Kind_t.One: {
                hdr.h.r = 0x11;
            }
            Kind_t.Two: {
                hdr.h.r = 0x22;
            }
            default: {
                hdr.h.r = 0xFF;
            }
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
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
