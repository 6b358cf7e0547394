// hostile: fields named _emit, __init__, _valid, __slots__, x__w (legal): compiles
// expect-exit: 0
// args: compile {case} -o {out}/ --p4runtime-files {out}/p4info.txtpb
// expect-output: 0 tables, 0 actions -> {out}/p4info.txtpb, {out}/fields_like_internals.json
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> _emit; bit<8> __init__; bit<8> a; bit<8> b; bit<8> _valid; bit<8> __slots__; bit<8> x__w; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply { hdr.h._emit = hdr.h.__init__ + hdr.h.x__w; }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
