/*
 * fabric.p4 — a leaf/spine switch for RoCEv2 AI fabrics (P4-16, v1model / BMv2 simple_switch).
 *
 * What one packet goes through:
 *
 *   parser           Ethernet -> [802.1Q] -> IPv4 -> UDP -> [RoCEv2 BTH when UDP dport is 4791]
 *                    (anything else, e.g. ARP or LLDP, stops after the last header we know and is bridged)
 *   verify checksum  the IPv4 header checksum (a bad one sets standard_metadata.checksum_error)
 *   ingress          rx counter -> drop malformed -> traffic class (priority) -> routing or bridging
 *                      routing:  TTL check, ipv4_lpm (dst IPv4 -> next-hop id), nexthop (id -> port + MACs,
 *                                ECMP groups chosen by a CRC-32 over the 5-tuple, or a load-balancing group),
 *                                a load-balancing group's member by the switch's routing mode (lb_config: ECMP
 *                                on the 5-tuple or with the BTH destination QP, flowlets, queue-aware adaptive,
 *                                per-packet spraying), TTL decrement
 *                      bridging: l2_forward (dst MAC -> port), flood via multicast group 1 on a miss
 *   traffic manager  queue (egress port, standard_metadata.priority); PFC works per priority there
 *   egress           the port's queue depth published for adaptive routing (port_load),
 *                    ECN marking from the queue depth at enqueue (off / step / RED per port and priority),
 *                    flood pruning, tx counter
 *   compute checksum the IPv4 header checksum again (TTL and ECN changed)
 *   deparser         the parsed headers in order; the rest of the packet (RETH/AETH, payload, ICRC) follows as is
 *
 * Every port is a routed port: all IPv4 is routed, whatever its destination MAC (hosts point their default route
 * at the switch). RoCEv2's ICRC masks TTL, the ToS byte and the IPv4 checksum, so the rewrites here keep it valid.
 *
 * Built with the v1model of BMv2 (V1MODEL_VERSION 20180101 or later). Under rocelab (which defines ROCELAB), the
 * ECN thresholds can also be given in bytes using the enq_qdepth_bytes extension of standard_metadata_t.
 */
#include <core.p4>
#include <v1model.p4>

/* ------------------------------------------------------------------------------------------------------------ */
/* Constants                                                                                                    */
/* ------------------------------------------------------------------------------------------------------------ */

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_VLAN = 0x8100;
const bit<8>  IP_PROTO_UDP   = 17;
const bit<16> UDP_PORT_ROCEV2 = 4791;   // IANA port of RoCEv2

const bit<2> ECN_NOT_ECT = 0;
const bit<2> ECN_ECT1    = 1;
const bit<2> ECN_ECT0    = 2;
const bit<2> ECN_CE      = 3;

/*
 * Default traffic classes when the control plane installs nothing in dscp_to_priority. They follow NVIDIA's
 * RoCE defaults (Onyx `roce lossless`, trust L3: RoCE on switch-priority 3, CNP on switch-priority 6;
 * ConnectX marks RoCE data with DSCP 26 and CNPs with DSCP 48 (mlx5 cnp_dscp default)). Everything else is 0.
 */
const bit<6> DSCP_ROCE_DATA = 26;
const bit<6> DSCP_CNP       = 48;
const bit<3> PRIO_ROCE_DATA = 3;
const bit<3> PRIO_CNP       = 6;
const bit<3> PRIO_DEFAULT   = 0;

const bit<32> PORT_CELLS  = 512;        // ports are bit<9>: one counter cell per port number
const bit<16> FLOOD_GROUP = 1;          // multicast group the control plane fills with the bridged ports

const bit<32> PKT_INSTANCE_TYPE_REPLICATION = 5;   // BMv2: a copy made by the multicast engine

// ecn_config modes (kept in metadata between the table and the marking code)
const bit<2> ECN_MODE_OFF  = 0;
const bit<2> ECN_MODE_STEP = 1;
const bit<2> ECN_MODE_RED  = 2;

