// a 128-bit lpm key (IPv6 addresses), prefixes 0, 32, 64, 127
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<128> dst;
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
    table t {
        key = {
            hdr.h.dst : lpm;
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
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
