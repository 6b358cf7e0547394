// Parser constructs: locals (variables, constants, value sets over a base type, a tuple and a struct),
// statements in states (blocks, if/else, empty statements, declarations from lookahead, a direct sub-parser
// application), select with tuple keysets (_, default, &&&, .., value sets) and single keysets in
// parentheses, verify, advance, and a state without a transition (an implicit reject).
// productions: parserDeclaration parserLocalElements parserLocalElement parserStates parserState
// productions: parserStatements parserStatement/conditional parserStatement/directApplication
// productions: parserStatement/variableDeclaration parserStatement/constantDeclaration parserBlockStatement
// productions: transitionStatement transitionStatement/empty stateExpression selectExpression selectCaseList
// productions: selectCase keysetExpression tupleKeysetExpression simpleExpressionList
// productions: reducedSimpleKeysetExpression simpleKeysetExpression/mask simpleKeysetExpression/range
// productions: simpleKeysetExpression/default simpleKeysetExpression/dontcare valueSetDeclaration/baseType
// productions: valueSetDeclaration/tupleType valueSetDeclaration/typeName emptyStatement
// productions: directApplication/typeName argument/dontcare
#include "include/harness.p4"
error { Rejected }
struct pair_key_t { bit<8> a; bit<8> b; }
parser Bump(packet_in pkt, inout h_t h) {
    state start { h.w = h.w + 1; transition accept; }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(2) singles;
    value_set<tuple<bit<8>, bit<8>>>(2) pairs;
    value_set<pair_key_t>(2) structs;
    bit<8> count = 0;
    const bit<8> STEP = 0x10;
    state start {
        pkt.extract(hdr.h);
        const bit<8> LOCAL = 1;
        {
            count = count + LOCAL;
        }
        if (hdr.h.a == 0xEE) {
            hdr.h.b = 0xEE;
        } else {
            ;
        }
        bit<8> peek = pkt.lookahead<bit<8>>();
        hdr.h.x = (bit<32>)peek + (bit<32>)count;
        Bump.apply(pkt, hdr.h);
        transition select(hdr.h.a, hdr.h.b) {
            (0x01, _): one;
            (0x02 &&& 0x0F, default): two;
            (0x10 .. 0x1F, 0x00): three;
            pairs: four;
            structs: six;
            (singles, _): five;
            (0xEE, 0xEE): failing;
            default: skip;
        }
    }
    state one { hdr.h.c = 1; transition accept; }
    state two { hdr.h.c = 2; transition accept; }
    state three { hdr.h.c = 3; transition accept; }
    state four { hdr.h.c = 4; transition accept; }
    state five {
        hdr.h.c = 5;
        transition select(hdr.h.d) {
            (0x01 &&& 0x01): accept;
            (_): nothing;
        }
    }
    state six { hdr.h.c = 6; transition accept; }
    state nothing {
        hdr.h.c = 0x50;
    }
    state failing { verify(false, error.Rejected); transition accept; }
    state skip { pkt.advance(8); pkt.extract<h_t>(_); hdr.h.c = STEP; transition accept; }
}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.Rejected) {
            hdr.h.d = 0xE1;
        }
        sm.egress_spec = 1;
    }
}
V1Switch(P(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
