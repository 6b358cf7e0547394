// hostile: a table's action whose action data is an `int`: compiled, then every const entry was refused with
// "value 9 does not fit parameter 'port' ... of 0 bits" (exit 1, no place in the program)
// expect-exit: 2
// expect-message: {case}:16:16: error: action parameter 'port' of fwd has type int, which has no width
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
    action fwd(int port) { sm.egress_spec = (bit<9>)port; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { fwd; }
        const entries = { 1 : fwd(2); }
    }
    apply { t.apply(); }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
