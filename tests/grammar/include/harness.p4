// The parts of a v1model program that the grammar tests share: one 10-byte header `h`, an empty metadata
// struct, a parser that extracts `h`, empty verify/compute/egress controls and a deparser that emits `h`.
// A test program includes this, declares its own ingress control (and parser, when parsing is its subject)
// and instantiates V1Switch.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<16> w;
    bit<32> x;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser GParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control GVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control GEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control GCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control GDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
