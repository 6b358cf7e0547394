// `exit` inside an action still copies out its out/inout arguments (P4-16 spec, exit statement):
// scalar inout, scalar out, a header out parameter, and an action that exits inside another action.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> x;
    bit<8> y;
    bit<8> after;   // set only if execution continued after the action (it must not)
}

header extra_t {
    bit<8> v;
}

struct headers_t { h_t h; extra_t e; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_and_exit(inout bit<8> v, out bit<8> w) {
        v = v + 1;
        w = 0x77;
        exit;
    }
    action make_header_and_exit(out extra_t e) {
        e.setValid();
        e.v = 0xee;
        exit;
    }
    action inner(inout bit<8> v) {
        v = 0x42;
        exit;
    }
    action outer(inout bit<8> v) {
        v = 0x10;
        inner(v);
        v = 0x99;   // never reached
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {
            set_and_exit(hdr.h.x, hdr.h.y);
        } else if (hdr.h.op == 2) {
            make_header_and_exit(hdr.e);
        } else if (hdr.h.op == 3) {
            outer(hdr.h.x);
        }
        hdr.h.after = 0xff;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.e);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
