// header_union: one member valid; setValid on a member invalidates the others
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
}

header a_t {
    bit<8> x;
}
header b_t {
    bit<16> y;
}
header_union u_t {
    a_t a;
    b_t b;
}

struct headers_t {
    h_t h;
    u_t u;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            1: pa;
            2: pb;
            3: pb;
            default: accept;
        }
    }
    state pa {
        pkt.extract(hdr.u.a);
        transition accept;
    }
    state pb {
        pkt.extract(hdr.u.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.u.a.isValid()) {
            hdr.u.a.x = hdr.u.a.x + 1;
        } else if (hdr.u.b.isValid()) {
            hdr.u.b.y = hdr.u.b.y ^ 16w0xFFFF;
        }
        if (hdr.h.kind == 3) {
            hdr.u.a.setValid();
            hdr.u.a.x = 0x5A;
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
        pkt.emit(hdr.h);
        pkt.emit(hdr.u);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
