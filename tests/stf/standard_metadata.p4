// ingress_port, packet_length (bytes received), egress_port in egress; BMv2 zeroes egress_spec before egress
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> ingress_port;
    bit<32> length;
    bit<16> egress_port;
    bit<16> spec;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.ingress_port = (bit<16>)sm.ingress_port;
        hdr.h.length = sm.packet_length;
        sm.egress_spec = sm.ingress_port + 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.egress_port = (bit<16>)sm.egress_port;
        hdr.h.spec = (bit<16>)sm.egress_spec;
    }
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
