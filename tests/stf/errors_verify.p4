// custom errors, verify(), parser_error seen by ingress (the packet is not dropped)
#include <core.p4>
#include <v1model.p4>

error { BadKind, TooBig }

header h_t {
    bit<8> kind;
    bit<8> res;
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
        verify(hdr.h.kind != 0, error.BadKind);
        verify(hdr.h.kind < 200, error.TooBig);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.NoError) {
            hdr.h.res = 0;
        } else if (sm.parser_error == error.BadKind) {
            hdr.h.res = 1;
        } else if (sm.parser_error == error.TooBig) {
            hdr.h.res = 2;
        } else {
            hdr.h.res = 3;
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
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
