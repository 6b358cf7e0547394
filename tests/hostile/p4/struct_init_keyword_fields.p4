// hostile: a struct initializer with fields named like Python keywords (legal): compiles
// expect-exit: 0
// args: compile {case} -o {out}/ --p4runtime-files {out}/p4info.txtpb
// expect-output: 0 tables, 0 actions -> {out}/p4info.txtpb, {out}/struct_init_keyword_fields.json
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
struct s_t { bit<8> class; bit<8> lambda; bit<8> def; }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply { s_t s = { class = 1, lambda = 2, def = 3 }; hdr.h.a = s.class + s.lambda + s.def; }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
