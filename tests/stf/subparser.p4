// a sub-parser with a constructor argument, applied from a state
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
}

header t_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    h_t h;
    t_t t;
}

struct meta_t {
}

parser SubParser(packet_in p, out t_t t)(bit<8> add) {
    state start {
        p.extract(t);
        t.y = t.y + add;
        transition accept;
    }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    SubParser(8w0x40) sub;
    state start {
        pkt.extract(hdr.h);
        sub.apply(pkt, hdr.t);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
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
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
