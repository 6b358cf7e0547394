// hostile: @max_group_size(10^20) on an action selector: a protobuf traceback writing
// the P4Info (an int32)
// expect-exit: 2
// expect-message: @max_group_size(100000000000000000000) is out of range
// expect-message: {case}:15:5: error:
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    @max_group_size(100000000000000000000) action_selector(HashAlgorithm.crc16, 32w4, 32w8) sel;
    action a() { } table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { a; } implementation = sel; }
    apply { t.apply(); }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
