// A switch statement in a parser state: the grammar's parserStatement has no switch (p4c stops with a syntax
// error there); a parser chooses with a select transition. The front end says so at the statement.
// productions: parserStatements switchStatement/expression switchCases
// expect-error: 10:9: switch statements are not allowed in a parser
#include "include/harness.p4"
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        bit<8> kind = hdr.h.a;
        switch (kind) {
            1: { hdr.h.b = 1; }
            default: { hdr.h.b = 2; }
        }
        transition accept;
    }
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
V1Switch(P(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
