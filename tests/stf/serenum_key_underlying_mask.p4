// A serializable-enum table key: const entries give masks and ranges in the enum's underlying type
// (`(bit<16>)Kind.B &&& 0xff00`, `16w0x0100 .. 16w0x01ff`) next to plain enum members.
#include <core.p4>
#include <v1model.p4>

enum bit<16> Kind {
    A = 0x0010,
    B = 0x2200,
    C = 0x0150
}

header h_t {
    Kind   k;
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
    action set(bit<9> port, bit<8> tag) {
        sm.egress_spec = port;
        hdr.h.tag = tag;
    }
    table by_kind {
        key = { hdr.h.k : ternary; }
        actions = { set; NoAction; }
        const default_action = set(9, 0x99);
        const entries = {
            Kind.A                          : set(1, 0x0a);
            ((bit<16>)Kind.B) &&& 0xff00    : set(2, 0x0b);
        }
    }
    table by_range {
        key = { hdr.h.k : range; }
        actions = { set; NoAction; }
        const default_action = NoAction;
        const entries = {
            16w0x0100 .. 16w0x01ff : set(3, 0x0c);
        }
    }
    apply {
        by_kind.apply();
        by_range.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
