// clone_preserving_field_list: the clone keeps only the listed metadata
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> itype;
    bit<8> m;
    bit<8> n;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(3)
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
        meta.keep = 0x42;
        meta.lose = 0x24;
        sm.egress_spec = 1;
        clone_preserving_field_list(CloneType.I2E, 32w6, 3);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.m = meta.keep;
        hdr.h.n = meta.lose;
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
