// The grammar's contextual keywords (apply, key, actions, state, entries, type, priority, list) as names of
// states, actions, parameters, tables and variables: a state named state, actions named priority and entries
// in a table named actions with const entries, variables named type, apply and list.
// productions: nonTypeName name actionRef member prefixedNonTypeName stateExpression
#include "include/harness.p4"
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition state; }
    state state { transition accept; }
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action priority(bit<8> key) { hdr.h.c = key; }
    action entries(bit<8> type) { hdr.h.d = type; }
    table actions {
        key = { hdr.h.a : exact; }
        actions = { priority; entries; }
        const entries = {
            1 : priority(5);
            2 : entries(6);
        }
    }
    apply {
        bit<8> type = 1;
        bit<8> apply = 2;
        bit<8> list = 3;
        type = type + apply + list;
        hdr.h.b = type;
        actions.apply();
        sm.egress_spec = 1;
    }
}
V1Switch(P(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
