// Functions, actions, extern declarations and loops: generic functions (a type argument given, inferred, and
// `_`), return with and without a value, exit, parameters with default values, named arguments (also `_` for
// an out argument), an extern function with a default and an @optional parameter and a generic extern object
// with a constructor and a generic method (implemented by tests/plugins/grammar_externs.py), compound
// assignments, if/else, C-style and for-in loops (over a range and over a list, with annotations, several
// initializations and updates, break and continue), a parser/control type applied directly, also specialized.
// productions: functionDeclaration returnStatement/value returnStatement/bare exitStatement parameterList
// productions: nonEmptyParameterList parameter/default direction argumentList nonEmptyArgList argument/named
// productions: argument/named_dontcare optTypeParameters typeParameters typeParameterList realTypeArg/dontcare
// productions: externDeclaration/object methodPrototypes methodPrototype/constructor baseType/string
// productions: assignmentOrMethodCallStatementWithoutSemicolon/call assignmentOrMethodCallStatementWithoutSemicolon/assign
// productions: assignmentOrMethodCallStatementWithoutSemicolon/compound conditionalStatement/else
// productions: forStatement/three_clause forStatement/in forStatement/annotated_var forInitStatements
// productions: forInitStatementsNonEmpty declOrAssignmentOrMethodCallStatement forUpdateStatements
// productions: forUpdateStatementsNonEmpty forCollectionExpr/range forCollectionExpr/expression breakStatement
// productions: continueStatement p4listType name directApplication/specializedType lvalue/index
// productions: variableDeclarationWithoutSemicolon/annotated expression/constructor
#include "include/harness.p4"
extern bit<8> plus(in bit<8> a, in bit<8> b = 3, @optional in bit<8> c);
extern void describe(string text);
extern Scaler<T> {
    Scaler(T factor);
    T scale(in T v);
    void add<U>(in U v);
    T total();
}
T pick<T>(in bool first, in T a, in T b) {
    if (first) {
        return a;
    } else {
        return b;
    }
}
void split(in bit<16> v, out bit<8> hi, out bit<8> lo) {
    hi = v[15:8];
    lo = v[7:0];
    return;
}
control Same<T>(inout T v, in T w) { apply { v = w; } }
control Twice(inout bit<8> v) { apply { v = v + v; } }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Scaler<bit<16>>(16w3) scaler;
    action bump(bit<8> by = 1) { hdr.h.d = hdr.h.d + by; }
    apply {
        h_t[2] stack;
        stack[1].a = 5;
        bit<8> hi;
        bit<8> lo;
        split(lo = lo, hi = hi, v = hdr.h.w);
        split(v = hdr.h.w, hi = _, lo = lo);
        hdr.h.a = pick<bit<8>>(hdr.h.a == 0, hi, lo) + pick(false, 8w0, stack[1].a) + pick<_>(true, 8w1, 8w2);
        @my_note bit<8> acc = hdr.h.b;
        acc *= 3;
        acc /= 2;
        acc %= 100;
        acc += 7;
        acc -= 1;
        acc |+|= 250;
        acc |-|= 10;
        acc <<= 1;
        acc >>= 2;
        acc &= 0x7F;
        acc |= 0x80;
        acc ^= 0x0F;
        hdr.h.b = acc;
        bit<8> list = 0;
        @unroll for (@loopvar bit<8> i in 1 .. 4) {
            if (i == 2) { continue; }
            list = list + i;
        }
        for (bit<8> v in (list<bit<8>>){ 10, list, 20 }) { hdr.h.c = hdr.h.c + v; }
        for (bit<8> j = 0, bit<8> k = 1; j < 8; j = j + 1, k = k << 1) {
            if (j == 3) { break; }
            hdr.h.d = hdr.h.d + k;
        }
        bump();
        bump(by = 0x10);
        Same<bit<8>>.apply(hdr.h.c, hdr.h.c + 1);
        Twice.apply(hdr.h.c);
        scaler.add<bit<8>>(hdr.h.a);
        scaler.add(16w0x100);
        hdr.h.w = scaler.scale(hdr.h.w) + scaler.total();
        hdr.h.x = (bit<32>)plus(1) + ((bit<32>)plus(1, 1) << 8) + ((bit<32>)plus(a = 1, c = 5) << 16);
        sm.egress_spec = 1;
        if (hdr.h.d == 0x18) {
            exit;
        }
        hdr.h.x[31:24] = 0xEE;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
