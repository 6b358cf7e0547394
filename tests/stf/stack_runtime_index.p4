// a header stack indexed by a run-time value (read and write)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> idx;
    bit<8> got;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    item_t[3] items;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.got = hdr.items[hdr.h.idx].v;
        hdr.items[hdr.h.idx].v = 0xEE;
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
