// standard_metadata.packet_length after a recirculation (the deparsed length) and after a resubmit (the length
// that pass received)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  has_x;
    bit<16> len_first;
    bit<16> len_recirc;
    bit<16> len_resubmit;
}

header x_t {
    bit<32> v;
}

struct headers_t {
    h_t h;
    x_t x;
}

struct meta_t {
    @field_list(0)
    bit<16> len_recirc;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.has_x) {
            1: parse_x;
            default: accept;
        }
    }
    state parse_x {
        pkt.extract(hdr.x);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            hdr.h.len_first = (bit<16>)sm.packet_length;
            sm.egress_spec = 1;
        } else if (sm.instance_type == 4) {
            meta.len_recirc = (bit<16>)sm.packet_length;
            resubmit_preserving_field_list(0);
        } else if (sm.instance_type == 6) {
            hdr.h.len_recirc = meta.len_recirc;
            hdr.h.len_resubmit = (bit<16>)sm.packet_length;
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == 1) {
            hdr.h.has_x = 0;
            hdr.x.setInvalid();
            recirculate_preserving_field_list(1);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.x);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
