// casts: truncation, zero and sign extension, int constants, bool<->bit<1>
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> w;
    bit<8> trunc;
    bit<32> zext;
    int<8> neg;
    bit<16> sext;
    bit<8> fromint;
    bit<8> b1;
    bit<8> frombool;
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
        hdr.h.trunc = (bit<8>)hdr.h.w;
        hdr.h.zext = (bit<32>)hdr.h.w;
        hdr.h.sext = (bit<16>)((int<16>)hdr.h.neg);
        hdr.h.fromint = (bit<8>)(-1);
        bit<1> one = (bit<1>)(hdr.h.w == 16w0xA1B2);
        hdr.h.b1 = (bit<8>)one;
        bool t = (bool)one;
        hdr.h.frombool = t ? 8w7 : 8w9;
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
