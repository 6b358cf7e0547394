// Default values (P4-16 1.2.4): `...` as a whole value (0, false, error.NoError, an enum's first member, a
// serializable enum's 0, invalid headers and stacks), `{ x = v, ... }` and `{ v, ... }` filling the other
// fields with defaults (a header so built is valid), and `{#}`, the invalid header; constants built so, a
// function returning `...`, a header stack assigned `...` (all invalid).
// productions: expression/dots expression/kvList_dots expression/invalid_header optInitializer initializer
// productions: variableDeclaration variableDeclarationWithoutSemicolon
#include "include/harness.p4"
enum Plain { FIRST, SECOND }
enum bit<8> Ser { ONE = 1, TWO = 2 }
header small_t { bit<8> f1; bit<8> f2; }
struct inner_t { bit<8> v; bool b; }
struct outer_t { inner_t s; Plain p; Ser e; error err; }
const inner_t KI = { 1, ... };
const inner_t KJ = { b = true, ... };
const bit<8> KD = ...;
const bool CHECKED = static_assert(KD == 0 && !KI.b, "defaults are constants");
inner_t make(in bit<8> v) {
    if (v == 0) {
        return ...;
    }
    return { v, ... };
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        outer_t o = ...;
        outer_t o2 = { s = ..., p = Plain.SECOND, ... };
        inner_t i1 = { 7, ... };
        inner_t i2 = { b = true, ... };
        tuple<bit<8>, bool> tp = { ... };
        small_t h1 = ...;
        small_t h2 = { f2 = 5, ... };
        small_t h3 = { ... };
        small_t h4 = { 1, 2 };
        small_t[2] stack = ...;
        h4 = {#};
        bit<8> n = 9;
        n = ...;
        // a: one bit per check that holds
        hdr.h.a = (o.s.v == 0 ? 8w1 : 0) | (!o.s.b ? 8w2 : 0) | (o.p == Plain.FIRST ? 8w4 : 0)
                  | ((bit<8>)o.e == 0 ? 8w8 : 0) | (o.err == error.NoError ? 8w16 : 0)
                  | (o2.p == Plain.SECOND && o2.s.v == 0 ? 8w32 : 0) | (tp[0] == 0 && !tp[1] ? 8w64 : 0)
                  | (n == 0 ? 8w128 : 0);
        hdr.h.b = i1.v + (i1.b ? 8w0x10 : 0) + (i2.b ? 8w0x20 : 0);
        // c: validity of h1..h4 and of the stack elements, as bits 0..5
        hdr.h.c = (h1.isValid() ? 8w1 : 0) | (h2.isValid() ? 8w2 : 0) | (h3.isValid() ? 8w4 : 0)
                  | (h4.isValid() ? 8w8 : 0) | (stack[0].isValid() ? 8w16 : 0) | (stack[1].isValid() ? 8w32 : 0);
        hdr.h.d = h2.f1 + h2.f2 + h3.f1 + h3.f2;
        hdr.h.w = (bit<16>)(KI.v + (KJ.b ? 8w0x10 : 0) + KD);
        h_t[2] copies;
        copies[0] = hdr.h;
        copies = ...;
        hdr.h.x = ((bit<32>)make(8w7).v << 8) | (bit<32>)make(0).v | (copies[0].isValid() ? 32w0x10000 : 32w0x20000);
        hdr.h.setValid();
        sm.egress_spec = 3;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