/*
 * Load balancing over a group of equal-cost next hops (lb_config's mode, set per switch by the control plane):
 *   ECMP      the member is a hash of the 5-tuple (and the switch's seed) modulo the group size: per flow;
 *   ECMP_QP   the same hash also covering the RoCE destination QP of the BTH (QPs between two hosts that share
 *             a UDP source port still spread);
 *   FLOWLET   a flow's packets keep their member while they come closer together than the flowlet gap; after a
 *             longer gap (a flowlet boundary) the flow takes a random member (LetFlow, NSDI 2017);
 *   ADAPTIVE  as FLOWLET, but at a boundary the member whose egress port published the shortest queue
 *             (port_load, written by egress) wins, ties broken from a random start (CONGA-like, local only);
 *   SPRAY     every packet a random member (per-packet spraying: out-of-order arrival is the receiver's problem).
 * Hash algorithms: v1model's crc32 / crc16 as BMv2 computes them, or crc32_custom / crc16_custom whose
 * polynomial the control plane sets per switch (different polynomials per tier avoid hash polarization).
 */
const bit<3> LB_ECMP     = 0;
const bit<3> LB_ECMP_QP  = 1;
const bit<3> LB_FLOWLET  = 2;
const bit<3> LB_ADAPTIVE = 3;
const bit<3> LB_SPRAY    = 4;

const bit<2> LB_CRC32        = 0;
const bit<2> LB_CRC16        = 1;
const bit<2> LB_CRC32_CUSTOM = 2;
const bit<2> LB_CRC16_CUSTOM = 3;

#define LB_MAX_MEMBERS 16               // members per load-balancing group (the adaptive scan is unrolled)
const bit<32> LB_MEMBER_CELLS = 16384;  // lb_member_port cells: 1,024 groups x LB_MAX_MEMBERS
const bit<32> FLOWLET_CELLS = 4096;     // flowlet table: flows hash into these cells

/* ------------------------------------------------------------------------------------------------------------ */
/* Headers                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;

header ethernet_t {
    mac_addr_t dstAddr;
    mac_addr_t srcAddr;
    bit<16>    etherType;
}

// 802.1Q tag: PCP is the 802.1p priority PFC pauses on when a network trusts L2.
header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;        // traffic class set by the sender (RoCE data 26, CNP 48 by default)
    bit<2>      ecn;         // 00 not ECT, 01 ECT(1), 10 ECT(0), 11 CE (congestion experienced)
    bit<16>     totalLen;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     fragOffset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdrChecksum;
    ipv4_addr_t srcAddr;
    ipv4_addr_t dstAddr;
}

header udp_t {
    bit<16> srcPort;         // for RoCEv2: flow entropy derived from the QP numbers
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;        // RoCEv2 senders put 0 here (no UDP checksum)
}

// InfiniBand Base Transport Header (12 bytes), as carried by RoCEv2.
header bth_t {
    bit<8>  opcode;          // e.g. 0x04 RC SEND only, 0x0A RC WRITE only, 0x11 ACK, 0x81 CNP
    bit<1>  solicited;
    bit<1>  migReq;
    bit<2>  padCount;
    bit<4>  tver;
    bit<16> pkey;
    bit<1>  fecn;
    bit<1>  becn;
    bit<6>  resv6;
    bit<24> destQP;
    bit<1>  ackReq;
    bit<7>  resv7;
    bit<24> psn;
}

struct headers_t {
    ethernet_t ethernet;
    vlan_t     vlan;
    ipv4_t     ipv4;
    udp_t      udp;
    bth_t      bth;
}

struct metadata_t {
    bit<16> nexthop_id;      // result of ipv4_lpm, key of nexthop
    bit<2>  ecn_mode;        // result of ecn_config
    bit<32> ecn_depth;       // the queue depth the thresholds are compared with (packets or bytes)
    bit<32> ecn_kmin;        // step: the threshold; RED: Kmin
    bit<32> ecn_kmax;        // RED: Kmax
    bit<32> ecn_pmax;        // RED: marking probability at Kmax, in units of 1/65536
    bit<16> lb_group;        // set_lb_group: the load-balancing group of the next hop (0: none)
    bit<16> lb_size;         // ... and its number of members
    bit<16> lb_index;        // the member chosen (0 .. lb_size - 1)
    bit<3>  lb_mode;         // lb_config: LB_ECMP ... LB_SPRAY
    bit<2>  lb_algo;         // lb_config: LB_CRC32 ... LB_CRC16_CUSTOM
    bit<32> lb_seed;         // lb_config: hashed with the flow, per switch
    bit<32> lb_gap;          // lb_config: flowlet gap in microseconds
    bit<1>  publish_load;    // port_load_config: egress publishes the port's load (the adaptive mode reads it)
}

/* The adaptive mode's congestion signal, written by egress and read by ingress (shared registers), per port:
 * the depth in bytes (packets without ROCELAB) of the queue the last packet sent left behind, and the bytes
 * sent in windows of 2^LB_WINDOW_SHIFT microseconds (the current one, port_epoch, and the one before), a
 * utilization estimate like CONGA's DRE: a port busy with one line-rate flow has no queue but is not free. */
