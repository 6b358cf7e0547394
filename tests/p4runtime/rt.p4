// A program that exercises every P4Runtime entity the server supports: tables of each match kind, an action
// selector, indirect and direct counters and meters, a register, a digest and packet_in/packet_out headers.
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

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
    packet_out_t pkt_out;
    packet_in_t  pkt_in;
    ethernet_t   eth;
    ipv4_t       ipv4;
}

struct learn_t {
    bit<48> src;
    bit<9>  port;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: cpu;
            default: eth;
        }
    }
    state cpu {
        pkt.extract(hdr.pkt_out);
        transition eth;
    }
    state eth {
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
    counter(16, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets_and_bytes) lpm_counter;
    meter(16, MeterType.bytes) port_meter;
    register<bit<32>>(8) last_len;
    action_selector(HashAlgorithm.crc16, 32w64, 32w10) ecmp_sel;

    action drop() { mark_to_drop(sm); }
    action fwd(bit<48> dmac, bit<9> port) {
        hdr.eth.dst = dmac;
        sm.egress_spec = port;
    }
    action to_cpu() { sm.egress_spec = CPU_PORT; }
    action learn() { digest<learn_t>(1, {hdr.eth.src, sm.ingress_port}); }
    action set_port(bit<9> port) { sm.egress_spec = port; }

    table l2 {
        key = { hdr.eth.dst: exact; }
        actions = { fwd; to_cpu; learn; drop; NoAction; }
        default_action = NoAction();
        size = 4;
        support_timeout = true;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { fwd; drop; NoAction; }
        counters = lpm_counter;
        default_action = NoAction();
    }
    table acl {
        key = { hdr.ipv4.srcAddr: ternary; hdr.ipv4.protocol: range; hdr.eth.src: optional; }
        actions = { drop; to_cpu; NoAction; }
        default_action = NoAction();
    }
    table ecmp {
        key = { hdr.ipv4.dstAddr: exact; hdr.ipv4.srcAddr: selector; }
        actions = { set_port; }
        implementation = ecmp_sel;
    }
    apply {
        if (hdr.pkt_out.isValid()) {
            sm.egress_spec = hdr.pkt_out.egress_port;
            hdr.pkt_out.setInvalid();
            exit;
        }
        port_counter.count((bit<32>) sm.ingress_port);
        last_len.write((bit<32>) sm.ingress_port, sm.packet_length);
        l2.apply();
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            ecmp.apply();
            acl.apply();
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == CPU_PORT) {
            hdr.pkt_in.setValid();
            hdr.pkt_in.ingress_port = sm.ingress_port;
        }
    }
}

control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.pkt_in);
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
