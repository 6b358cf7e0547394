// Instances in every place the grammar allows them: a top-level extern instance shared by the program, an
// extern instance among a parser's locals (a register read and written in a state), a generic sub-parser
// applied directly with its type argument (its out parameter has the type of the argument), and a control's
// own variables and constants. The registers keep their values from packet to packet.
// productions: instantiation/top_level parserLocalElement controlLocalDeclaration directApplication/specializedType
// productions: typeParameters optTypeParameters
#include "include/harness.p4"
register<bit<8>>(4) global_reg;
parser SubG<T>(packet_in pkt, out T h) {
    state start { pkt.extract(h); transition accept; }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(2) preg;
    state start {
        SubG<h_t>.apply(pkt, hdr.h);
        bit<8> old;
        preg.read(old, 0);
        preg.write(0, old + 1);
        hdr.h.b = old;
        transition accept;
    }
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    bit<8> ctl_var = 3;
    const bit<8> CTL_CONST = 4;
    apply {
        bit<8> g;
        global_reg.read(g, 1);
        global_reg.write(1, g + ctl_var + CTL_CONST);
        hdr.h.c = g;
        sm.egress_spec = 1;
    }
}
V1Switch(P(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
