/* A minimal routed IPv4 switch (the p4lang tutorials' `basic` exercise, written here): longest-prefix match on
 * the destination, rewrite the Ethernet addresses, decrement the TTL. It knows nothing of priorities, PFC or ECN:
 * a scenario runs it with `routes: none` and its own `entries`; the traffic manager carries PFC and ECN.
 * The priority queue is taken from the DSCP's class selector (its top three bits), so RoCE data (DSCP 26) goes
 * to queue 3 and CNPs (DSCP 48) to queue 6, as the NICs expect. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<6> dscp; bit<2> ecn; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { }

parser BasicParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control BasicVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control BasicIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action forward(bit<9> port, bit<48> dmac, bit<48> smac) {
        sm.egress_spec = port;
        hdr.ethernet.srcAddr = smac;
        hdr.ethernet.dstAddr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr : lpm; }
        actions = { forward; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.ipv4.isValid()) {
            sm.priority = (bit<3>) (hdr.ipv4.dscp >> 3);
            ipv4_lpm.apply();
        } else {
            drop();
        }
    }
}

control BasicEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control BasicCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control BasicDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); } }

V1Switch(BasicParser(), BasicVerify(), BasicIngress(), BasicEgress(), BasicCompute(), BasicDeparser()) main;
