// the deparser emits valid headers in its own order, then the unparsed payload
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> v;
}
header b_t {
    bit<16> v;
}
header c_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    b_t b;
    c_t c;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.v) {
            1: pb;
            default: accept;
        }
    }
    state pb {
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.c.setValid();
        hdr.c.v = 0xCC;
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
        pkt.emit(hdr.c);
        pkt.emit(hdr.b);
        pkt.emit(hdr.a);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
