// hostile: a register of headers: compiled, and the first packet to write one crashed the switch with a Python
// TypeError (a cell holds a value, and a header's validity has no place in it; a struct of scalars is packed into one)
// expect-exit: 2
// expect-message: {case}:12:5: error: register<Tag>: a register holds bit<W>, int<W>, bool or enum values, or structs
#include <core.p4>
#include <v1model.p4>
header Tag { bit<16> lo; bit<16> hi; }
struct H { Tag t; }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) { state start { transition accept; } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    register<Tag>(8) cells;
    apply { cells.write(0, h.t); }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control V(inout H h, inout M m) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
