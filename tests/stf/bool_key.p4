// a 1-bit slice as an exact key, named with @name
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> tag;
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
    bool flag;
    action set(bit<8> v) {
        hdr.h.tag = v;
        sm.egress_spec = 1;
    }
    table t {
        key = {
            hdr.h.a[7:7] : exact @name("top");
        }
        actions = {
            set;
        }
        default_action = set(0xFF);
    }
    apply {
        bool big = hdr.h.a > 100;
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
