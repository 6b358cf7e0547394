// header stack elements by constant index; size
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> n;
    bit<8> sum;
}

header item_t {
    bit<8> more;
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
        pkt.extract(hdr.items[0]);
        pkt.extract(hdr.items[1]);
        pkt.extract(hdr.items[2]);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.sum = hdr.items[0].v + hdr.items[1].v + hdr.items[2].v;
        hdr.items[1].v = 0x55;
        hdr.h.n = (bit<8>)hdr.items.size;
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
