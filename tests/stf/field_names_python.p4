// Field names that are Python keywords or look like the target's own attributes (_emit, __init__, _valid,
// a varbit's width x__w) work like any other name: extracted, assigned, built by a struct initializer, emitted.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> class; bit<8> _emit; bit<8> __init__; bit<8> _valid; bit<8> x__w; bit<8> x; }
struct pair_t { bit<8> lambda; bit<8> def; }
struct headers { h_t h; }
struct metadata { pair_t _copy; }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        pair_t p = { lambda = hdr.h.class, def = hdr.h._emit };
        m._copy = p;
        hdr.h.class = m._copy.def;
        hdr.h._emit = m._copy.lambda;
        hdr.h.__init__ = hdr.h.__init__ + 1;
        hdr.h._valid = hdr.h.x__w ^ hdr.h.x;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
