// An extern object with an abstract method, instantiated with an initializer that implements it (using
// `this`). p4c's front end accepts it, but BMv2's JSON has no place for a P4 implementation of an extern
// method, so a v1model program cannot run it: the front end says so at the instantiation.
// productions: methodPrototype/abstract instantiation/initializer objInitializer objDeclarations objDeclaration
// productions: lvalue/this expression/this
// expect-error: 16:5: instantiations with abstract method implementations are not supported
#include "include/harness.p4"
extern Hooked {
    Hooked();
    abstract bit<8> hook(in bit<8> x);
    bit<8> run(in bit<8> x);
    bit<8> state();
    void reset();
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Hooked() hooked = {
        bit<8> hook(in bit<8> x) {
            this.reset();
            return x + this.state();
        }
    };
    apply {
        hdr.h.a = hooked.run(hdr.h.a);
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
