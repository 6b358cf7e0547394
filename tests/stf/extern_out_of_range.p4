// BMv2 (targets/simple_switch/primitives.cpp) on indices out of range: register.read leaves its destination
// unchanged, meter.execute_meter leaves its color unchanged, counter.count counts nothing (each only logs an
// error). truncate(): the smallest length of all the calls wins (bm_sim Packet::truncate), and it does not follow
// multicast replicas (new packets).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> idx;
    bit<8> t;
    bit<8> r;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> r;
    bit<2> c;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) reg;
    meter(4, MeterType.packets) m;
    counter(4, CounterType.packets) cnt;
    apply {
        meta.r = 0x55;
        reg.read(meta.r, (bit<32>)hdr.h.idx);
        meta.c = 3;
        m.execute_meter((bit<32>)hdr.h.idx, meta.c);
        cnt.count((bit<32>)hdr.h.idx);
        hdr.h.r = meta.r;
        hdr.h.c = (bit<8>)meta.c;
        if (hdr.h.t == 1) {
            truncate(6);
            truncate(4);
            truncate(5);
        }
        if (hdr.h.t == 2) {
            truncate(3);
            sm.mcast_grp = 1;
        } else {
            sm.egress_spec = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
