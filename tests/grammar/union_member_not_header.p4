// A header_union whose member is not a header: the grammar's headerUnionDeclaration takes any struct field
// list, but a header union's members are headers (p4c refuses others): so does the front end, at the member.
// productions: headerUnionDeclaration structFieldList structField
// expect-error: 7:5: header_union member 'raw' has type bit<8>; the members of a header_union are headers
#include "include/harness.p4"
header_union U {
    bit<8> raw;
    h_t h;
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
