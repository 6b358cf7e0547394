// hostile: as action_data_int, with a directional parameter the actions list binds: the check skipped as many
// action-data parameters as the list had arguments, so this one compiled and its P4Info parameter had no width
// expect-exit: 2
// expect-message: {case}:16:32: error: action parameter 'port' of fwd has type int, which has no width
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    action fwd(inout bit<8> x, int port) { sm.egress_spec = (bit<9>)port; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { fwd(hdr.h.a); }
        const entries = { 1 : fwd(2); }
    }
    apply { t.apply(); }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
