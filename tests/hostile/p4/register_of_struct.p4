// hostile: a register of a struct (p4c's issue907-bmv2): compiled, and the first packet to write one crashed the
// switch with a Python TypeError (BMv2's registers are arrays of bit<W>)
// expect-exit: 2
// expect-message: {case}:12:5: error: register<Pair>: a register holds bit<W>, int<W>, bool or enum values
#include <core.p4>
#include <v1model.p4>
struct Pair { bit<16> lo; bit<16> hi; }
struct H { }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) { state start { transition accept; } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    register<Pair>(8) cells;
    apply { Pair p = { 1, 2 }; cells.write(0, p); }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control V(inout H h, inout M m) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
