// for loops (P4-16 1.2.5): C-style with several declarations and updates, nested for-in over a range, continue
// (still runs the update), an endless for (;;) left by break, for-in over a header stack (the variable is a copy)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> n; bit<32> sum; bit<32> prod; bit<8> odd; bit<8> brk; bit<8> r; }
header item_t { bit<8> v; }
struct headers_t { h_t h; item_t[4] items; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.items.next); pkt.extract(hdr.items.next); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action triangle() {
        hdr.h.sum = 0;
        for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) {
            hdr.h.sum = hdr.h.sum + (bit<32>)i;
        }
    }
    apply {
        triangle();
        hdr.h.prod = 0;
        for (bit<8> i = 0, bit<8> j = 0; i < hdr.h.n; i = i + 1, j = j + 2) {
            for (bit<8> k in 1 .. 3) {
                hdr.h.prod = hdr.h.prod + (bit<32>)k + (bit<32>)j;
            }
        }
        hdr.h.odd = 0;
        for (bit<8> i = 0; i < 10; i = i + 1) {
            if (i & 1 == 0) { continue; }
            hdr.h.odd = hdr.h.odd + 1;
        }
        bit<8> c = 0;
        for (; ; ) {
            c = c + 1;
            if (c == hdr.h.n) { break; }
            if (c == 200) { break; }
        }
        hdr.h.brk = c;
        hdr.h.r = 0;
        for (item_t it in hdr.items) {
            if (it.isValid()) { hdr.h.r = hdr.h.r + it.v; }
            it.v = 0;
        }
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
