/* A realistic v1model program: L2/L3 forwarding with ACL, ECN marking and checksums. */
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255
const bit<16> TYPE_IPV4 = 0x800;
const bit<16> TYPE_ARP = 0x0806;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;
const bit<16> ROCE_PORT = 16w4791;

typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;
type bit<16> nexthop_id_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<6>    dscp;
    bit<2>    ecn;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

header ipv4_options_t {
    varbit<320> options;
}

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length_;
    bit<16> checksum;
}

@controller_header("packet_in")
header packet_in_header_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header_union l4_t {
    tcp_t tcp;
    udp_t udp;
}

struct headers {
    packet_in_header_t packet_in;
    ethernet_t   ethernet;
    vlan_t[2]    vlan;
    ipv4_t       ipv4;
    ipv4_options_t ipv4_options;
    tcp_t        tcp;
    udp_t        udp;
}

enum bit<8> Color { GREEN = 0, YELLOW = 1, RED = 2 }
enum Verdict { ALLOW, DENY }

struct learn_digest_t {
    macAddr_t srcAddr;
    PortId_t  port;
}

struct metadata {
    bit<16>  l4_src;
    bit<16>  l4_dst;
    bit<14>  ecmp_select;
    bit<8>   meter_color;
    bool     is_roce;
    bit<32>  flow_id;
    nexthop_id_t nexthop;
    error    err;
}

error { IPv4OptionsNotSupported, BadIHL }

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    value_set<bit<16>>(4) custom_ethertypes;
    bit<8> depth = 0;

    state start {
        meta.is_roce = false;
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_ethernet;
            default: parse_ethernet;
        }
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x8100 &&& 0xEFFF: parse_vlan;
            TYPE_IPV4: parse_ipv4;
            custom_ethertypes: accept;
            0x0800 .. 0x0900: reject;
            default: accept;
        }
    }

    state parse_vlan {
        packet.extract(hdr.vlan.next);
        depth = depth + 1;
        transition select(hdr.vlan.last.etherType, depth) {
            (0x8100, 1): parse_vlan;
            (TYPE_IPV4, _): parse_ipv4;
            (_, _): accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl >= 5, error.BadIHL);
        transition select(hdr.ipv4.ihl) {
            5: dispatch_on_protocol;
            default: parse_ipv4_options;
        }
    }

    state parse_ipv4_options {
        packet.extract(hdr.ipv4_options, (bit<32>) (((bit<16>) hdr.ipv4.ihl - 5) * 32));
        transition dispatch_on_protocol;
    }

    state dispatch_on_protocol {
        transition select(hdr.ipv4.protocol, hdr.ipv4.fragOffset) {
            (PROTO_TCP, 0): parse_tcp;
            (PROTO_UDP, 0): parse_udp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        meta.l4_src = hdr.tcp.srcPort;
        meta.l4_dst = hdr.tcp.dstPort;
        transition accept;
    }

    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_src = hdr.udp.srcPort;
        meta.l4_dst = hdr.udp.dstPort;
        bit<16> dport = packet.lookahead<bit<16>>();
        meta.is_roce = hdr.udp.dstPort == ROCE_PORT;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    counter(1024, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets) acl_counter;
    meter(256, MeterType.bytes) flow_meter;
    register<bit<32>>(65536) flow_bytes;
    action_selector(HashAlgorithm.crc16, 32w1024, 32w14) ecmp_selector;
    bit<32> tmp;

    @name("drop") action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_nhop(macAddr_t dstAddr, PortId_t port) {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl |-| 1;
    }

    action set_ecmp_group(bit<14> ecmp_base, bit<14> ecmp_count) {
        hash(meta.ecmp_select,
             HashAlgorithm.crc16,
             ecmp_base,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
             ecmp_count);
    }

    action send_to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
    }

    action learn() {
        digest<learn_digest_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
    }

    action multicast(bit<16> grp) {
        standard_metadata.mcast_grp = grp;
    }

    action set_priority(bit<3> prio) {
        standard_metadata.priority = prio;
        hdr.ipv4.dscp = (bit<6>) prio << 3;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm @name("dst");
        }
        actions = {
            set_nhop;
            set_ecmp_group;
            send_to_cpu;
            @defaultonly drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
    }

    table ecmp_group {
        key = {
            meta.ecmp_select: exact;
            hdr.ipv4.srcAddr: selector;
            hdr.ipv4.dstAddr: selector;
        }
        actions = { set_nhop; drop; }
        implementation = ecmp_selector;
        size = 4096;
    }

    table acl {
        key = {
            standard_metadata.ingress_port: ternary;
            hdr.ethernet.etherType: ternary;
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.protocol: optional;
            meta.l4_dst: range;
        }
        actions = { drop; NoAction; send_to_cpu; }
        counters = acl_counter;
        const default_action = NoAction();
        const entries = {
            (_, 0x88cc, _, _, _): send_to_cpu();
            priority = 10: (1 &&& 0x1FF, _, 0x0A000001, 6, 22 .. 23): drop();
        }
    }

    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { set_nhop(); multicast; learn; }
        default_action = learn;
        support_timeout = true;
        @my_annotation entries = {
            0xFFFFFFFFFFFF: multicast(1);
        }
    }

    table qos {
        key = { hdr.ipv4.dscp: exact; hdr.ipv4.ecn: exact; }
        actions = { set_priority; }
        default_action = set_priority(0);
        const entries = {
            (46, 0): set_priority(7);
            (26, 2): set_priority(3);
        }
    }

    apply {
        port_counter.count((bit<32>) standard_metadata.ingress_port);
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 0) {
            flow_meter.execute_meter<bit<8>>((bit<32>) meta.ecmp_select, meta.meter_color);
            if (meta.meter_color == V1MODEL_METER_COLOR_RED) {
                drop();
                exit;
            }
            switch (ipv4_lpm.apply().action_run) {
                set_ecmp_group: {
                    ecmp_group.apply();
                }
                send_to_cpu:
                drop: {
                    return;
                }
                default: { }
            }
            if (!acl.apply().hit) {
                qos.apply();
            }
            flow_bytes.read(tmp, meta.flow_id);
            tmp = tmp + standard_metadata.packet_length;
            flow_bytes.write(meta.flow_id, tmp);
            bit<32> ones = ~32w0;
            int<8> signed = -8s1;
            meta.flow_id = (hdr.ipv4.srcAddr ^ hdr.ipv4.dstAddr) & ones >> 1;
            meta.flow_id[15:0] = hdr.ipv4.srcAddr[31:24] ++ 4w0 ++ hdr.ipv4.dstAddr[3:0];
            meta.nexthop = (nexthop_id_t) 16w7;
        } else if (hdr.ethernet.isValid()) {
            dmac.apply();
        } else {
            mark_to_drop(standard_metadata);
        }
        @atomic {
            meta.is_roce = meta.is_roce || (meta.l4_dst == 4791 ? true : false);
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    const bit<19> ECN_THRESHOLD = 10;

    action mark_ecn() {
        hdr.ipv4.ecn = 3;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0 && standard_metadata.enq_qdepth >= ECN_THRESHOLD) {
            mark_ecn();
        }
        if (standard_metadata.instance_type == 1) {
            truncate(64);
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.tcp.isValid(),
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol, hdr.ipv4.totalLen - 20,
              hdr.tcp.srcPort, hdr.tcp.dstPort, hdr.tcp.seqNo, hdr.tcp.ackNo, hdr.tcp.dataOffset, hdr.tcp.res,
              hdr.tcp.flags, hdr.tcp.window, hdr.tcp.urgentPtr },
            hdr.tcp.checksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.vlan);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
