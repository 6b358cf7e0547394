// typedef and type (new type needs casts)
#include <core.p4>
#include <v1model.p4>

typedef bit<16> Port_t;
type bit<8> Tag_t;

header h_t {
    bit<16> port;
    bit<8> tag;
    bit<8> res;
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
        Port_t p = hdr.h.port;
        Tag_t t = (Tag_t)hdr.h.tag;
        Tag_t u = (Tag_t)8w3;
        if (t == u) {
            hdr.h.res = 8w0xAA;
        } else {
            hdr.h.res = (bit<8>)t + 1;
        }
        sm.egress_spec = (bit<9>)(p + 1);
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
