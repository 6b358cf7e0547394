// p4c's typing of widths: an untyped constant that does not fit its target wraps (p4c only warns, as its typed
// constants do); a signed shift amount is accepted when constant; shifts keep the left operand's type, so an
// int<32> shifted into an int<64> needs the cast first; shifts by the width or more give 0 (or -1 for a negative
// int >>); 1 << 63 is an int constant that wraps to int<64>'s minimum
#include <core.p4>
#include <v1model.p4>

header in_t {
    int<32> a;
    bit<8> n;
}

header out_t {
    int<32> wrap32;
    bit<8> wrap8;
    int<64> widened;
    int<64> narrow_then_widened;
    int<64> sconst_shift;
    int<64> min64;
    bit<8> over_shl;
    int<32> over_shr;
    int<32> var_shr;
}

struct headers_t {
    in_t i;
    out_t o;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.wrap32 = 0x80000001;                          // 2^31 + 1 wraps to -2147483647
        hdr.o.wrap8 = 300;                                  // 300 wraps to 44
        hdr.o.widened = (int<64>)hdr.i.a << 8;              // sign-extended first, then shifted in 64 bits
        hdr.o.narrow_then_widened = (int<64>)(hdr.i.a << 8); // shifted in 32 bits (bits lost), then extended
        hdr.o.sconst_shift = (int<64>)hdr.i.a << 8s4;       // a signed constant shift amount
        hdr.o.min64 = 1 << 63;
        hdr.o.over_shl = 8w0xFF << 8;
        hdr.o.over_shr = hdr.i.a >> 40;
        hdr.o.var_shr = hdr.i.a >> hdr.i.n;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
