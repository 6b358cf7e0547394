// &&, || and ?: evaluate their right side only when needed (side effects show it)
#include <core.p4>
#include <v1model.p4>

bool bump(inout bit<8> n) {
    n = n + 1;
    return true;
}

header h_t {
    bit<8> a;
    bit<8> calls;
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
        if (hdr.h.a == 1 && bump(hdr.h.calls)) {
            hdr.h.r = 1;
        }
        if (hdr.h.a == 1 || bump(hdr.h.calls)) {
            hdr.h.r = hdr.h.r + 0x10;
        }
        hdr.h.r = hdr.h.a == 2 ? (bump(hdr.h.calls) ? 8w0xAA : 8w0xBB) : hdr.h.r;
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
