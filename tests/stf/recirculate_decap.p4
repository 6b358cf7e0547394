// egress removes the outer header and recirculates; the second pass parses the shorter packet
#include <core.p4>
#include <v1model.p4>

header outer_t {
    bit<8> magic;
}
header inner_t {
    bit<8> v;
}

struct headers_t {
    outer_t outer;
    inner_t inner;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            0xEE: p_outer;
            default: p_inner;
        }
    }
    state p_outer {
        pkt.extract(hdr.outer);
        transition p_inner;
    }
    state p_inner {
        pkt.extract(hdr.inner);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.outer.isValid()) {
            sm.egress_spec = 9;
        } else {
            sm.egress_spec = (bit<9>)hdr.inner.v;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.outer.isValid()) {
            hdr.outer.setInvalid();
            recirculate_preserving_field_list(0);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.outer);
        pkt.emit(hdr.inner);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
