// A small L3 switch for the runtime-JSON loader tests (RuntimeApi.load_runtime_json): an ACL on the source
// address (ternary, priorities), IPv4 LPM routing, a flood to a multicast group and a mirror to a clone session.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

header ipv4_t {
    bit<8>  version_ihl;
    bit<8>  tos;
    bit<16> totalLen;
    bit<32> id_flags;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> csum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct headers_t {
    ethernet_t eth;
    ipv4_t     ipv4;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etherType) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action fwd(bit<48> dmac, bit<9> port) {
        hdr.eth.dst = dmac;
        sm.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action flood(bit<16> grp) { sm.mcast_grp = grp; }
    action mirror(bit<32> session) { clone(CloneType.I2E, session); }

    table acl {
        key = { hdr.ipv4.srcAddr: ternary; hdr.ipv4.protocol: exact; }
        actions = { drop; mirror; NoAction; }
        default_action = NoAction();
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { fwd; flood; drop; NoAction; }
        default_action = NoAction();
        size = 64;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            acl.apply();
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
