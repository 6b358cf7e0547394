// egress-to-egress clone: the copy carries the egress changes and runs egress again as EGRESS_CLONE (2)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> itype;
    bit<8> port;
    bit<8> rid;
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
    apply {
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            hdr.h.x = 0x11;
            clone(CloneType.E2E, 32w7);
        } else {
            hdr.h.rid = 0x22;
        }
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.port = (bit<8>)sm.egress_port;
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
