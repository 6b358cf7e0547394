// an if statement inside an action run from a table
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> a;
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
    action clamp(bit<8> limit) {
        if (hdr.h.a > limit) {
            hdr.h.a = limit;
        } else {
            hdr.h.a = hdr.h.a + 1;
        }
    }
    table t {
        key = {
            hdr.h.k : exact;
        }
        actions = {
            clamp;
        }
        default_action = clamp(0x10);
    }
    apply {
        t.apply();
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
