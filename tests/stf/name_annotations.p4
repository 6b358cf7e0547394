// @name renames tables and actions for the control plane (relative and absolute names)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
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
    @name("set_tag") action set_tag_internal(bit<8> v) {
        hdr.h.tag = hdr.h.tag + v;
    }
    action fwd(bit<9> port) {
        sm.egress_spec = port;
    }
    @name("renamed") table t1 {
        key = {
            hdr.h.k : exact;
        }
        actions = {
            set_tag_internal;
            NoAction;
        }
        default_action = NoAction();
    }
    @name(".global_fwd") table t2 {
        key = {
            hdr.h.k : exact;
        }
        actions = {
            fwd;
        }
        default_action = fwd(9);
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
