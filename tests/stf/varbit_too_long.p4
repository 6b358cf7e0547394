// a varbit length above the declared maximum raises HeaderTooShort
#include <core.p4>
#include <v1model.p4>

header opt_t {
    bit<8> len;
    varbit<16> data;
}
header tail_t {
    bit<8> t;
}

struct headers_t {
    opt_t opt;
    tail_t tail;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        bit<8> n = pkt.lookahead<bit<8>>();
        pkt.extract(hdr.opt, (bit<32>)n * 8);
        pkt.extract(hdr.tail);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.HeaderTooShort) {
            hdr.tail.setValid();
            hdr.tail.t = 0xEE;
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
        pkt.emit(hdr.tail);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
