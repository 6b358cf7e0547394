// direct type invocation (P4-16): Sub.apply(...) on a control or parser type applies an implicit instance named
// after the type; one control instance passed as a constructor argument to two others is shared by both
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> kind; bit<16> v; }
header opt_t { bit<8> o; }
struct headers_t { h_t h; opt_t opt; }
struct meta_t { }

parser OptParser(packet_in pkt, inout headers_t hdr) {
    state start {
        transition select(hdr.h.kind) { 1: take; default: accept; }
    }
    state take { pkt.extract(hdr.opt); transition accept; }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        OptParser.apply(pkt, hdr);
        transition accept;
    }
}

control Step(inout bit<16> x);

control Inc(inout bit<16> x) {
    counter(4, CounterType.packets) seen;
    apply {
        x = x + 1;
        seen.count((bit<32>)x[1:0]);
    }
}
control ShiftThen(inout bit<16> x)(Step s, bit<4> by) {
    apply {
        x = x << by;
        s.apply(x);
    }
}
control Chain(inout bit<16> x) {
    Inc() shared;
    ShiftThen(shared, 1) a;
    ShiftThen(shared, 3) b;
    apply {
        a.apply(x);
        b.apply(x);
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Chain.apply(hdr.h.v);
        if (hdr.opt.isValid()) {
            Chain.apply(hdr.h.v);
        }
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
