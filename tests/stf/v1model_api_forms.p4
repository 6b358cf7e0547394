// v1model API forms of the newest v1model.p4: register<T, I>, counter<I>, meter<I> (V1MODEL_VERSION 20200408),
// @min_width on an instance (p4c's P4-14 conversions write it), the deprecated mark_to_drop() and Checksum16,
// log_msg with and without data, assume, a HashAlgorithm.random hash with max 1 (always base)
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  b;
    bit<8>  reg_old;
    bit<16> csum;
    bit<8>  color;
    bit<8>  rnd;
}

struct headers_t {
    h_t h;
}

struct meta_t {
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
    @min_width(32) counter<bit<2>>(4, CounterType.packets_and_bytes) seen;
    register<bit<8>, bit<2>>(4) last_a;
    meter<bit<2>>(4, MeterType.packets) m;
    Checksum16() ck;
    apply {
        seen.count(1);
        last_a.read(hdr.h.reg_old, 2);
        last_a.write(2, hdr.h.a);
        m.execute_meter(3, hdr.h.color);
        hdr.h.csum = ck.get({ hdr.h.a, hdr.h.b });
        hash(hdr.h.rnd, HashAlgorithm.random, 8w42, { hdr.h.a }, 8w1);
        log_msg("plain message");
        log_msg("a={} b={}", { hdr.h.a, hdr.h.b });
        assume(hdr.h.op != 0xEE);
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {
            mark_to_drop();
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
