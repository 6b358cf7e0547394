// extract past the end: PacketTooShort, the header stays invalid, ingress still runs
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> f;
}
header b_t {
    bit<32> g;
}

struct headers_t {
    a_t a;
    b_t b;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            hdr.a.f = 0xEE;
        }
        if (!hdr.b.isValid()) {
            hdr.a.f = hdr.a.f + 1;
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
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
