// BMv2's add_header / remove_header (what p4c emits for setValid / setInvalid): a header made valid from invalid
// has every field reset to 0; both move the packet's length register by the header's size, and that register is
// standard_metadata.packet_length at the start of egress (ingress still sees the received length)
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
    bit<16> in_len;
    bit<16> eg_len;
}

struct headers_t {
    rep_t rep;
    outer_t outer;
    extra_t extra;
}

struct meta_t {
    bit<16> in_len;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.outer);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.outer.kind == 1) {
            hdr.outer.setInvalid();            // decap: 4 bytes less
        } else if (hdr.outer.kind == 2) {
            hdr.extra.x = 0x1234;              // written while invalid...
            hdr.extra.setValid();              // ...reset to 0 when made valid; 2 bytes more
            hdr.extra.x = hdr.extra.x + 1;
            hdr.extra.setValid();              // already valid: no change, no length change
        } else if (hdr.outer.kind == 3) {
            hdr.outer.setInvalid();
            hdr.outer.setValid();              // fields reset to 0, length unchanged overall
            hdr.outer.kind = 3;
        }
        meta.in_len = (bit<16>)sm.packet_length;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.rep.setValid();
        hdr.rep.in_len = meta.in_len;
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
