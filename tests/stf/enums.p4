// plain enums and serializable enums as header fields (unknown values survive)
#include <core.p4>
#include <v1model.p4>

enum Color { Red, Green, Blue }
enum bit<8> Op_t {
    NOP = 0,
    INC = 1,
    DEC = 0x10
}

header h_t {
    Op_t op;
    bit<8> x;
    bit<8> r;
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
        Color c = Color.Red;
        if (hdr.h.x > 100) {
            c = Color.Blue;
        }
        if (hdr.h.op == Op_t.INC) {
            hdr.h.r = hdr.h.x + 1;
        } else if (hdr.h.op == Op_t.DEC) {
            hdr.h.r = hdr.h.x - 1;
        } else {
            hdr.h.r = (bit<8>)hdr.h.op;
        }
        if (c == Color.Blue) {
            hdr.h.op = Op_t.NOP;
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
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
