// @field_list ids written as named constants (an `int` const and a typed const), and values assigned after the
// clone call: the clone carries the values the fields hold at the end of ingress
#include <core.p4>
#include <v1model.p4>

const int FL_TO_CPU = 5;
const bit<8> FL_OTHER = 9;

header h_t {
    bit<8> x;
    bit<8> itype;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(FL_TO_CPU)
    bit<8> a;
    @field_list(FL_OTHER, FL_TO_CPU)
    bit<8> b;
    @field_list(FL_OTHER)
    bit<8> c;
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
    action to_cpu() {
        clone_preserving_field_list(CloneType.I2E, 32w7, FL_TO_CPU);
        meta.a = 0x11;
        meta.b = 0x22;
        meta.c = 0x33;
    }
    apply {
        sm.egress_spec = 1;
        to_cpu();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.a = meta.a;
        hdr.h.b = meta.b;
        hdr.h.c = meta.c;
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
