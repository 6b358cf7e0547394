// A program's own match kind used in a table key. The grammar and p4c's front end accept it, but BMv2's
// tables only match exact, lpm, ternary, range and optional keys, so p4c's BMv2 back end refuses such a table:
// so does ours, at the key.
// productions: matchKindDeclaration identifierList keyElementList tableProperty/key
// expect-error: 11:34: match kind 'fancy' is not supported by v1model
#include "include/harness.p4"
match_kind { fancy }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action nop() { }
    table t {
        key = { hdr.h.a : exact; hdr.h.b : fancy; }
        actions = { nop; }
    }
    apply {
        t.apply();
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
