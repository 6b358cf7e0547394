// a parser local counting down a loop; metadata written in the parser
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> n;
    bit<8> sum;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    item_t[4] items;
}

struct meta_t {
    bit<8> total;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    bit<8> left;
    state start {
        pkt.extract(hdr.h);
        left = hdr.h.n;
        meta.total = 0;
        transition select(left) {
            0: accept;
            default: item;
        }
    }
    state item {
        pkt.extract(hdr.items.next);
        meta.total = meta.total + hdr.items.last.v;
        left = left - 1;
        transition select(left) {
            0: accept;
            default: item;
        }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.sum = meta.total;
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
        pkt.emit(hdr.items);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
