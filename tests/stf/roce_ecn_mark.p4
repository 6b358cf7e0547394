// RoCEv2: mark ECN CE on ECT packets of listed destination QPs (frames and ICRC built with scapy; the ICRC masks the ECN bits so it stays valid)
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etype;
}
header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<6> dscp;
    bit<2> ecn;
    bit<16> totalLen;
    bit<16> identification;
    bit<3> flags;
    bit<13> fragOffset;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}
header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> len;
    bit<16> checksum;
}
header bth_t {
    bit<8> opcode;
    bit<1> se;
    bit<1> migreq;
    bit<2> padcnt;
    bit<4> tver;
    bit<16> pkey;
    bit<1> fecn;
    bit<1> becn;
    bit<6> resv6;
    bit<24> dqpn;
    bit<1> ackreq;
    bit<7> resv7;
    bit<24> psn;
}

struct headers_t {
    ethernet_t eth;
    ipv4_t ipv4;
    udp_t udp;
    bth_t bth;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x0800: p_ipv4;
            default: accept;
        }
    }
    state p_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: p_udp;
            default: accept;
        }
    }
    state p_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dstPort) {
            4791: p_bth;
            default: accept;
        }
    }
    state p_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark_ce() {
        hdr.ipv4.ecn = 3;
    }
    table congested {
        key = {
            hdr.bth.dqpn : exact;
        }
        actions = {
            mark_ce;
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.bth.isValid() && hdr.ipv4.ecn != 0) {
            congested.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.bth);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
