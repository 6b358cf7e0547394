// A run-time header stack index out of range in a control does not stop the packet (as p4c's BMv2 samples
// expect): a write through it is lost, a read gives 0, an inout argument changes nothing; the packet is forwarded.
#include <core.p4>
#include <v1model.p4>

header sel_t {
    bit<8> i;
    bit<8> seen;   // what was read through the index
}

header e_t {
    bit<8> v;
}

struct headers_t { sel_t s; e_t[2] e; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.s);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action bump(inout bit<8> x) {
        x = x + 1;
    }
    apply {
        sm.egress_spec = 2;
        hdr.s.seen = hdr.e[hdr.s.i].v;
        hdr.e[hdr.s.i].v = 0x77;
        bump(hdr.e[hdr.s.i].v);
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
