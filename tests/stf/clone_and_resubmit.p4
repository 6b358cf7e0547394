// clone and resubmit in the same pass: the clone goes out and the packet comes back as RESUBMIT; unicast from that
// second pass it is NORMAL (0) in egress (BMv2 sets instance_type on unicast)
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
        if (sm.instance_type == 0) {
            clone(CloneType.I2E, 32w5);
            resubmit_preserving_field_list(0);
        } else {
            hdr.h.x = 0x66;
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.port = (bit<8>)sm.egress_port;
        hdr.h.rid = (bit<8>)sm.egress_rid;
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
