// A header given the value of a list or struct expression: p4c writes `h = {...}` as h.setValid() and one
// assignment per field, and in a control setValid is BMv2's add_header, so the packet's length register
// (standard_metadata.packet_length in egress) grows by the header's size when the header was invalid. A local
// header variable is a header to BMv2 as well: its initializer counts too, and copying it into the packet's
// header afterwards (BMv2 assign_header) does not; a function returning a list returns a new local.
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

extra_t make_extra(in bit<16> v) {
    return {v};                             // p4c returns through a fresh local header
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.outer);
        transition select(hdr.outer.kind) {
            3: parse_extra;
            default: accept;
        }
    }
    state parse_extra {
        pkt.extract(hdr.extra);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.outer.kind == 1) {
            hdr.extra = {0x1234};           // invalid until now: 2 bytes more
        } else if (hdr.outer.kind == 3) {
            hdr.extra = {0x5678};           // parsed, already valid: no change
        } else if (hdr.outer.kind == 4) {
            extra_t t = {0x9abc};           // the local is made valid: 2 bytes more
            hdr.extra = t;                  // a header copy: no change
        } else if (hdr.outer.kind == 5) {
            hdr.extra = make_extra(0xdef0); // the function's returned header: 2 bytes more
        }
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
