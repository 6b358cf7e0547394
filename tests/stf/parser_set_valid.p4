// In a parser state p4c writes setValid()/setInvalid() as a plain assignment to the header's validity bit
// (BMv2 `set $valid$`), not as the add_header/remove_header primitives a control uses: a field written while
// the header was invalid keeps its value, a header made invalid and valid again keeps its fields, and the
// packet's length register (standard_metadata.packet_length in egress) does not move.
#include <core.p4>
#include <v1model.p4>

header outer_t {
    bit<8> kind;
    bit<8> a;
    bit<16> b;
}

header extra_t {
    bit<16> x;
}

header rep_t {
    bit<16> eg_len;
}

struct headers_t {
    rep_t rep;
    outer_t outer;
    extra_t extra;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.outer);
        transition select(hdr.outer.kind) {
            1: add_extra;
            2: toggle_outer;
            default: accept;
        }
    }
    state add_extra {
        hdr.extra.x = 0x1234;       // written while invalid...
        hdr.extra.setValid();       // ...and kept when made valid in the parser
        transition accept;
    }
    state toggle_outer {
        hdr.outer.setInvalid();
        hdr.outer.setValid();       // the extracted fields are kept
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.rep.setValid();
        hdr.rep.eg_len = (bit<16>)sm.packet_length;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.rep);
        pkt.emit(hdr.outer);
        pkt.emit(hdr.extra);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
