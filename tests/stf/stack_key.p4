// table keys on header stack elements, named in STF with p4c's `items$0.v` spelling or `items[1].v`; a hex ternary value masks only the bits its digits spell
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> tag;
}

header item_t {
    bit<16> v;
}

struct headers_t {
    h_t h;
    item_t[2] items;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.items[0]);
        pkt.extract(hdr.items[1]);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<8> tag) {
        sm.egress_spec = port;
        hdr.h.tag = tag;
    }
    table t {
        key = {
            hdr.items[0].v : exact;
            hdr.items[1].v : ternary;
        }
        actions = {
            fwd;
        }
        default_action = fwd(9, 0);
    }
    apply {
        t.apply();
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
