// resubmit: the original packet re-enters ingress as RESUBMIT (6) with only the listed metadata kept
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> itype;
    bit<8> m;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(1)
    bit<8> keep;
    bit<8> lose;
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
        if (sm.instance_type == 0) {
            meta.keep = 0x42;
            meta.lose = 0x99;
            hdr.h.x = 0xFF;
            sm.egress_spec = 3;
            resubmit_preserving_field_list(1);
        } else {
            hdr.h.itype = (bit<8>)sm.instance_type;
            hdr.h.m = meta.keep + meta.lose;
            sm.egress_spec = 1;
        }
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
