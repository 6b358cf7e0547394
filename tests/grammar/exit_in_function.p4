// exit in a function: the grammar allows any statement in a function body, but exit is for controls and
// actions (p4c refuses it in functions and parsers): the front end says so at the statement.
// productions: exitStatement functionDeclaration returnStatement/value
// expect-error: 8:9: exit is not allowed in a function
#include "include/harness.p4"
bit<8> halve(in bit<8> v) {
    if (v == 0) {
        exit;
    }
    return v >> 1;
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = halve(hdr.h.a);
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
