// tables without default_action: a miss runs NoAction although NoAction is not in the action list
// (p4c adds it as @defaultonly); a keyless table without default runs nothing; action_run on a miss
// takes the switch's default label
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> port;
    bit<8> how;
}

struct headers_t { h_t h; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action to_port(bit<9> p) { sm.egress_spec = p; hdr.h.port = (bit<8>)p; }
    action mark() { hdr.h.how = hdr.h.how + 0x10; }
    table route {
        key = { hdr.h.k: exact; }
        actions = { to_port; }
    }
    table keyless {
        actions = { mark; }
    }
    apply {
        sm.egress_spec = 3;
        switch (route.apply().action_run) {
            to_port: { hdr.h.how = 1; }
            default: { hdr.h.how = 2; }
        }
        keyless.apply();
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
