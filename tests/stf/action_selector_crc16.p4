// an action selector hashing two selector keys with crc16: member = members[crc16(a ++ b) % 3]
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<16> a;
    bit<8> b;
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
    action_selector(HashAlgorithm.crc16, 32w16, 32w16) sel;
    action fwd(bit<9> port) {
        sm.egress_spec = port;
    }
    table t {
        key = {
            hdr.h.k : exact;
            hdr.h.a : selector;
            hdr.h.b : selector;
        }
        actions = {
            fwd;
        }
        implementation = sel;
    }
    apply {
        t.apply();
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
