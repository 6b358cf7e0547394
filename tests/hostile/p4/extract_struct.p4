// hostile: extract of a struct (P4-16 12.8.2: extract takes a header): was accepted, and the struct's fields
// were read from the packet as if it were a header
// expect-exit: 2
// expect-message: {case}:11:28: error: extract: the argument must be a header, not M
#include <core.p4>
#include <v1model.p4>
header H { bit<8> a; }
struct M { bit<8> x; }
struct hdrs { H h; }
parser P(packet_in pk, out hdrs hd, inout M m, inout standard_metadata_t sm) {
  state start { pk.extract(m); transition accept; }
}
control V(inout hdrs hd, inout M m) { apply {} }
control I(inout hdrs hd, inout M m, inout standard_metadata_t sm) { apply {} }
control E(inout hdrs hd, inout M m, inout standard_metadata_t sm) { apply {} }
control C(inout hdrs hd, inout M m) { apply {} }
control D(packet_out pk, in hdrs hd) { apply { pk.emit(hd); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
