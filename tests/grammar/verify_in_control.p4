// verify() in a control: the core library's verify ends parsing in the reject state, so only a parser can
// call it. The grammar allows the call anywhere; p4c refuses it outside parsers, and so does our front end
// (it used to compile and drop it).
// productions: assignmentOrMethodCallStatementWithoutSemicolon/call expression/error_member
// expect-error: 10:9: verify() can only be called in a parser
#include "include/harness.p4"
error { NotZero }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        verify(hdr.h.a == 0, error.NotZero);
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
