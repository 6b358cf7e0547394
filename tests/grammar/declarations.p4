// Top-level declarations and types: empty declarations, constants, typedef/type (also of a struct, header and
// enum declaration), serializable and plain enums with trailing commas, error and match_kind declarations,
// header unions (also in a stack: making one member valid invalidates the other), header stacks, extern
// functions, package/parser/control type declarations, controls with constructor parameters and annotated
// instances, bit (= bit<1>), widths given by expressions, fields named like the grammar's contextual keywords.
// productions: p4program declaration constantDeclaration typeDeclaration derivedTypeDeclaration
// productions: typedefDeclaration/typedef typedefDeclaration/derived typedefDeclaration/type
// productions: headerTypeDeclaration structTypeDeclaration headerUnionDeclaration structFieldList structField
// productions: enumDeclaration/plain enumDeclaration/serializable specifiedIdentifierList specifiedIdentifier
// productions: errorDeclaration matchKindDeclaration identifierList optTrailingComma nonTypeName
// productions: externDeclaration/function functionPrototype typeOrVoid packageTypeDeclaration
// productions: parserTypeDeclaration controlTypeDeclaration optConstructorParameters instantiation/annotated
// productions: controlDeclaration controlLocalDeclarations controlLocalDeclaration controlBody
// productions: baseType/bit baseType/bitW baseType/intW baseType/bitExpr baseType/intExpr baseType/varbitExpr
// productions: baseType/varbitW baseType/bool baseType/error baseType/int baseType/match_kind headerStackType typeRef typeName prefixedType
// productions: dotPrefix expression/type_member expression/error_member expression/cast
#include "include/harness.p4"
;
const bit<8> K = 8w0x10;
const int SHIFTED = 1 << 40;
typedef bit<(4 + 4)> byte_t;
type bit<8> tag_t;
typedef header hh_t { bit<8> q; } hh_alias_t;
typedef struct pair_t { bit<8> x; bit<8> y; } pair_alias_t;
typedef enum bit<8> E8 { A = 1, B = 2 } e8_alias_t;
enum bit<8> Color { RED = 1, GREEN = 2, BLUE = 3, }
enum Plain { P0, P1, }
error { MyError, OtherError }
match_kind { my_kind, }
header_union U { hh_t one; h_t two; }
struct kw_t {
    bit<8> key; bit<8> priority; bit<8> type; bit<8> state; bit<8> entries; bit<8> actions; bit<8> apply;
}
struct misc_t {
    bit flag;
    int<(2 * 4)> s;
    varbit<(8 * 2)> vb;
    varbit<16> vb2;
    bool b;
    int<8> signed_field;
    error e;
    hh_t[2] stack;
}
extern void never_called(in bit<8> x, in match_kind kind);
parser MyParserType(packet_in p);
control MyControl(inout bit<8> v);
package MyPackage(MyControl c);
control AddK(inout bit<8> v)(bit<8> inc) { apply { v = v + inc; } }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    AddK(8w2) add2;
    @name("add_three") AddK(3) add3;
    apply {
        kw_t k = { key = 1, priority = 2, type = 3, state = 4, entries = 5, actions = 6, apply = 7 };
        hdr.h.a = k.key + k.priority + k.type + k.state + k.entries + k.actions + k.apply;  // 28
        byte_t v = hdr.h.b;
        add2.apply(v);
        add3.apply(v);
        hdr.h.b = v;  // b + 5
        tag_t t = (tag_t)hdr.h.c;
        hh_alias_t hh = { q = 1 };
        pair_alias_t p = { 2, 3 };
        pair_t p2 = p;
        e8_alias_t e8 = E8.B;
        misc_t m;
        m.flag = 1;
        m.e = error.OtherError;
        U u;
        u.one = hh;
        U[2] unions;
        unions[1].two = hdr.h;
        unions[1].one.setValid();
        hdr.h.c = (bit<8>)t + hh.q + p2.y + (bit<8>)e8 + (bit<8>)Color.GREEN + (bit<8>)m.flag;  // c + 9
        if (m.e == error.OtherError && u.one.isValid() && !u.two.isValid() && unions[1].one.isValid()
                && !unions[1].two.isValid() && !unions[0].isValid()) {
            hdr.h.d = (bit<8>)Color.BLUE;
        }
        .h_t copy = hdr.h;
        hdr.h.x = (bit<32>)copy.a + (bit<32>)(SHIFTED >> 40);
        sm.egress_spec = (bit<9>)K;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
