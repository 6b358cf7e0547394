// user metadata (with a nested struct) carries from ingress to egress
#include <core.p4>
#include <v1model.p4>

struct inner_t {
    bit<8> x;
}

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    inner_t inner;
    bit<8> y;
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
        meta.inner.x = hdr.h.a + 1;
        meta.y = 0x30;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.b = meta.inner.x + meta.y;
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
