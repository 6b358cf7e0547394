// a tour of parser constructs: value sets (bit<16> and struct-typed over a tuple select), a VLAN stack walked
// with .next/.last, an MPLS stack and .lastIndex, lookahead of bits, varbit IPv4 options sized by ihl, verify with
// a program error, tuple selects with _ / ranges / masks, a header union chosen by lookahead, parser errors
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header ipv4_opts_t { varbit<320> data; }
header tcp_t { bit<16> sport; bit<16> dport; }
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header mpls_t { bit<20> label; bit<3> tc; bit<1> bos; bit<8> ttl; }
header v4_t { bit<8> kind; bit<8> val; }
header v6_t { bit<8> kind; bit<16> val; }
header_union either_t { v4_t v4; v6_t v6; }
header info_t { bit<8> nmpls; bit<8> err; bit<8> kind; bit<8> vs_hit; bit<16> peek; }

struct vs_key_t { bit<16> type; bit<8> proto; }
struct headers_t {
    info_t info;
    eth_t eth;
    vlan_t[2] vlan;
    mpls_t[4] mpls;
    ipv4_t ipv4;
    ipv4_opts_t opts;
    udp_t udp;
    tcp_t tcp;
    either_t u;
}
struct meta_t { bit<8> vs_hit; bit<16> peek; bit<8> nmpls; }

error { BadIhl }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) tpids;
    value_set<vs_key_t>(4) special;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            tpids: parse_vlan;
            0x8847: parse_mpls;
            0x0800: parse_ipv4;
            0x88B5 &&& 0xFFF0: parse_union;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.type) {
            tpids: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            0: parse_mpls;
            1: after_mpls;
        }
    }
    state after_mpls {
        meta.nmpls = (bit<8>)(bit<32>)hdr.mpls.lastIndex + 1;  // lastIndex exists only in parsers (P4-16 8.18)
        meta.peek = pkt.lookahead<bit<16>>();
        transition select(pkt.lookahead<bit<4>>()) {
            4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl >= 5, error.BadIhl);
        pkt.extract(hdr.opts, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 5) * 32));
        transition select(hdr.eth.type, hdr.ipv4.proto) {
            special: special_case;
            default: l4;
        }
    }
    state l4 {
        transition select(hdr.ipv4.proto, hdr.ipv4.frag) {
            (17, 0): parse_udp;
            (6, 0 .. 0): parse_tcp;
            (6, _): accept;
            default: accept;
        }
    }
    state special_case {
        meta.vs_hit = 1;
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dport) {
            1000 .. 1999: parse_union;
            default: accept;
        }
    }
    state parse_tcp { pkt.extract(hdr.tcp); transition accept; }
    state parse_union {
        transition select(pkt.lookahead<bit<8>>()) {
            4: u4;
            6: u6;
        }
    }
    state u4 { pkt.extract(hdr.u.v4); transition accept; }
    state u6 { pkt.extract(hdr.u.v6); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.info.setValid();
        hdr.info.nmpls = meta.nmpls;
        if (sm.parser_error == error.NoError) { hdr.info.err = 0; }
        else if (sm.parser_error == error.BadIhl) { hdr.info.err = 1; }
        else if (sm.parser_error == error.NoMatch) { hdr.info.err = 2; }
        else if (sm.parser_error == error.PacketTooShort) { hdr.info.err = 3; }
        else { hdr.info.err = 4; }
        if (hdr.u.v4.isValid()) { hdr.info.kind = 4; }
        else if (hdr.u.v6.isValid()) { hdr.info.kind = 6; }
        else if (hdr.u.isValid()) { hdr.info.kind = 0xFF; }
        hdr.info.vs_hit = meta.vs_hit;
        hdr.info.peek = meta.peek;
        sm.egress_spec = 1;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
