// the same control type applied directly twice in one block: p4c (InstantiateDirectCalls) makes one instance per
// invocation, all named after the type (P4-16 "Direct type invocation"); a control without controllable entities
// behaves the same either way, and its locals start afresh at each apply (an uninitialized local reads 0 here,
// as in BMv2, where metadata starts at 0). Invoking a type with tables or externs twice in one scope is illegal
// (spec); we then share one instance, so the control plane sees one set of entities under that name.
#include <core.p4>
#include <v1model.p4>

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

control Count(inout bit<8> x) {
    bit<8> acc;
    apply {
        acc = acc + 1;
        x = x + acc;
    }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
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
        Count.apply(hdr.h.a);
        Count.apply(hdr.h.b);
        Count.apply(hdr.h.b);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
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
