// return leaves only the sub-control; exit ends ingress (egress still runs, egress_spec stays 0)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> e;
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

control Early(inout h_t h) {
    apply {
        h.b = 0x40;
        return;
        h.b = 0x50;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Early() early;
    apply {
        hdr.h.b = 1;
        if (hdr.h.a == 1) {
            early.apply(hdr.h);
        }
        if (hdr.h.a == 2) {
            hdr.h.b = 2;
            exit;
        }
        hdr.h.b = hdr.h.b + 0x10;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.e = 0xE0;
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
