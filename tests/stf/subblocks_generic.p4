// sub-blocks: a sub-parser with a constructor parameter used as a select label and its own value_set; a generic
// control Copy<T> instantiated at two types; a control instantiated twice with different constructor arguments
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> kind; bit<8> v; }
header b_t { bit<16> w; }
struct headers_t { a_t a; b_t b; a_t a2; }
struct meta_t { bit<8> seen; }

parser SubP(packet_in pkt, inout headers_t hdr, inout bit<8> seen)(bit<8> marker) {
    value_set<bit<8>>(2) kinds;
    state start {
        transition select(hdr.a.kind) { kinds: take_b; marker: take_a2; default: accept; }
    }
    state take_b { pkt.extract(hdr.b); seen = seen | 1; transition accept; }
    state take_a2 { pkt.extract(hdr.a2); seen = seen | 2; transition accept; }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    SubP(8w0x77) sub;
    state start {
        pkt.extract(hdr.a);
        meta.seen = 0;
        sub.apply(pkt, hdr, meta.seen);
        transition select(meta.seen) { 0: none; default: accept; }
    }
    state none { meta.seen = 0x80; transition accept; }
}

control Copy<T>(out T x, in T d) { apply { x = d; } }
control Twice(inout bit<8> v)(bit<8> k) {
    Copy<bit<8>>() copy;
    action dbl() { v = v + v; }
    apply { bit<8> t; copy.apply(t, v + k); v = t; dbl(); }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Twice(3) t3;
    Twice(5) t5;
    Copy<bit<16>>() copy16;
    apply {
        t3.apply(hdr.a.v);
        t5.apply(meta.seen);
        hdr.a.kind = meta.seen;
        if (hdr.b.isValid()) { copy16.apply(hdr.b.w, hdr.b.w + 16w0x100); }
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
