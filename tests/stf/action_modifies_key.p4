// an action changing its table's key field does not re-run the lookup
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
    action change(bit<8> nk) {
        hdr.h.k = nk;
        hdr.h.r = hdr.h.r + 1;
    }
    table t {
        key = {
            hdr.h.k : exact;
        }
        actions = {
            change;
        }
        default_action = change(0xFF);
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
