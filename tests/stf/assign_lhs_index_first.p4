// An assignment evaluates its left side first: a stack index on the left is computed before a call on the right
// changes (through an inout argument) the field the index reads. Also for a slice and a whole-header left side.
#include <core.p4>
#include <v1model.p4>

header sel_t {
    bit<8> i;
}

header e_t {
    bit<8> v;
}

struct headers_t { sel_t s; e_t[3] e; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.s);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

// returns a value and moves the selector on
bit<8> bump(inout bit<8> i) {
    i = i + 1;
    return 0xa0;
}

e_t make(inout bit<8> i) {
    i = 0;
    return { 0xcc };
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.e[2].v == 0) {
            hdr.e[hdr.s.i].v = bump(hdr.s.i);              // writes e[old i]
        } else if (hdr.e[2].v == 1) {
            hdr.e[hdr.s.i].v[3:0] = (bit<4>)bump(hdr.s.i);  // slice of e[old i]
        } else {
            hdr.e[hdr.s.i] = make(hdr.s.i);                 // whole header e[old i]
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.s);
        pkt.emit(hdr.e);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
