// hostile: 80 nested ifs (legal): compiles
// expect-exit: 0
// args: compile {case} -o {out}/ --p4runtime-files {out}/p4info.txtpb
// expect-output: 0 tables, 0 actions -> {out}/p4info.txtpb, {out}/if_nested_80.json
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply { if (hdr.h.a != 0) { if (hdr.h.a != 1) { if (hdr.h.a != 2) { if (hdr.h.a != 3) { if (hdr.h.a != 4) { if (hdr.h.a != 5) { if (hdr.h.a != 6) { if (hdr.h.a != 7) { if (hdr.h.a != 8) { if (hdr.h.a != 9) { if (hdr.h.a != 10) { if (hdr.h.a != 11) { if (hdr.h.a != 12) { if (hdr.h.a != 13) { if (hdr.h.a != 14) { if (hdr.h.a != 15) { if (hdr.h.a != 16) { if (hdr.h.a != 17) { if (hdr.h.a != 18) { if (hdr.h.a != 19) { if (hdr.h.a != 20) { if (hdr.h.a != 21) { if (hdr.h.a != 22) { if (hdr.h.a != 23) { if (hdr.h.a != 24) { if (hdr.h.a != 25) { if (hdr.h.a != 26) { if (hdr.h.a != 27) { if (hdr.h.a != 28) { if (hdr.h.a != 29) { if (hdr.h.a != 30) { if (hdr.h.a != 31) { if (hdr.h.a != 32) { if (hdr.h.a != 33) { if (hdr.h.a != 34) { if (hdr.h.a != 35) { if (hdr.h.a != 36) { if (hdr.h.a != 37) { if (hdr.h.a != 38) { if (hdr.h.a != 39) { if (hdr.h.a != 40) { if (hdr.h.a != 41) { if (hdr.h.a != 42) { if (hdr.h.a != 43) { if (hdr.h.a != 44) { if (hdr.h.a != 45) { if (hdr.h.a != 46) { if (hdr.h.a != 47) { if (hdr.h.a != 48) { if (hdr.h.a != 49) { if (hdr.h.a != 50) { if (hdr.h.a != 51) { if (hdr.h.a != 52) { if (hdr.h.a != 53) { if (hdr.h.a != 54) { if (hdr.h.a != 55) { if (hdr.h.a != 56) { if (hdr.h.a != 57) { if (hdr.h.a != 58) { if (hdr.h.a != 59) { if (hdr.h.a != 60) { if (hdr.h.a != 61) { if (hdr.h.a != 62) { if (hdr.h.a != 63) { if (hdr.h.a != 64) { if (hdr.h.a != 65) { if (hdr.h.a != 66) { if (hdr.h.a != 67) { if (hdr.h.a != 68) { if (hdr.h.a != 69) { if (hdr.h.a != 70) { if (hdr.h.a != 71) { if (hdr.h.a != 72) { if (hdr.h.a != 73) { if (hdr.h.a != 74) { if (hdr.h.a != 75) { if (hdr.h.a != 76) { if (hdr.h.a != 77) { if (hdr.h.a != 78) { if (hdr.h.a != 79) { hdr.h.b = 1;}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}} }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
