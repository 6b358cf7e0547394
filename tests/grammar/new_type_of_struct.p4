// `type` of a struct: the grammar's typedefDeclaration allows any typeRef after `type`, but the specification
// (7.6) makes new types only from bit<W>, int<W>, bool or another new type, and p4c refuses the rest: so does
// the front end, at the declaration.
// productions: typedefDeclaration/type typeDeclaration
// expect-error: 8:1: 'type' can only make a new type from bit<W>, int<W>, bool or another 'type', not pair_t
#include "include/harness.p4"
struct pair_t { bit<8> x; bit<8> y; }
type pair_t pair_nt;
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
