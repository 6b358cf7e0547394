// Counters of each unit (packets, bytes, both), indirect and direct: P4Runtime reads give only the counts a
// counter's unit has, as PI does.
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
    counter(4, CounterType.packets) pkts;
    counter(4, CounterType.bytes) octets;
    counter(4, CounterType.packets_and_bytes) both;
    direct_counter(CounterType.packets) hits;

    action fwd(bit<9> port) { sm.egress_spec = port; }
    table l2 {
        key = { hdr.eth.dst: exact; }
        actions = { fwd; NoAction; }
        counters = hits;
        default_action = NoAction();
    }
    apply {
        pkts.count(0);
        octets.count(0);
        both.count(0);
        l2.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
