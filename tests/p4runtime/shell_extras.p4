// What p4runtime-shell can reach that rt.p4 lacks: a direct meter with a direct counter on one table, an indirect
// meter, a plain action profile (members, no groups of a selector), a clone session target, a register.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> etherType;
}

struct headers_t { ethernet_t eth; }
struct meta_t { bit<8> color; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_meter<bit<8>>(MeterType.bytes) police;
    direct_counter(CounterType.packets) policed;
    meter(8, MeterType.packets) port_meter;
    register<bit<16>>(4) seen;
    action_profile(32w16) nexthops;

    action color() { police.read(meta.color); }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    action mirror(bit<32> session) { clone(CloneType.I2E, session); }

    table policer {
        key = { hdr.eth.src: exact; }
        actions = { color; NoAction; }
        meters = police;
        counters = policed;
        default_action = NoAction();
    }
    table next {
        key = { hdr.eth.dst: exact; }
        actions = { set_port; }
        implementation = nexthops;
    }
    table mirrors {
        key = { hdr.eth.etherType: exact; }
        actions = { mirror; NoAction; }
        default_action = NoAction();
        size = 2;
    }
    apply {
        policer.apply();
        port_meter.execute_meter((bit<32>) sm.ingress_port, meta.color);
        seen.write((bit<32>) sm.ingress_port, hdr.eth.etherType);
        next.apply();
        mirrors.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
