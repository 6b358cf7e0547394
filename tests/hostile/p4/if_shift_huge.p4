// hostile: `#if 1 << 99999999999`: the compiler computed a 12-gigabyte integer; cpp's
// intmax_t arithmetic leaves 0, so the #if is false
// expect-exit: 0
// args: compile {case} -o {out}/ --p4runtime-files {out}/p4info.txtpb
// expect-output: 0 tables, 0 actions
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
#if 1 << 99999999999
#error this must not be reached
#endif
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    
    apply {  }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
