// A constructor parameter with a direction: the grammar's parameter production allows one, but constructor
// parameters are compile-time values (p4c refuses a direction on them): the front end says so at the parameter.
// productions: optConstructorParameters direction parameterList
// expect-error: 6:30: constructor parameter 'inc' cannot have a direction (in)
#include "include/harness.p4"
control AddK(inout bit<8> v)(in bit<8> inc) {
    apply { v = v + inc; }
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    AddK(1) add1;
    apply {
        add1.apply(hdr.h.a);
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
