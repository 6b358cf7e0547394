// const entries keyed by serializable enum members, with named constants as action arguments
#include <core.p4>
#include <v1model.p4>

enum bit<8> Proto_t {
    TCP = 6,
    UDP = 17
}
const bit<8> TAG_UDP = 0x17;

header h_t {
    Proto_t proto;
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
    action set(bit<8> v, bit<9> port) {
        hdr.h.tag = v;
        sm.egress_spec = port;
    }
    table t {
        key = {
            hdr.h.proto : exact;
        }
        actions = {
            set;
        }
        const entries = {
            Proto_t.TCP : set(0x06, 1);
            Proto_t.UDP : set(TAG_UDP, 2);
        }
        default_action = set(0xFF, 3);
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
