// A control type may carry the name of a v1model function (p4c keeps types and functions apart): the checksum
// controls handed to V1Switch are called verify_checksum and update_checksum, and the functions of those names
// are called from sub-controls declared before them.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> csum;
}

struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control check_sub(inout headers_t hdr) {
    apply { verify_checksum(hdr.h.isValid(), { hdr.h.a }, hdr.h.csum, HashAlgorithm.csum16); }
}

control update_sub(inout headers_t hdr) {
    apply { update_checksum(hdr.h.isValid(), { hdr.h.a }, hdr.h.csum, HashAlgorithm.csum16); }
}

control verify_checksum(inout headers_t hdr, inout meta_t meta) {
    check_sub() c;
    apply { c.apply(hdr); }
}

control update_checksum(inout headers_t hdr, inout meta_t meta) {
    update_sub() u;
    apply { u.apply(hdr); }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.checksum_error == 1) {
            hdr.h.a = 0xFF;
        } else {
            hdr.h.a = hdr.h.a + 1;
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), verify_checksum(), I(), E(), update_checksum(), D()) main;
