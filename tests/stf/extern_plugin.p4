// Externs declared by the program itself, implemented by an extern plugin (tests/plugins/demo_externs.py,
// loaded by the STF corpus test through the `# plugin:` line of extern_plugin.stf): a function with in, out and
// inout arguments and a result, and an object whose state lasts across packets.
#include <core.p4>
#include <v1model.p4>

extern bit<8> mix(in bit<8> a, in bit<16> b, out bit<8> lo, inout bit<16> acc);
extern Accumulator {
    Accumulator(bit<16> start);
    bit<16> add(in bit<16> v);
    void reset();
}

header h_t { bit<8> a; bit<16> b; bit<8> lo; bit<16> acc; bit<8> r; bit<16> total; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    Accumulator(16w100) acc;
    apply {
        hdr.h.r = mix(hdr.h.a, hdr.h.b, hdr.h.lo, hdr.h.acc);
        if (hdr.h.a == 0) { acc.reset(); }
        hdr.h.total = acc.add((bit<16>)hdr.h.a);
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
