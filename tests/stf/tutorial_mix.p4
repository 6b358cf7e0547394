// exercise-style mix: a calculator recognized by lookahead<header>().field in a tuple select with const
// entries per operator; ECMP by crc16 over the 5-tuple with a bit<1> base and bit<16> max into bit<14>
// metadata; a bloom-filter firewall in two bit<1> registers (crc16 / crc32 positions) with a direction table;
// resubmit_preserving_field_list keeping a @field_list field named pass (a Python keyword)
#include <core.p4>
#include <v1model.p4>

#define BLOOM_ENTRIES 4096
#define BLOOM_W 1

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header calc_t { bit<8> p; bit<8> four; bit<8> ver; bit<8> op; bit<32> a; bit<32> b; bit<32> res; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header tcp_t { bit<16> sport; bit<16> dport; bit<32> seq; bit<32> ack; bit<4> off; bit<4> res; bit<8> flags; bit<16> win; bit<16> csum; bit<16> urg; }
header out_t { bit<16> ecmp; bit<32> pos1; bit<32> pos2; bit<8> dir; bit<8> blocked; bit<8> itype; bit<8> pass; }

struct headers_t { eth_t eth; calc_t calc; ipv4_t ipv4; tcp_t tcp; out_t o; }
struct meta_t {
    bit<14> ecmp_select;
    bit<32> pos1;
    bit<32> pos2;
    bit<1> v1;
    bit<1> v2;
    bit<1> dir;
    @field_list(1) bit<8> pass;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x1234: check_calc;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state check_calc {
        transition select(pkt.lookahead<calc_t>().p, pkt.lookahead<calc_t>().four, pkt.lookahead<calc_t>().ver) {
            (0x50, 0x34, 0x01): parse_calc;
            default: accept;
        }
    }
    state parse_calc { pkt.extract(hdr.calc); transition accept; }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.proto) { 6: parse_tcp; default: accept; }
    }
    state parse_tcp { pkt.extract(hdr.tcp); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<BLOOM_W>>(BLOOM_ENTRIES) bloom1;
    register<bit<BLOOM_W>>(BLOOM_ENTRIES) bloom2;

    action send_back(bit<32> result) {
        bit<48> tmp = hdr.eth.dst;
        hdr.eth.dst = hdr.eth.src;
        hdr.eth.src = tmp;
        hdr.calc.res = result;
        sm.egress_spec = sm.ingress_port;
    }
    action op_add() { send_back(hdr.calc.a + hdr.calc.b); }
    action op_sub() { send_back(hdr.calc.a - hdr.calc.b); }
    action op_and() { send_back(hdr.calc.a & hdr.calc.b); }
    action op_or()  { send_back(hdr.calc.a | hdr.calc.b); }
    action op_xor() { send_back(hdr.calc.a ^ hdr.calc.b); }
    action op_drop() { mark_to_drop(sm); }
    table calculate {
        key = { hdr.calc.op: exact; }
        actions = { op_add; op_sub; op_and; op_or; op_xor; op_drop; }
        const default_action = op_drop();
        const entries = {
            0x2b: op_add();
            0x2d: op_sub();
            0x26: op_and();
            0x7c: op_or();
            0x5e: op_xor();
        }
    }

    action set_dir(bit<1> dir) { meta.dir = dir; }
    table check_ports {
        key = { sm.ingress_port: exact; sm.egress_spec: exact; }
        actions = { set_dir; NoAction; }
        size = 1024;
        default_action = NoAction();
    }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    table ecmp_nhop {
        key = { meta.ecmp_select: exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    action hash_positions(bit<32> a, bit<32> b, bit<16> pa, bit<16> pb) {
        hash(meta.pos1, HashAlgorithm.crc16, (bit<32>)0, { a, b, hdr.ipv4.proto, pa, pb }, (bit<32>)BLOOM_ENTRIES);
        hash(meta.pos2, HashAlgorithm.crc32, (bit<32>)0, { a, b, hdr.ipv4.proto, pa, pb }, (bit<32>)BLOOM_ENTRIES);
    }
    apply {
        if (hdr.calc.isValid()) {
            calculate.apply();
            return;
        }
        if (!hdr.tcp.isValid()) {
            mark_to_drop(sm);
            exit;
        }
        hash(meta.ecmp_select, HashAlgorithm.crc16, (bit<1>)0,
             { hdr.ipv4.src, hdr.ipv4.dst, hdr.ipv4.proto, hdr.tcp.sport, hdr.tcp.dport }, (bit<16>)2);
        ecmp_nhop.apply();
        hdr.o.setValid();
        hdr.o.ecmp = (bit<16>)meta.ecmp_select;
        if (check_ports.apply().hit) {
            if (meta.dir == 0) {
                hash_positions(hdr.ipv4.src, hdr.ipv4.dst, hdr.tcp.sport, hdr.tcp.dport);
            } else {
                hash_positions(hdr.ipv4.dst, hdr.ipv4.src, hdr.tcp.dport, hdr.tcp.sport);
            }
            if (meta.dir == 0) {
                if (hdr.tcp.flags & 0x02 == 0x02) {
                    bloom1.write(meta.pos1, 1);
                    bloom2.write(meta.pos2, 1);
                }
            } else {
                bloom1.read(meta.v1, meta.pos1);
                bloom2.read(meta.v2, meta.pos2);
                if (meta.v1 != 1 || meta.v2 != 1) {
                    hdr.o.blocked = 1;
                }
            }
            hdr.o.pos1 = meta.pos1;
            hdr.o.pos2 = meta.pos2;
            hdr.o.dir = (bit<8>)meta.dir;
        }
        if (hdr.tcp.flags == 0xFF && meta.pass == 0) {
            meta.pass = hdr.o.pass + 1;
            resubmit_preserving_field_list(1);
        }
        hdr.o.itype = (bit<8>)sm.instance_type;
        hdr.o.pass = meta.pass;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.calc); pkt.emit(hdr.ipv4); pkt.emit(hdr.tcp); pkt.emit(hdr.o); }
}
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
