// recirculate: the deparsed packet (with egress changes) re-enters ingress as RECIRC (4); unicast from there it is
// NORMAL (0) again in egress (BMv2 sets instance_type on unicast), so egress tells the passes apart by a header field
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
    @field_list(2)
    bit<8> keep;
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
        if (sm.instance_type == 4) {
            hdr.h.itype = 4;
            hdr.h.m = meta.keep;
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.itype != 4) {
            hdr.h.x = hdr.h.x + 1;
            meta.keep = 0x77;
            recirculate_preserving_field_list(2);
        }
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
