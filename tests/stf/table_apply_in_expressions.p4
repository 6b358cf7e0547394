// table applies inside expressions: t1.apply().hit && t2.apply().hit (t2 runs only when t1 hits) and
// t3.apply().miss in a conditional expression; an action changes t3's key before t3 runs
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> k; bit<8> n1; bit<8> n2; bit<8> r; }
struct headers_t { h_t h; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action c1() { hdr.h.n1 = hdr.h.n1 + 1; }
    action c2() { hdr.h.n2 = hdr.h.n2 + 1; }
    table t1 { key = { hdr.h.k: exact; } actions = { c1; NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.h.k: exact; } actions = { c2; NoAction; } default_action = NoAction(); }
    table t3 { key = { hdr.h.n1: exact; } actions = { c2; NoAction; } default_action = NoAction(); }
    apply {
        sm.egress_spec = 1;
        if (t1.apply().hit && t2.apply().hit) {
            hdr.h.r = 1;
        } else {
            hdr.h.r = t3.apply().miss ? 8w2 : 8w3;
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
