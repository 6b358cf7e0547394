// assigning a header copies its validity too
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> v;
}
header c_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    a_t b;
    c_t c;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            0: accept;
            default: pa;
        }
    }
    state pa {
        pkt.extract(hdr.a);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.b = hdr.a;
        hdr.b.v = hdr.b.v + 1;
        if (!hdr.a.isValid()) {
            hdr.c.setValid();
            hdr.c.v = 0xEE;
        }
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
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.c);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
