// What P4Runtime refuses with PERMISSION_DENIED, as PI does: an entry with a @defaultonly action, a @tableonly
// action as default, and any write to a table whose entries are const.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t { ethernet_t eth; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table t {
        key = { hdr.eth.dst: exact; }
        actions = { @tableonly fwd; @defaultonly drop; }
        default_action = drop();
    }
    table fixed {
        key = { hdr.eth.src: exact; }
        actions = { fwd; NoAction; }
        const entries = { 0x020000000001 : fwd(1); }
    }
    apply {
        t.apply();
        fixed.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
