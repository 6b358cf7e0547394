// const entries with explicit priorities: the largest priority wins regardless of order
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> tag;
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
    action fwd(bit<9> port, bit<8> tag) {
        sm.egress_spec = port;
        hdr.h.tag = tag;
    }
    action drop() {
        mark_to_drop(sm);
    }
    table t {
        key = {
            hdr.h.a : ternary;
        }
        actions = {
            fwd;
            drop;
        }
        const entries = {
            priority = 10 : 0x10 &&& 0xF0 : fwd(1, 1);
            priority = 20 : 0x11 : fwd(2, 2);
            priority = 5 : _ : fwd(3, 3);
        }
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
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
