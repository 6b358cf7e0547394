// #define with arguments, #ifdef (ROCELAB is predefined), #if on a macro
#include <core.p4>
#include <v1model.p4>

#define OFFSET 7
#define PORT_OUT 2
#define ADD(x, y) ((x) + (y))

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
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
        hdr.h.b = ADD(hdr.h.a, OFFSET);
#ifdef ROCELAB
        hdr.h.c = 1;
#else
        hdr.h.c = 2;
#endif
#if OFFSET > 5
        hdr.h.c = hdr.h.c + 0x10;
#endif
        sm.egress_spec = PORT_OUT;
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
