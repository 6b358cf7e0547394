// Const entries where the smallest priority wins: p4c's legacy @priority(n) entry annotation (BMv2's own
// priority, smaller is stronger) and a table with `largest_priority_wins = false` using `priority = n`.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> sel;   // 1: table by_annotation, 2: table by_property
    bit<8> a;
    bit<8> tag;
}

struct headers_t { h_t h; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<8> tag) {
        sm.egress_spec = port;
        hdr.h.tag = tag;
    }
    table by_annotation {
        key = { hdr.h.a : ternary; }
        actions = { fwd; NoAction; }
        default_action = NoAction;
        const entries = {
            0x40 &&& 0xC0 : fwd(1, 0xa1) @priority(30);
            0x47          : fwd(2, 0xa2);                // no annotation: weaker than the one before it
            0x44 &&& 0xFC : fwd(3, 0xa3) @priority(10);  // the smallest number: the strongest entry
        }
    }
    table by_property {
        key = { hdr.h.a : ternary; }
        actions = { fwd; NoAction; }
        default_action = NoAction;
        largest_priority_wins = false;
        const entries = {
            priority = 7 : 0x20 &&& 0xF0 : fwd(4, 0xb4);
            priority = 2 : 0x2F : fwd(5, 0xb5);
            priority = 9 : _ : fwd(6, 0xb6);
        }
    }
    apply {
        if (hdr.h.sel == 1) {
            by_annotation.apply();
        } else {
            by_property.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
