// the action of one table writes the key of the next
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> mid;
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
    action set_mid(bit<8> m) {
        hdr.h.mid = m;
    }
    action fwd(bit<9> port, bit<8> tag) {
        sm.egress_spec = port;
        hdr.h.tag = tag;
    }
    table t1 {
        key = {
            hdr.h.a : exact;
        }
        actions = {
            set_mid;
        }
        default_action = set_mid(0);
    }
    table t2 {
        key = {
            hdr.h.mid : ternary;
        }
        actions = {
            fwd;
        }
        default_action = fwd(9, 9);
    }
    apply {
        t1.apply();
        t2.apply();
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