#define LB_WINDOW_SHIFT 2
register<bit<32>>(PORT_CELLS) port_qdepth;
register<bit<32>>(PORT_CELLS) port_epoch;
register<bit<32>>(PORT_CELLS) port_bytes;
register<bit<32>>(PORT_CELLS) port_prev_bytes;

/* ------------------------------------------------------------------------------------------------------------ */
/* Parser                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

parser FabricParser(packet_in packet,
                    out headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        transition parse_ethernet;
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_vlan {
        packet.extract(hdr.vlan);
        transition select(hdr.vlan.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        // Only a plain 20-byte header (no options) of a first or only fragment is followed by the UDP header.
        // Packets with options stop here; ingress drops them (RoCE never uses IPv4 options).
        transition select(hdr.ipv4.ihl, hdr.ipv4.fragOffset, hdr.ipv4.protocol) {
            (4w5, 13w0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dstPort) {
            UDP_PORT_ROCEV2: parse_bth;
            default: accept;
        }
    }

    state parse_bth {
        packet.extract(hdr.bth);
        transition accept;
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Checksum verification                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */

control FabricVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Load-balancing helpers (macros: v1model's hash() takes its algorithm as a compile-time constant)              */
/* ------------------------------------------------------------------------------------------------------------ */

#define LB_FIVE_TUPLE meta.lb_seed, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, hdr.udp.srcPort, hdr.udp.dstPort
#define LB_WITH_QP LB_FIVE_TUPLE, hdr.bth.destQP

// out = base + hash(fields) % max with the switch's algorithm (lb_config's algo).
#define LB_HASH(out, base, fields, max) \
    if (meta.lb_algo == LB_CRC32) { hash(out, HashAlgorithm.crc32, base, { fields }, max); } \
    else if (meta.lb_algo == LB_CRC16) { hash(out, HashAlgorithm.crc16, base, { fields }, max); } \
    else if (meta.lb_algo == LB_CRC32_CUSTOM) { hash(out, HashAlgorithm.crc32_custom, base, { fields }, max); } \
    else { hash(out, HashAlgorithm.crc16_custom, base, { fields }, max); }

// One step of the adaptive scan: member (start + i) mod size, taken when its port's load is the lowest yet
// (queue depth plus the bytes it sent in the last complete window, or in the current one when more: a flow
// that just moved there counts at once, so the next boundary does not herd onto the same port).
#define LB_CANDIDATE(i) \
    if (i < meta.lb_size) { \
        cand = start + i; \
        if (cand >= meta.lb_size) { cand = cand - meta.lb_size; } \
        lb_member_port.read(cport, (bit<32>) meta.lb_group * LB_MAX_MEMBERS + (bit<32>) cand); \
        port_qdepth.read(cload, (bit<32>) cport); \
        port_epoch.read(cepoch, (bit<32>) cport); \
        if (cepoch == epoch) { \
            port_prev_bytes.read(cbytes, (bit<32>) cport); \
            port_bytes.read(cnow, (bit<32>) cport); \
            if (cnow > cbytes) { cbytes = cnow; } \
        } \
        else if (cepoch + 1 == epoch) { port_bytes.read(cbytes, (bit<32>) cport); } \
        else { cbytes = 0; } \
        cload = cload + cbytes; \
        if (cload < best) { best = cload; meta.lb_index = cand; } \
    }

/* ------------------------------------------------------------------------------------------------------------ */
/* Ingress                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

control FabricIngress(inout headers_t hdr,
                      inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {

    // Every received frame, counted before any drop decision (index = ingress port).
    counter(PORT_CELLS, CounterType.packets_and_bytes) rx_port_counter;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    /* --- Traffic class ------------------------------------------------------------------------------------ */

    // The priority selects the egress queue (and the PFC class) in the traffic manager.
    action set_priority(bit<3> prio) {
        standard_metadata.priority = prio;
    }

    // 802.1p: a tagged frame's class is its PCP unless the control plane maps it elsewhere.
    action priority_from_pcp() {
        standard_metadata.priority = hdr.vlan.pcp;
    }

    table pcp_to_priority {
        key = { hdr.vlan.pcp: exact; }
        actions = { set_priority; priority_from_pcp; }
        default_action = priority_from_pcp();
        size = 8;
    }

    // Trust L3: untagged IPv4 is classified by DSCP. A miss uses the built-in RoCE defaults (see the constants).
    table dscp_to_priority {
        key = { hdr.ipv4.dscp: exact; }
        actions = { set_priority; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    /* --- Routing ------------------------------------------------------------------------------------------ */

    action set_nexthop_id(bit<16> nexthop_id) {
        meta.nexthop_id = nexthop_id;
    }

    // Longest prefix match on the destination address; a miss has no route and is dropped.
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { set_nexthop_id; drop; }
        default_action = drop();
        size = 16384;
    }

    // One next hop: the port to send on and the Ethernet addresses of that link. TTL is decremented here, so
    // only packets that are actually forwarded lose a hop.
    action set_nexthop(bit<9> port, mac_addr_t dmac, mac_addr_t smac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dstAddr = dmac;
        hdr.ethernet.srcAddr = smac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    // ECMP: a next-hop id maps either to one member (a single next hop) or to a group of members; within a
    // group the member is picked by CRC-32 over the 5-tuple. RoCEv2 flows between the same two hosts differ
    // only in the UDP source port (derived from the QP numbers), so it must be part of the hash. CRC-32 rather
    // than CRC-16: CRC-16/ARC's low bits are poorly mixed when only the source port varies (256 consecutive
    // ports land on 2 of 8 members), while CRC-32 spreads them evenly.
    action_selector(HashAlgorithm.crc32, 32w4096, 32w32) ecmp_selector;

    // A next hop that is a load-balancing group: the member is chosen below by the switch's routing mode.
    action set_lb_group(bit<16> group, bit<16> size) {
        meta.lb_group = group;
        meta.lb_size = size;
    }

    table nexthop {
        key = {
            meta.nexthop_id: exact;
            hdr.ipv4.srcAddr: selector;
            hdr.ipv4.dstAddr: selector;
            hdr.ipv4.protocol: selector;
            hdr.udp.srcPort: selector;
            hdr.udp.dstPort: selector;
        }
        actions = { set_nexthop; set_lb_group; drop; }
        default_action = drop();
        implementation = ecmp_selector;
        size = 4096;
    }

    /* --- Load balancing groups (see LB_ECMP ... LB_SPRAY) ------------------------------------------------- */

    // The switch's routing mode: a keyless table whose default action the control plane sets.
    action set_lb_mode(bit<3> mode, bit<2> algo, bit<32> seed, bit<32> flowlet_gap_us) {
        meta.lb_mode = mode;
        meta.lb_algo = algo;
        meta.lb_seed = seed;
        meta.lb_gap = flowlet_gap_us;
    }

    table lb_config {
        key = { }
        actions = { set_lb_mode; }
        default_action = set_lb_mode(LB_ECMP, LB_CRC32, 0, 0);
        size = 1;
    }

    // (group, member index) -> the next hop.
    table lb_member {
        key = {
            meta.lb_group: exact;
            meta.lb_index: exact;
        }
        actions = { set_nexthop; drop; }
        default_action = drop();
        size = 16384;
    }

    // The egress port of each member (cell group x LB_MAX_MEMBERS + index), for the adaptive mode's comparison.
    register<bit<9>>(LB_MEMBER_CELLS) lb_member_port;
    // Flowlets: the last arrival (microseconds) and the member (index + 1; 0 = none yet) of each flow cell.
    register<bit<32>>(FLOWLET_CELLS) flowlet_time;
    register<bit<16>>(FLOWLET_CELLS) flowlet_member;


    /* --- Bridging (non-IPv4: ARP, LLDP, ...) ------------------------------------------------------------- */

    action l2_output(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    // Unknown destinations (and broadcast) are flooded to multicast group 1; egress drops the copy that would
    // go back out of the ingress port. Without group 1 configured a flood goes nowhere.
    action flood() {
        standard_metadata.mcast_grp = FLOOD_GROUP;
    }

    table l2_forward {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { l2_output; flood; drop; }
        default_action = flood();
        size = 4096;
    }

    apply {
        rx_port_counter.count((bit<32>) standard_metadata.ingress_port);

        if (standard_metadata.parser_error != error.NoError) {
            // Truncated headers: never forward a frame whose headers we could not read.
            drop();
        } else {
            // Traffic class: tagged frames by PCP (trust L2), untagged IPv4 by DSCP (trust L3), the rest 0.
            if (hdr.vlan.isValid()) {
                pcp_to_priority.apply();
            } else if (hdr.ipv4.isValid()) {
                if (!dscp_to_priority.apply().hit) {
                    if (hdr.ipv4.dscp == DSCP_ROCE_DATA) {
                        standard_metadata.priority = PRIO_ROCE_DATA;
                    } else if (hdr.ipv4.dscp == DSCP_CNP) {
                        standard_metadata.priority = PRIO_CNP;
                    } else {
                        standard_metadata.priority = PRIO_DEFAULT;
                    }
                }
            }

            if (!hdr.ipv4.isValid()) {
                l2_forward.apply();
            } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.version != 4 || hdr.ipv4.ihl != 5) {
                // Corrupt header, or IPv4 options (not routed by this fabric).
                drop();
            } else if (hdr.ipv4.ttl <= 1) {
                // The hop limit is used up (a router would send ICMP time exceeded; this switch has no CPU port).
                drop();
            } else if (ipv4_lpm.apply().hit) {
                nexthop.apply();
                if (meta.lb_size != 0) {
                    lb_config.apply();
                    if (meta.lb_mode == LB_ECMP) {
                        LB_HASH(meta.lb_index, 16w0, LB_FIVE_TUPLE, meta.lb_size)
                    } else if (meta.lb_mode == LB_ECMP_QP) {
                        LB_HASH(meta.lb_index, 16w0, LB_WITH_QP, meta.lb_size)
                    } else if (meta.lb_mode == LB_SPRAY) {
                        random(meta.lb_index, 16w0, meta.lb_size - 1);
                    } else {
                        // flowlets (FLOWLET and ADAPTIVE): the flow's cell remembers its member and last arrival
                        bit<32> cell;
                        LB_HASH(cell, 32w0, LB_FIVE_TUPLE, FLOWLET_CELLS)
                        bit<32> now = (bit<32>) standard_metadata.ingress_global_timestamp;
                        bit<32> last;
                        bit<16> member;
                        flowlet_time.read(last, cell);
                        flowlet_member.read(member, cell);
                        if (member == 0 || member > meta.lb_size || now - last > meta.lb_gap) {
                            // a flowlet boundary: the gap lets the old path drain, so a new path cannot reorder
                            if (meta.lb_mode == LB_FLOWLET) {
                                random(meta.lb_index, 16w0, meta.lb_size - 1);
                            } else {
                                bit<16> start;
                                random(start, 16w0, meta.lb_size - 1);
                                bit<32> best = 0xFFFFFFFF;
                                bit<16> cand;
                                bit<9> cport;
                                bit<32> cload;
                                bit<32> cepoch;
                                bit<32> cbytes;
                                bit<32> cnow;
                                bit<32> epoch = (bit<32>) (standard_metadata.ingress_global_timestamp >> LB_WINDOW_SHIFT);
                                LB_CANDIDATE(0) LB_CANDIDATE(1) LB_CANDIDATE(2) LB_CANDIDATE(3)
                                LB_CANDIDATE(4) LB_CANDIDATE(5) LB_CANDIDATE(6) LB_CANDIDATE(7)
                                LB_CANDIDATE(8) LB_CANDIDATE(9) LB_CANDIDATE(10) LB_CANDIDATE(11)
                                LB_CANDIDATE(12) LB_CANDIDATE(13) LB_CANDIDATE(14) LB_CANDIDATE(15)
                            }
                            flowlet_member.write(cell, meta.lb_index + 1);
                        } else {
                            meta.lb_index = member - 1;
                        }
                        flowlet_time.write(cell, now);
                    }
                    lb_member.apply();
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Egress                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

control FabricEgress(inout headers_t hdr,
                     inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {

    // Frames leaving each port (index = egress port).
    counter(PORT_CELLS, CounterType.packets_and_bytes) tx_port_counter;
    // Packets this switch marked CE, per egress port.
    counter(PORT_CELLS, CounterType.packets) ecn_marked_counter;

    action ecn_off() {
        meta.ecn_mode = ECN_MODE_OFF;
    }

    // Step marking (DCTCP style): mark when the queue held at least `threshold` packets when this one arrived.
    action ecn_step_packets(bit<32> threshold) {
        meta.ecn_mode = ECN_MODE_STEP;
        meta.ecn_depth = (bit<32>) standard_metadata.enq_qdepth;
        meta.ecn_kmin = threshold;
    }

    // RED-like marking (DCQCN's congestion point): depth <= kmin never, depth > kmax always, in between with
    // probability pmax/65536 * (depth - kmin) / (kmax - kmin). Depths in packets.
    action ecn_red_packets(bit<32> kmin, bit<32> kmax, bit<32> pmax) {
        meta.ecn_mode = ECN_MODE_RED;
        meta.ecn_depth = (bit<32>) standard_metadata.enq_qdepth;
        meta.ecn_kmin = kmin;
        meta.ecn_kmax = kmax;
        meta.ecn_pmax = pmax;
    }

#ifdef ROCELAB
    // The same two modes with thresholds in bytes (rocelab's enq_qdepth_bytes extension; real switches
    // configure Kmin/Kmax in bytes, e.g. 150 KB / 1500 KB in NVIDIA's RoCE defaults).
    action ecn_step_bytes(bit<32> threshold) {
        meta.ecn_mode = ECN_MODE_STEP;
        meta.ecn_depth = standard_metadata.enq_qdepth_bytes;
        meta.ecn_kmin = threshold;
    }

    action ecn_red_bytes(bit<32> kmin, bit<32> kmax, bit<32> pmax) {
        meta.ecn_mode = ECN_MODE_RED;
        meta.ecn_depth = standard_metadata.enq_qdepth_bytes;
        meta.ecn_kmin = kmin;
        meta.ecn_kmax = kmax;
        meta.ecn_pmax = pmax;
    }
#endif

    // Per (egress port, priority): how to mark. No entry = no marking.
    table ecn_config {
        key = {
            standard_metadata.egress_port: exact;
            standard_metadata.priority: exact;
        }
        actions = {
            ecn_off;
            ecn_step_packets;
            ecn_red_packets;
#ifdef ROCELAB
            ecn_step_bytes;
            ecn_red_bytes;
#endif
        }
        default_action = ecn_off();
        size = 4096;
    }

    // Whether egress publishes the port load the adaptive mode reads: the control plane turns it on with that
    // mode. Off, a packet leaves no state behind in egress (and rocelab-switch's flow cache can serve its flow).
    action publish_port_load() {
        meta.publish_load = 1;
    }
    table port_load_config {
        actions = { publish_port_load; NoAction; }
        default_action = NoAction();
    }

    action mark_ce() {
        hdr.ipv4.ecn = ECN_CE;
        ecn_marked_counter.count((bit<32>) standard_metadata.egress_port);
    }

    apply {
        if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_REPLICATION
                && standard_metadata.egress_port == standard_metadata.ingress_port) {
            // A flooded copy must not go back to where the frame came from.
            mark_to_drop(standard_metadata);
        } else {
            // Only ECN-capable packets can be marked; CE packets are already marked, not-ECT ones must not be.
            if (hdr.ipv4.isValid() && (hdr.ipv4.ecn == ECN_ECT0 || hdr.ipv4.ecn == ECN_ECT1)) {
                ecn_config.apply();
                if (meta.ecn_mode == ECN_MODE_STEP) {
                    if (meta.ecn_depth >= meta.ecn_kmin) {
                        mark_ce();
                    }
                } else if (meta.ecn_mode == ECN_MODE_RED) {
                    if (meta.ecn_depth > meta.ecn_kmax) {
                        mark_ce();
                    } else if (meta.ecn_depth > meta.ecn_kmin) {
                        // Mark iff r / 65536 < pmax / 65536 * (depth - kmin) / (kmax - kmin), with r uniform
                        // in [0, 65535], cross-multiplied to avoid a division (64-bit products cannot overflow).
                        bit<16> r;
                        random(r, 16w0, 16w0xFFFF);
                        if ((bit<64>) r * (bit<64>) (meta.ecn_kmax - meta.ecn_kmin)
                                < (bit<64>) meta.ecn_pmax * (bit<64>) (meta.ecn_depth - meta.ecn_kmin)) {
                            mark_ce();
                        }
                    }
                }
            }
            tx_port_counter.count((bit<32>) standard_metadata.egress_port);
            port_load_config.apply();
        }
        if (meta.publish_load == 1) {  // set only in the branch above that sends the packet
            // the congestion signal of adaptive routing: what this packet left behind in its queue, and the
            // bytes of the port's current utilization window (a new window keeps the last one's total)
            bit<32> port = (bit<32>) standard_metadata.egress_port;
#ifdef ROCELAB
            port_qdepth.write(port, standard_metadata.deq_qdepth_bytes);
#else
            port_qdepth.write(port, (bit<32>) standard_metadata.deq_qdepth);
#endif
            bit<32> epoch = (bit<32>) (standard_metadata.egress_global_timestamp >> LB_WINDOW_SHIFT);
            bit<32> last_epoch;
            bit<32> sent;
            port_epoch.read(last_epoch, port);
            port_bytes.read(sent, port);
            if (last_epoch != epoch) {
                if (last_epoch + 1 == epoch) {
                    port_prev_bytes.write(port, sent);
                } else {
                    port_prev_bytes.write(port, 0);
                }
                port_epoch.write(port, epoch);
                sent = 0;
            }
            port_bytes.write(port, sent + standard_metadata.packet_length);
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Checksum update and deparser                                                                                 */
/* ------------------------------------------------------------------------------------------------------------ */

control FabricComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // TTL and ECN may have changed; the UDP checksum of RoCEv2 is 0 and does not cover them anyway.
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control FabricDeparser(packet_out packet, in headers_t hdr) {
    apply {
        // Invalid headers are skipped; the unparsed rest of the packet follows the last emitted header.
        packet.emit(hdr.ethernet);
        packet.emit(hdr.vlan);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
    }
}

V1Switch(FabricParser(),
         FabricVerifyChecksum(),
         FabricIngress(),
         FabricEgress(),
         FabricComputeChecksum(),
         FabricDeparser()) main;
