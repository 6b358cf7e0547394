// constants and compile-time folding: / %, infinite-precision ints, width casts
#include <core.p4>
#include <v1model.p4>

const bit<8> Q = 100 / 7;
const bit<8> R = 100 % 7;
const bit<16> BIG = (1 << 12) + 3;
const int NEG = -5;
const bit<8> WRAP = (bit<8>)(NEG * 3);
const bit<8> SUM = 8w250 + 8w10;
const bit<32> MASK = ~32w0 >> 4;
const bool FLAG = Q > R && BIG == 4099;
const bit<8> SEL = FLAG ? 8w0x11 : 8w0x22;

header h_t {
    bit<8> q;
    bit<8> r;
    bit<16> big;
    bit<8> wrap;
    bit<8> sum;
    bit<32> mask;
    bit<8> sel;
    bit<8> width;
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
        hdr.h.q = Q;
        hdr.h.r = R;
        hdr.h.big = BIG;
        hdr.h.wrap = WRAP;
        hdr.h.sum = SUM;
        hdr.h.mask = MASK;
        hdr.h.sel = SEL;
        hdr.h.width = (bit<8>)(16w0xFF00 >> 8) + 8w1;
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
