// hash() with every deterministic v1model algorithm; fields packed MSB-first, the last byte zero-padded; result = base + H % max
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> a;
    bit<16> b;
    bit<3> c;
    bit<5> pad;
    bit<32> r_crc32;
    bit<32> r_crc32c;
    bit<16> r_crc16;
    bit<16> r_crc16c;
    bit<16> r_csum;
    bit<16> r_xor;
    bit<32> r_ident;
    bit<32> r_odd;
    bit<16> r_base;
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
        hash(hdr.h.r_crc32, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000);
        hash(hdr.h.r_crc32c, HashAlgorithm.crc32_custom, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000);
        hash(hdr.h.r_crc16, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.h.r_crc16c, HashAlgorithm.crc16_custom, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.h.r_csum, HashAlgorithm.csum16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.h.r_xor, HashAlgorithm.xor16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.h.r_ident, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000);
        hash(hdr.h.r_odd, HashAlgorithm.crc32, 32w0, { hdr.h.c, hdr.h.b }, 64w0x100000000);
        hash(hdr.h.r_base, HashAlgorithm.crc16, 16w100, { hdr.h.a }, 32w7);
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
