// header stack push_front/pop_front: shifted elements, new ones invalid, emit skips invalid
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> n;
    bit<8> op;
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
        transition select(hdr.h.n) {
            0: accept;
            default: parse_item;
        }
    }
    state parse_item {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.more) {
            1: parse_item;
            default: accept;
        }
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.op == 1) {
            hdr.items.push_front(1);
            hdr.items[0].setValid();
            hdr.items[0].more = 1;
            hdr.items[0].v = 0xAA;
        } else if (hdr.h.op == 2) {
            hdr.items.pop_front(1);
        } else if (hdr.h.op == 3) {
            hdr.items.push_front(2);
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
        pkt.emit(hdr.items);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
