// parser odds and ends: an error declaration before the includes, a typedef of standard_metadata_t,
// extract<T>(_) skipping a header, a named argument (extract(hdr = ...)), a parser-local variable from
// lookahead and sliced, explicit type arguments and a typed constant index, verify with a program error
error { Custom1, Custom2 }
#include <core.p4>
#include <v1model.p4>
typedef standard_metadata_t std_meta_t;
header H { bit<32> data; }
header P { bit<8> a; bit<8> b; }
struct Headers { H h; P p; H[2] s; }
struct M { bit<8> t; }
parser prs(packet_in p, out Headers h, inout M meta, inout std_meta_t s) {
    state start {
        p.extract<H>(_);
        p.extract(hdr = h.h);
        bit<16> tmp16 = p.lookahead<bit<16>>();
        meta.t = tmp16[7:0];
        p.extract<P>(h.p);
        p.extract<H>(h.s[32w0]);
        verify(h.p.a != 0xEE, error.Custom2);
        transition accept;
    }
}
control vc(inout Headers hdr, inout M meta) { apply {} }
control i(inout Headers hdr, inout M meta, inout std_meta_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.p.b = meta.t;
        if (sm.parser_error == error.Custom2) { hdr.p.a = 0x22; }
    }
}
control e(inout Headers hdr, inout M meta, inout std_meta_t sm) { apply {} }
control cc(inout Headers hdr, inout M meta) { apply {} }
control d(packet_out b, in Headers hdr) { apply { b.emit(hdr); } }
V1Switch(prs(), vc(), i(), e(), cc(), d()) main;
