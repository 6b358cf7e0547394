// switch on table.apply().action_run with a default label
#include <core.p4>
#include <v1model.p4>

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
    action a1() {
        hdr.h.r = 0x10;
    }
    action a2(bit<8> v) {
        hdr.h.r = v;
    }
    action a3() {
        hdr.h.r = 0x30;
    }
    table t {
        key = {
            hdr.h.k : exact;
        }
        actions = {
            a1;
            a2;
            a3;
        }
        default_action = a3();
    }
    apply {
        switch (t.apply().action_run) {
            a1: {
                hdr.h.r = hdr.h.r + 1;
            }
            a2: {
                hdr.h.r = hdr.h.r + 2;
            }
            default: {
                hdr.h.r = 0xDD;
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
