// Names that are Python keywords, builtins or like the generated code's own names (def, class, import, yield,
// with, global, nonlocal, None, True, print, lambda, F0_hdr, x_1, _T, _rt) for functions, parameters, actions,
// tables, locals and fields: generated code must be valid for every legal name.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> None; bit<8> True; bit<8> print; }
struct headers { h_t h; }
struct metadata { bit<8> lambda; }
bit<8> def(in bit<8> class, inout bit<8> import) { import = import + 1; return class + 1; }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    bit<8> global = 3;
    action yield(bit<8> nonlocal, bit<8> F0_hdr) { hdr.h.None = nonlocal + F0_hdr + global; }
    table with { key = { hdr.h.True: exact; } actions = { yield; NoAction; } default_action = yield(1, 2); }
    apply {
        bit<8> x_1 = 5;
        bit<8> _T = 1;
        bit<8> _rt = 2;
        with.apply();
        hdr.h.True = def(hdr.h.print, m.lambda) + x_1 + _T + _rt;
        hdr.h.print = m.lambda;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
